"""The audit's memory: the interface every state implements, and its value
types.

The spider asks it what is new and what to check next; the report pipeline
tells it outcomes and referrers and reads everything back at the end.  The
memory implementation is the default; an embedded database (resume) and a
shared one (several machines) implement the same methods, so neither the
spider nor the pipelines change when the state moves.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator
from typing import NamedTuple

from linkaudit.items import UrlResult
from linkaudit.rules.recheck import History


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


class AuditState(ABC):
    """The audit's memory.  Depths are link hops from the nearest start URL.

    The crawl runs breadth-first by levels (see the spider), so the first
    depth a URL is discovered at is its shortest.
    """

    # A state shared by several processes (Redis): the frontier may be empty
    # here while other workers still produce work (``over()`` tells when the
    # audit ends), one worker writes the report (``report_reason``).
    shared = False
    # LINKAUDIT_MAX_URLS (set by the spider; 0: no bound): once the audit
    # knows that many URLs, a new one is not recorded (memory stays
    # bounded), only counted: ``discover`` says None, ``urls_dropped`` counts
    max_urls = 0
    note: str | None = None  # why this process wrote no report
    verdict: dict | None = None  # the report another process wrote, for the exit code

    # -- the audit ------------------------------------------------------------
    def open_run(self, start_urls: list[str], near_prefixes: tuple[str, ...]) -> Run:
        """Start an audit, or resume an interrupted one of the same site."""
        return NEW_RUN

    def finish_run(self, finish_reason: str, broken: list[str]) -> None:  # noqa: B027
        """The audit closed; ``broken`` is what its report called broken."""

    def history(self, url: str) -> History | None:
        """What earlier audits learnt about ``url`` (None: nothing, or this
        state does not remember across audits)."""
        return None

    def owe(self, url: str, phase: str) -> None:  # noqa: B027
        """``url``'s check continues with a ``phase`` request (see Pending)."""

    # -- the spider's side ------------------------------------------------
    @abstractmethod
    def discover(self, url: str, depth: int) -> bool | None:
        """Note ``url`` at ``depth``; True only the first time it is seen;
        None: new, but past ``max_urls``, so not recorded (counted)."""

    @abstractmethod
    def enqueue(self, url: str, depth: int, referer: str | None) -> None:
        """Put a discovered URL in the frontier, to be checked."""

    @abstractmethod
    def next_level(self, limit: int | None = None) -> list[Pending]:
        """Take frontier URLs of the shallowest waiting depth, in the order
        they were found: all of them, or the first ``limit``."""

    @abstractmethod
    def waiting(self) -> int:
        """How many URLs the frontier holds (for progress reports)."""

    def discover_many(self, urls: list[str], depth: int) -> list[bool | None]:
        """``discover`` for each URL (a shared state asks once)."""
        return [self.discover(url, depth) for url in urls]

    def urls_dropped(self) -> int:
        """New URLs not recorded because the audit knew ``max_urls``."""
        return 0

    def over(self) -> str | None:
        """Why the audit is over for every process (a shared state); None:
        it goes on, or this process decides alone (the engine is idle)."""
        return None

    # -- the pipeline's side ----------------------------------------------
    def add_referrers(self, page: str, links: list[tuple[str, int | None]]) -> None:
        for target, line in links:
            self.add_referrer(target, page, line)

    def report_reason(self, reason: str) -> str | None:
        """The crawl closed with ``reason``: the finish reason of the report
        this process writes, or None when it writes none (``note`` says why)."""
        return reason

    def report_written(self, path: str, report: dict) -> None:  # noqa: B027
        """The report is on disk."""

    @abstractmethod
    def add_referrer(self, target: str, page: str, line: int | None) -> None:
        """One link occurrence on ``page`` (or a redirect) points at ``target``."""

    @abstractmethod
    def set_result(self, result: UrlResult, now: float) -> float | None:
        """Record a URL's outcome, decided at ``now`` (epoch seconds).
        Returns when its current run of failures began (None: not failing)."""

    def record(self, result: UrlResult, now: float) -> float | None:
        """:meth:`set_result`, with the referrers known so far read into
        ``result`` first (the item handed on carries them).  A state with a
        round trip per call (Redis) does both in one."""
        count, refs = self.referrers(result.url)
        result.referrer_count = count
        result.referrers = [{"url": page, "line": line} for page, line in refs]
        return self.set_result(result, now)

    @abstractmethod
    def referrers(self, url: str) -> tuple[int, list[tuple[str, int | None]]]:
        """How many link occurrences point at ``url``, and those kept."""

    @abstractmethod
    def entries(self) -> Iterator[Entry]:
        """Every discovered URL, in no particular order."""

    # -- marks: URLs to read in a special way --------------------------------------
    def mark(self, kind: str, urls: list[str]) -> None:
        """Note ``urls`` as ``kind``: ANCHORS (some link points at one of
        their fragments: a far HTML page among them is downloaded for its
        anchors) or SITEMAP (read as a sitemap when checked)."""
        self._marks(kind).update(urls)

    def marked(self, kind: str, url: str) -> bool:
        return url in self._marks(kind)

    def _marks(self, kind: str) -> set[str]:
        marks = self.__dict__.setdefault("_marks_by_kind", {})
        return marks.setdefault(kind, set())

    # -- redirect chains: each hop is a URL of its own --------------------------
    def hops(self, url: str) -> int:
        """How many redirects in a row led to ``url`` when it was discovered
        (0: it was found as a link, not only as a redirect's target)."""
        return self.__dict__.get("_hops", {}).get(url, 0)

    def set_hops(self, url: str, hops: int) -> None:
        """``url``, new, is the target of a chain of ``hops`` redirects."""
        self.__dict__.setdefault("_hops", {})[url] = hops

    def close(self) -> None:  # noqa: B027 - optional hook, nothing to release in memory
        """Release resources (a database connection, say)."""
