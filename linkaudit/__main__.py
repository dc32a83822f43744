"""``python -m linkaudit``: the same as the ``linkaudit`` command."""

import sys

from linkaudit.cli import main

sys.exit(main())
