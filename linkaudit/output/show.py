"""The command's last step: the report read back from its file (or
rebuilt from the journal when it could not be written), shown in the
format asked for, and the exit code it calls for."""

from __future__ import annotations

import os
import shutil
import sys
from typing import Any

from linkaudit.config import Config
from linkaudit.output.exitstatus import EXIT_USAGE, exit_code
from linkaudit.output.formats import FORMATS
from linkaudit.output.journal import read_journal, rebuild_report
from linkaudit.output.report import read_report


def show_report(config: Config, fmt: str, fail_on: str) -> int:
    """Print the report as ``fmt``; the exit code.  JSON is the file as
    written (copied, never decoded); JUnit and HTML list every URL; the
    other formats and the exit code need only the entries that are not ok
    (a report rebuilt from the journal has them all)."""
    report = _load_report(config, lean=fmt not in ("junit", "html"))
    if report is None:
        print("linkaudit: error: the audit left no report and no journal", file=sys.stderr)
        return EXIT_USAGE
    try:
        if not (fmt == "json" and _copy(config.report)):
            print(FORMATS[fmt](report))
            sys.stdout.flush()
    except BrokenPipeError:  # `linkaudit URL | head`: the verdict stands
        reader_left()
    return exit_code(report, fail_on)


def reader_left() -> None:
    """The reader of stdout went away (``| head``): the rest is not written.
    stdout is pointed at /dev/null, so that the flush at exit raises nothing
    and Python prints no traceback of its own."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # no stdout to point anywhere
        pass


def _load_report(config: Config, lean: bool) -> dict[str, Any] | None:
    try:
        return read_report(config.report, lean)
    except (OSError, ValueError):
        pass
    try:  # the report could not be written: the journal has the results
        with open(config.journal or "", encoding="utf-8") as fh:
            return rebuild_report(read_journal(fh))
    except (OSError, TypeError, ValueError, KeyError):
        return None


def _copy(path: str) -> bool:
    """The report file on stdout as it is (a 150 MB report is not decoded
    and encoded again); False if it cannot be read."""
    try:
        with open(path, encoding="utf-8") as fh:
            sys.stdout.flush()
            shutil.copyfileobj(fh, sys.stdout, 1 << 20)
    except OSError:
        return False
    sys.stdout.flush()
    return True
