"""``python -m linkaudit``: the same as the ``linkaudit`` command."""

import sys

from linkaudit.cli import main

if __name__ == "__main__":  # importable without running (spawned processes, tools)
    sys.exit(main())
