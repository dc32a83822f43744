"""The parser of a subcommand (``linkaudit report``, ``linkaudit history``):
a usage error is one line and exit code 2, as the command's own."""

from __future__ import annotations

import argparse
from typing import NoReturn

from linkaudit.output.exitstatus import EXIT_USAGE


class SubcommandParser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")
