"""The ``linkaudit`` command's parts: its options (``parser``) and its
configuration file (``linkaudit.config.file``); a shared audit's check
before the crawl (``shared``); ``linkaudit report``, a shared audit's report
built from Redis (``report``).  ``linkaudit.cli`` runs them."""
