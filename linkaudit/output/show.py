"""The command's last step: the report read back from its file (or
rebuilt from the journal when it could not be written), shown in the
format asked for, and the exit code it calls for."""

from __future__ import annotations

import shutil
import sys
from typing import Any

from linkaudit.config import Config
from linkaudit.output.exitstatus import EXIT_USAGE, exit_code
from linkaudit.output.formats import FORMATS
from linkaudit.output.formats.places import DEFAULT, Options
from linkaudit.output.journal import read_journal, rebuild_report
from linkaudit.output.report import read_report


def show_report(config: Config, fmt: str, fail_on: str, options: Options = DEFAULT) -> int:
    """Print the report as ``fmt``; the exit code.  JSON is the file as
    written (copied, never decoded); HTML and ``--junit-all`` list every
    URL; the other formats and the exit code need only the entries that
    are not ok (a report rebuilt from the journal has them all)."""
    report = _load_report(config, lean=not every_entry(fmt, options))
    if report is None:
        print("linkaudit: error: the audit left no report and no journal", file=sys.stderr)
        return EXIT_USAGE
    if not (fmt == "json" and _copy(config.report)):
        print(FORMATS[fmt](report, options))
    return exit_code(report, fail_on)


def every_entry(fmt: str, options: Options) -> bool:
    """Whether ``fmt`` shows the ok entries too."""
    return fmt == "html" or (fmt == "junit" and options.junit_all)


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
