"""A non-zero exit status for failures Scrapy's ``crawl`` command cannot see.

``scrapy crawl`` exits 1 only when the crawl fails to start; a report that
cannot be written at the very end happens in a signal handler, whose errors
Scrapy logs and swallows.  So the handler asks for a status here, and it is
applied when the interpreter exits, after Scrapy has shut down and its own
``sys.exit(0)`` has run.
"""

from __future__ import annotations

import atexit
import logging
import os
import sys

from linkaudit.items import Outcome
from linkaudit.output.report.records import Report

# The linkaudit command's exit codes (linkaudit/cli.py documents them);
# scrapy crawl uses the two it cannot see otherwise.
EXIT_OK, EXIT_BROKEN, EXIT_USAGE, EXIT_INCOMPLETE, EXIT_INTERNAL = 0, 1, 2, 3, 4

_requested: list[int] = []


def fail_at_exit(code: int = 1) -> None:
    """Make the process exit with ``code`` (the highest asked for wins)."""
    if not _requested:
        atexit.register(_exit)
    _requested.append(code)


def requested() -> int:
    """The status asked for so far, 0 when none (for in-process callers)."""
    return max(_requested, default=0)


def _exit() -> None:
    # Registered after logging's own handler, so it runs first: flush what
    # the user must see, then leave with the status (os._exit, as SystemExit
    # raised inside atexit would be ignored).
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(requested())


def exit_code(report: Report, fail_on: str = "broken") -> int:
    """The linkaudit command's exit code for a report.  ``fail_on``: "new"
    counts only breakage the baseline did not have (every broken URL when
    there was no baseline to compare with)."""
    if report["summary"].get("internal_errors"):
        return EXIT_INTERNAL
    broken = [u for u in report["urls"] if u["outcome"] == Outcome.BROKEN]
    # a missing fragment fails like a broken link (--check-fragments)
    gaps = [g for u in report["urls"] for g in u.get("missing_fragments", ())]
    if "changed_since" in report:  # --changed-since: only what the change holds
        broken = [u for u in broken if u.get("changed", True)]
        gaps = [g for g in gaps if g.get("changed", True)]
    if fail_on == "new" and "fixed" in report:
        broken = [u for u in broken if u.get("new")]
        gaps = [g for g in gaps if g.get("new")]
    broken += gaps
    if broken and fail_on != "none":
        return EXIT_BROKEN
    return EXIT_OK if report["complete"] or broken else EXIT_INCOMPLETE
