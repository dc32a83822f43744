"""The ``linkaudit`` command's parts: its options (``parser``) and its
configuration file (``linkaudit.config.file``); ``linkaudit.cli`` runs it."""
