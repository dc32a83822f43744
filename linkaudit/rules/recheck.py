"""When an earlier check of a URL still counts: the rules of incremental
audits, kept apart from where the history is stored (``linkaudit/state/``).

Settings (seconds; 0, the default, turns each rule off, so that without them
every URL is checked and every failure reported, as in a first audit):

- ``LINKAUDIT_RECHECK_AFTER``: a URL checked less than this long ago is not
  requested again; its last outcome is reported with ``from_cache``.
- ``LINKAUDIT_RECHECK_GOOD_AFTER``: the same for URLs that were ``ok``
  (usually longer: a good link rarely breaks overnight).  The larger of the
  two applies to them.
- ``LINKAUDIT_FOLLOW_GHOST``: a near page that fails now, and answered less
  than this long ago, still has its last known links followed, so one page
  down for an hour does not hide the part of the site behind it.
- ``LINKAUDIT_REPORT_AFTER``: a URL must have been failing this long (since
  its first failure in a row) before the report calls it ``broken``; until
  then it is ``ok`` with a ``warning``, so a flaky link does not fail CI on
  its first miss.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import NamedTuple

from linkaudit.items import Outcome, UrlResult

CACHEABLE = frozenset({"ok", "redirect", "broken"})  # outcomes decided by a request


class History(NamedTuple):
    """What the audit database knows about a URL from earlier checks."""

    result: UrlResult  # the last outcome, as checked (links not included)
    checked_at: float  # epoch seconds
    last_ok_at: float | None
    first_failed_at: float | None  # start of the current run of failures
    fail_count: int  # failures in a row
    etag: str | None
    last_modified: str | None  # the HTTP date, as the server sent it
    links: list[tuple[str, int | None]] | None  # a scanned page's links


def iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).isoformat(timespec="seconds")


@dataclass(frozen=True)
class RecheckPolicy:
    recheck_after: float = 0.0
    recheck_good_after: float = 0.0
    follow_ghost: float = 0.0
    report_after: float = 0.0

    def fresh(self, history: History | None, now: float) -> bool:
        """The last check still counts: do not request the URL."""
        if history is None or history.result.outcome not in CACHEABLE:
            return False
        interval = self.recheck_after
        if history.result.outcome == Outcome.OK:
            interval = max(interval, self.recheck_good_after)
        return interval > 0 and now - history.checked_at < interval

    def ghost_links(self, history: History | None, now: float) -> list[tuple[str, int | None]]:
        """The links to keep following for a page that fails now."""
        if not self.follow_ghost or history is None or not history.links:
            return []
        if history.last_ok_at is None or now - history.last_ok_at >= self.follow_ghost:
            return []
        return history.links

    def present(self, result: UrlResult, failing_since: float | None, now: float) -> UrlResult:
        """The result as the report shows it: a failure younger than
        LINKAUDIT_REPORT_AFTER is ``ok`` with a warning."""
        # Only failures of a request: an unparsable URL is not flaky.
        if result.outcome != Outcome.BROKEN or result.method is None or failing_since is None:
            return result
        if self.report_after <= 0:
            return result
        if now - failing_since >= self.report_after:
            return result
        return replace(
            result,
            outcome=Outcome.OK,
            error=None,
            warning=(
                f"{result.error} (failing since {iso(failing_since)}; reported as broken "
                f"once it has failed for {self.report_after:g} s)"
            ),
        )
