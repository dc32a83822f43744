"""The values a state holds and hands out: a pending URL, an audit's run,
what earlier audits left (``Past``), an entry of the report, the audit's
totals and progress.  The interface that uses them is ``base.py``."""

from __future__ import annotations

from typing import NamedTuple

from linkaudit.items import UrlResult
from linkaudit.rules.history import Streak


class Pending(NamedTuple):
    """A URL waiting in the frontier."""

    url: str
    depth: int
    referer: str | None
    # The request still owed after an interrupted check ("get" after a HEAD
    # that found a page, "fallback" after a HEAD that failed): a resumed
    # audit sends only that, never the HEAD again.
    phase: str | None = None


class Run(NamedTuple):
    """The audit this process works on, as the state opened it."""

    resumed: bool  # an interrupted audit continues
    checked: int  # URLs already checked when it opened
    pages: int  # pages already scanned when it opened
    baseline: frozenset[str] | None  # URLs the previous finished audit reported broken
    baseline_source: str | None  # where that came from, for the report


class Past(NamedTuple):
    """What a state that ``remembers`` knows of the site's earlier audits
    (``linkaudit/rules/history.py``)."""

    audits: list[dict]  # their records, oldest first, as the report's ``history``
    broken: dict[str, Streak]  # URL -> its broken run, open after the last one
    carrying: dict[str, Streak]  # page -> its run of audits carrying broken links


NEW_RUN = Run(resumed=False, checked=0, pages=0, baseline=None, baseline_source=None)


def scanned_page(result: UrlResult) -> bool:
    """The result is an HTML page scanned in this audit (``summary.pages``):
    it has page statistics, and its links were read now, not carried over
    from an earlier audit (a cached or 304 page)."""
    return result.page is not None and not (result.stored_links or result.from_cache)


class Entry(NamedTuple):
    """Everything the report says about one URL."""

    url: str
    depth: int
    result: UrlResult | None  # None: discovered, never checked
    referrer_count: int
    referrers: list[tuple[str, int | None]]
    failing_since: float | None = None  # epoch seconds: first failure in a row


class Totals(NamedTuple):
    """What the report's summary counts of the whole audit."""

    pages: int  # pages scanned
    requests: int  # requests sent
    started_at: str  # ISO 8601, when the audit started


class ProgressCounts(NamedTuple):
    """The live status line's counts."""

    checked: int
    waiting: int
    broken: int
