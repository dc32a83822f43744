"""What an audit knows, behind one small interface.

The spider asks it what is new and what to check next; the report pipeline
tells it outcomes and referrers and reads everything back at the end.  The
memory implementation is the default; an embedded database (resume) and a
shared one (several machines) implement the same methods, so neither the
spider nor the pipelines change when the state moves.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import replace
from typing import NamedTuple

from linkaudit.items import UrlResult
from linkaudit.recheck import History


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
    def discover(self, url: str, depth: int) -> bool:
        """Note ``url`` at ``depth``; True only the first time it is seen."""

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

    # -- the pipeline's side ----------------------------------------------
    @abstractmethod
    def add_referrer(self, target: str, page: str, line: int | None) -> None:
        """One link occurrence on ``page`` (or a redirect) points at ``target``."""

    @abstractmethod
    def set_result(self, result: UrlResult, now: float) -> float | None:
        """Record a URL's outcome, decided at ``now`` (epoch seconds).
        Returns when its current run of failures began (None: not failing)."""

    @abstractmethod
    def referrers(self, url: str) -> tuple[int, list[tuple[str, int | None]]]:
        """How many link occurrences point at ``url``, and those kept."""

    @abstractmethod
    def entries(self) -> Iterator[Entry]:
        """Every discovered URL, in no particular order."""

    def close(self) -> None:  # noqa: B027 - optional hook, nothing to release in memory
        """Release resources (a database connection, say)."""


class MemoryState(AuditState):
    """The audit's state in this process's memory.

    Referrer lists are kept only while a URL's outcome is unknown or not ok:
    for an ok URL a count is enough, so a large site does not hold every
    edge (280,000 on a 10,000-page site) in memory.
    """

    def __init__(self) -> None:
        self._depth: dict[str, int] = {}
        self._frontier: dict[int, list[Pending]] = {}
        self._results: dict[str, UrlResult] = {}
        self._counts: dict[str, int] = {}
        self._refs: dict[str, list[tuple[str, int | None]]] = {}
        self._failing: dict[str, float] = {}

    @classmethod
    def from_crawler(cls, crawler: object) -> MemoryState:
        return cls()

    def discover(self, url: str, depth: int) -> bool:
        if url in self._depth:
            return False
        self._depth[url] = depth
        return True

    def enqueue(self, url: str, depth: int, referer: str | None) -> None:
        self._frontier.setdefault(depth, []).append(Pending(url, depth, referer))

    def next_level(self, limit: int | None = None) -> list[Pending]:
        if not self._frontier:
            return []
        depth = min(self._frontier)
        level = self._frontier[depth]
        if limit is None or len(level) <= limit:
            return self._frontier.pop(depth)
        batch = level[:limit]
        del level[:limit]
        return batch

    def waiting(self) -> int:
        return sum(map(len, self._frontier.values()))

    def add_referrer(self, target: str, page: str, line: int | None) -> None:
        self._counts[target] = self._counts.get(target, 0) + 1
        result = self._results.get(target)
        if result is None or result.outcome != "ok":
            self._refs.setdefault(target, []).append((page, line))

    def set_result(self, result: UrlResult, now: float) -> float | None:
        return self._remember(result, now if result.outcome == "broken" else None)

    def _remember(self, result: UrlResult, failing_since: float | None) -> float | None:
        if result.links:  # already turned into referrers: 270,000 on a 10,000-page site
            result = replace(result, links=[])
        self._results[result.url] = result
        self._depth.setdefault(result.url, result.depth)
        if result.outcome == "ok":
            self._refs.pop(result.url, None)
        if failing_since is not None:
            self._failing[result.url] = failing_since
        return failing_since

    def referrers(self, url: str) -> tuple[int, list[tuple[str, int | None]]]:
        return self._counts.get(url, 0), self._refs.get(url, [])

    def entries(self) -> Iterator[Entry]:
        for url, depth in self._depth.items():
            count, refs = self.referrers(url)
            yield Entry(url, depth, self._results.get(url), count, refs, self._failing.get(url))
