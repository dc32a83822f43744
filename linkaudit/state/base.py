"""The audit's memory: the interface every state implements, and the values
it holds and hands out (a pending URL, an audit's run, what earlier audits
left, an entry of the report, the audit's totals and progress).

The spider asks it what is new and what to check next; the report pipeline
tells it outcomes and referrers and reads everything back at the end.  The
memory implementation is the default; an embedded database (resume) and a
shared one (several machines) implement the same methods, so neither the
spider nor the pipelines change when the state moves.  ``AuditState``
declares everything they ask, and how backends may differ (its
capabilities); ``tests/test_state_contract.py`` holds every backend to it.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping
from typing import Any, Literal, NamedTuple, TypedDict

from linkaudit.items import UrlResult
from linkaudit.rules.backoff import BackoffRecord
from linkaudit.rules.history import Streak
from linkaudit.rules.memento import ArchiveNote
from linkaudit.rules.recheck import History
from linkaudit.rules.rendered import referrer_fields


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


# an audit's summary counts its record keeps (AuditCounts), in the report's order
CountName = Literal[
    "urls", "pages", "requests", "ok", "redirect", "broken", "blocked", "excluded", "unchecked"
]


class AuditCounts(TypedDict):
    """An audit's summary counts, as its record keeps them."""

    urls: int
    pages: int
    requests: int
    ok: int
    redirect: int
    broken: int
    blocked: int
    excluded: int
    unchecked: int


class AuditRecord(TypedDict):
    """A finished audit's record: an item of the report's ``history``, as
    ``linkaudit history --format json`` prints it and the audit database
    keeps it (``state/audits.py``, which reads a row back only when it is as
    linkaudit writes it)."""

    started_at: str
    finished_at: str
    seconds: float
    finish_reason: str
    complete: bool
    summary: AuditCounts
    new: int
    fixed: int


class GetOnlyNote(TypedDict):
    """What showed a host's HEAD answers are no hint (``note_get_only``; the
    report's ``summary.get_only_hosts``): the URL, its HEAD's and its GET's
    statuses, the reason in words."""

    url: str
    head: int
    get: int
    reason: str


# A record a state hands back (get_only_hosts, archived): the one noted, or
# one read back from SQLite or Redis as JSON, so open (a tampered or older
# file may hold anything): its readers check each field (output/report/).
KeptRecord = Mapping[str, Any]


class Past(NamedTuple):
    """What a state that ``remembers`` knows of the site's earlier audits
    (``linkaudit/rules/history.py``)."""

    audits: list[AuditRecord]  # their records, oldest first, as the report's ``history``
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


class AuditState(ABC):
    """The audit's memory.  Depths are link hops from the nearest start URL.

    The crawl runs breadth-first by levels (see the spider), so the first
    depth a URL is discovered at is its shortest.

    Everything a component asks of a state is declared here, and every
    backend answers it: a question that only a shared audit could ask has a
    single-process answer too (``totals``, ``progress``: what this process
    knows; ``settle_report``: this process writes the report), so no caller
    asks which backend it has.  How backends legitimately differ is declared
    by three flags, which ``tests/test_state_contract.py`` holds each
    backend to:

    - ``durable``: the audit outlives this process; a state opened again on
      the same storage continues it (the audit database resumes an
      interrupted audit: ``open_run`` says ``resumed``; a Redis worker joins
      the running audit).  A memory state starts from nothing.
    - ``remembers``: ``history`` reads what earlier, finished audits learnt
      (the audit database only).
    - ``shared``: several processes work on the audit at once (Redis): the
      frontier may be empty here while other workers still produce work
      (``over()`` tells when the audit ends), claims are batches
      (``LINKAUDIT_RELEASE_BATCH``), counts are the audit's, and one worker
      writes the report (``settle_report``).

    A new backend subclasses this (or ``MemoryState``, for a working set in
    memory), is named by ``LINKAUDIT_STATE``, and is added to the contract
    suite's backends.
    """

    durable = False
    remembers = False
    shared = False
    # LINKAUDIT_MAX_URLS (set by the spider; 0: no bound): once the audit
    # knows that many URLs, a new one is not recorded (memory stays
    # bounded), only counted: ``discover`` says None, ``urls_dropped`` counts
    max_urls = 0
    # What ``settle_report`` decided when this process writes no report, for
    # the command after the crawl: why (``note``, printed), and the report
    # another process wrote (``report_path``, ``verdict``: its summary and
    # broken URLs, as the exit code needs them; None: not known).
    note: str | None = None
    report_path: str | None = None
    verdict: dict | None = None

    # -- the audit ------------------------------------------------------------
    def open_run(self, start_urls: list[str], near_prefixes: tuple[str, ...]) -> Run:
        """Start an audit, or resume an interrupted one of the same site
        (``durable``), or join the running one (``shared``)."""
        return NEW_RUN

    def finish_run(self, finish_reason: str, broken: list[str]) -> None:  # noqa: B027
        """The audit closed; ``broken`` is what its report called broken (the
        next audit's baseline, in a state that ``remembers``)."""

    def history(self, url: str) -> History | None:
        """What earlier audits learnt about ``url`` (None: nothing, or this
        state does not ``remember`` across audits)."""
        return None

    def past(self) -> Past | None:
        """The site's earlier audits and the broken runs they left open (None:
        this state does not ``remember`` across audits)."""
        return None

    def keep_audit(  # noqa: B027 - nothing is kept beyond the audit in memory or Redis
        self, record: AuditRecord, broken: dict[str, Streak], carrying: dict[str, Streak]
    ) -> None:
        """The audit's report is written: keep its ``record`` (as the report's
        ``history`` has it) and the broken runs open after it, for the next
        audit's :meth:`past` (a state that ``remembers``; calling it again
        for the same audit, resumed, replaces what it kept)."""

    def owe(self, url: str, phase: str) -> None:  # noqa: B027
        """``url``'s check continues with a ``phase`` request (see Pending):
        a ``durable`` state's frontier gives it back with that phase to the
        process that continues the audit; in memory nobody continues it."""

    # -- the frontier -----------------------------------------------------
    @abstractmethod
    def discover(self, url: str, depth: int) -> bool | None:
        """Note ``url`` at ``depth``; True only the first time it is seen;
        None: new, but past ``max_urls``, so not recorded (counted)."""

    def discover_many(self, urls: list[str], depth: int) -> list[bool | None]:
        """``discover`` for each URL (a shared state asks once)."""
        return [self.discover(url, depth) for url in urls]

    @abstractmethod
    def enqueue(self, url: str, depth: int, referer: str | None) -> None:
        """Put a discovered URL in the frontier, to be checked."""

    @abstractmethod
    def next_level(self, limit: int | None = None) -> list[Pending]:
        """Take frontier URLs of the shallowest waiting depth, in the order
        they were found: all of them, or the first ``limit`` (a shared state:
        a claim of at most ``limit``, or of its batch)."""

    @abstractmethod
    def waiting(self) -> int:
        """How many URLs the frontier holds (for progress reports)."""

    def urls_dropped(self) -> int:
        """New URLs not recorded because the audit knew ``max_urls``."""
        return 0

    def over(self) -> str | None:
        """Why the audit is over for every process (a shared state); None:
        it goes on, or this process decides alone (the engine is idle)."""
        return None

    # -- outcomes and referrers ---------------------------------------------
    @abstractmethod
    def add_referrer(self, target: str, page: str, line: int | None) -> None:
        """One link occurrence on ``page`` (or a redirect) points at ``target``."""

    def add_referrers(self, page: str, links: list[tuple[str, int | None]]) -> None:
        """``page``'s links (a shared state counts them when ``page``'s
        result is recorded: once, however often the page is checked)."""
        for target, line in links:
            self.add_referrer(target, page, line)

    def record(self, result: UrlResult, now: float) -> float | None:
        """Record a URL's outcome, decided at ``now`` (epoch seconds), and
        read the referrers known so far into ``result`` (the item handed on
        carries them).  Returns when its current run of failures began
        (None: not failing).  The one way a result enters the state: the
        crawl, a local build's walk and a journal's rebuild all call it."""
        failing_since, count, refs = self._settle(result, now)
        result.referrer_count = count
        result.referrers = [referrer_fields(page, line) for page, line in refs]
        return failing_since

    @abstractmethod
    def _settle(
        self, result: UrlResult, now: float
    ) -> tuple[float | None, int, list[tuple[str, int | None]]]:
        """:meth:`record`'s backend hook: store ``result``; return when its
        failures began and ``referrers(result.url)`` as they were before it
        was stored (an ok URL's list is dropped then).  One hook, so that a
        state with a round trip per call (Redis) does both in one."""

    @abstractmethod
    def referrers(self, url: str) -> tuple[int, list[tuple[str, int | None]]]:
        """How many link occurrences point at ``url``, and those kept (an ok
        URL's may be dropped: a count is enough for the report)."""

    @abstractmethod
    def entries(self) -> Iterator[Entry]:
        """Every discovered URL, in no particular order."""

    # A state that holds every entry in this process's memory reads one
    # again by its URL for about what decoding it costs (``entry``): the
    # report's one pass then keeps only the URLs, not every entry packed
    # (output/report/kept.py).  A state with a round trip a read (Redis)
    # does not: the pass keeps what ``entries`` gave.
    rereads_entries = False

    def entry(self, url: str) -> Entry:
        """The entry of a discovered ``url``, as :meth:`entries` gives it
        (only where ``rereads_entries``)."""
        raise NotImplementedError

    # -- marks: URLs to read in a special way --------------------------------------
    @abstractmethod
    def mark(self, kind: str, urls: list[str]) -> None:
        """Note ``urls`` as ``kind``: ANCHORS (some link points at one of
        their fragments: a far HTML page among them is downloaded for its
        anchors) or SITEMAP (read as a sitemap when checked)."""

    @abstractmethod
    def marked(self, kind: str, url: str) -> bool:
        """``url`` was marked ``kind``."""

    # -- redirect chains: each hop is a URL of its own --------------------------
    @abstractmethod
    def hops(self, url: str) -> int:
        """How many redirects in a row led to ``url`` when it was discovered
        (0: it was found as a link, not only as a redirect's target)."""

    @abstractmethod
    def set_hops(self, url: str, hops: int) -> None:
        """``url``, new, is the target of a chain of ``hops`` redirects."""

    # -- a struggling host's back-off (hosts/backoff.py) ----------------
    def backoff(self, host: str) -> KeptRecord | None:
        """What another process left of ``host``'s back-off (a record of
        ``save_backoff``: level, pauses, paused until, given up); None:
        nothing.  A state that is not ``shared`` answers None: the one
        process's middleware holds its hosts' back-off itself."""
        return None

    def save_backoff(self, host: str, record: BackoffRecord) -> None:  # noqa: B027
        """Keep ``host``'s back-off for the audit's other workers (a shared
        state: the worker that takes the host over goes on from there)."""

    def share_retries(self, count: int) -> None:  # noqa: B027
        """Add this process's retries (requests asked again) to the audit's:
        a shared state keeps every worker's sum, read by :meth:`retries`."""

    def retries(self, own: int) -> int:
        """The audit's retries, given this process's ``own`` (as
        :meth:`totals`): a shared state's are every worker's."""
        return own

    def backoff_totals(self) -> tuple[int, int] | None:
        """Back-offs and pauses of every host, counted in the records of
        ``save_backoff`` (a shared state: every worker's); None: this
        process's own count is the audit's."""
        return None

    # -- hosts whose HEAD answers are no hint (rules/decisions.py) ------------
    @abstractmethod
    def get_only(self, host: str) -> bool:
        """``host``'s GET answers contradicted its HEAD answers (noted in
        this audit, by another worker of a shared audit, or by an earlier
        audit in a state that ``remembers``): its URLs are asked with GET."""

    @abstractmethod
    def note_get_only(self, host: str, record: GetOnlyNote) -> None:
        """Note ``host`` as :meth:`get_only`, with what showed it (the
        report's ``summary.get_only_hosts``: the URL, its HEAD's and its
        GET's statuses, the reason in words)."""

    @abstractmethod
    def get_only_hosts(self) -> dict[str, KeptRecord]:
        """Every host noted :meth:`get_only`, with its record."""

    # -- archived copies of broken links (--archive, linkaudit/memento/) ------
    @abstractmethod
    def archived(self, url: str) -> KeptRecord | None:
        """What a look-up in the archive found for ``url`` (a record of
        :meth:`note_archived`), in this audit, by another worker of a shared
        audit, or by an earlier audit in a state that ``remembers``; None:
        never looked up."""

    @abstractmethod
    def note_archived(self, url: str, record: ArchiveNote) -> None:
        """Keep what the look-up of ``url`` found: the copy (``url``,
        ``date``) or why none (``note``), whether the archive said so
        (``final``: not asked again) and when (``at``)."""

    @abstractmethod
    def archived_copies(self) -> dict[str, KeptRecord]:
        """Every record of :meth:`note_archived`, by URL (the report's
        ``archived``)."""

    # -- the audit's counts and its report ------------------------------------
    def totals(self, own: Totals) -> Totals:
        """The report's counts of the whole audit, given this process's
        ``own``: the same, when this process is the whole audit; a shared
        state's are every worker's, read from the shared state."""
        return own

    def progress(self, own: ProgressCounts) -> ProgressCounts:
        """The status line's counts of the whole audit, given this
        process's ``own`` (as :meth:`totals`)."""
        return own

    def settle_report(self, reason: str) -> str | None:
        """The crawl closed with ``reason``: settle who writes the report.
        Returns the finish reason of the report this process writes, or
        None when it writes none (``note`` says why; ``report_path`` and
        ``verdict``, the report another process wrote, if known).  A
        shared state leaves the audit here, takes the report's lock and
        may wait (bounded) for the other workers or for their report."""
        return reason

    def report_written(self, path: str, report: dict) -> None:  # noqa: B027
        """The report is on disk (a shared state tells the other workers)."""

    def close(self) -> None:  # noqa: B027 - optional hook, nothing to release in memory
        """Release resources (a database connection, say)."""
