"""The audit's state in this process's memory (the default)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, cast

from linkaudit.items import Outcome, UrlResult
from linkaudit.rules.memento import ArchiveNote
from linkaudit.state.base import AuditState, Entry, GetOnlyNote, KeptRecord, Pending
from linkaudit.state.compact import decode_result, encode_result

if TYPE_CHECKING:
    from scrapy.crawler import Crawler


class MemoryState(AuditState):
    """The audit's state in this process's memory.

    Referrer lists are kept only while a URL's outcome is unknown or not ok:
    for an ok URL a count is enough, so a large site does not hold every
    edge (280,000 on a 10,000-page site) in memory.  A list is flat, page
    then line, one after the other: no ``(page, line)`` tuple a referrer
    (56 bytes each, and the URLs found but not yet checked hold most of
    them half way through a crawl; bench/README.md, "A million URLs").
    Results are kept in their compact form (state/compact.py): a tenth of
    the objects' size.

    Each URL is one key of one dict, its value the depth it was found at
    (an int) until its result is recorded, then ``"<depth> <compact
    result>"`` (``"<depth>:<result's depth> ..."`` where they differ), from
    which whether it is ok is read: no second dict of results holding a
    second copy of each URL's text, no set of ok URLs (about 170 bytes a
    URL less; bench/README.md, "A million URLs").
    """

    def __init__(self) -> None:
        self._known: dict[str, int | str] = {}  # URL -> depth, or its stored result
        self._recorded = 0  # URLs with a result
        self._frontier: dict[int, list[Pending]] = {}
        self._counts: dict[str, int] = {}
        self._refs: dict[str, list[str | int | None]] = {}  # URL -> [page, line, page, line...]
        self._dropped = 0  # new URLs past max_urls
        self._marks: dict[str, set[str]] = {}  # kind -> URLs
        self._hops: dict[str, int] = {}  # redirect targets -> chain length
        self._get_only: dict[str, KeptRecord] = {}  # host -> what showed it
        self._archived: dict[str, KeptRecord] = {}  # URL -> its archived copy's record

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> MemoryState:
        return cls()

    def discover(self, url: str, depth: int) -> bool | None:
        if url in self._known:
            return False
        if self.max_urls and len(self._known) >= self.max_urls:
            self._dropped += 1
            return None
        self._known[url] = depth
        return True

    def urls_dropped(self) -> int:
        return self._dropped

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
        if not _is_ok(self._known.get(target)):
            refs = self._refs.get(target)
            if refs is None:
                self._refs[target] = [page, line]
            else:
                refs += page, line

    def _settle(
        self, result: UrlResult, now: float
    ) -> tuple[float | None, int, list[tuple[str, int | None]]]:
        count, refs = self.referrers(result.url)  # before an ok result drops them
        return (
            self._remember(result, now if result.outcome == Outcome.BROKEN else None),
            count,
            refs,
        )

    def _remember(self, result: UrlResult, failing_since: float | None) -> float | None:
        url = result.url
        # links are not kept: already turned into referrers (270,000 on a
        # 10,000-page site)
        known = self._known.get(url)
        if not isinstance(known, str):
            self._recorded += 1
        if known is None:
            depth = str(result.depth)
        else:
            found = known if isinstance(known, int) else _decode_depth(known)
            depth = str(found) if found == result.depth else f"{found}:{result.depth}"
        self._known[url] = f"{depth} {encode_result(result, failing_since)}"
        if result.outcome == Outcome.OK:
            self._refs.pop(url, None)
        return failing_since

    def _note_depth(self, url: str, depth: int) -> None:
        """``url`` found at ``depth`` (a subclass's working set rebuilt)."""
        self._known[url] = depth

    def _found_at(self, url: str) -> int:
        """The depth ``url`` was found at (it is known)."""
        known = self._known[url]
        return known if isinstance(known, int) else _decode_depth(known)

    def results(self) -> Iterator[UrlResult]:
        """Every result recorded."""
        for url, stored in self._known.items():
            if isinstance(stored, str):
                yield _decode(url, stored)[1][0]

    def referrers(self, url: str) -> tuple[int, list[tuple[str, int | None]]]:
        return self._counts.get(url, 0), _pairs(self._refs.get(url))

    def mark(self, kind: str, urls: list[str]) -> None:
        self._marks.setdefault(kind, set()).update(urls)

    def marked(self, kind: str, url: str) -> bool:
        return url in self._marks.get(kind, ())

    def hops(self, url: str) -> int:
        return self._hops.get(url, 0)

    def set_hops(self, url: str, hops: int) -> None:
        self._hops[url] = hops

    def get_only(self, host: str) -> bool:
        return host in self._get_only

    def note_get_only(self, host: str, record: GetOnlyNote) -> None:
        self._get_only[host] = record

    def get_only_hosts(self) -> dict[str, KeptRecord]:
        return dict(self._get_only)

    def archived(self, url: str) -> KeptRecord | None:
        return self._archived.get(url)

    def note_archived(self, url: str, record: ArchiveNote) -> None:
        self._archived[url] = record

    def archived_copies(self) -> dict[str, KeptRecord]:
        return dict(self._archived)

    rereads_entries = True  # (every entry is in this dict)

    def entries(self) -> Iterator[Entry]:
        for url, stored in self._known.items():
            yield self._entry(url, stored)

    def entry(self, url: str) -> Entry:
        return self._entry(url, self._known[url])

    def _entry(self, url: str, stored: int | str) -> Entry:
        count, refs = self.referrers(url)
        if isinstance(stored, int):
            return Entry(url, stored, None, count, refs, None)
        depth, (result, failing) = _decode(url, stored)
        return Entry(url, depth, result, count, refs, failing)


def _pairs(flat: list[str | int | None] | None) -> list[tuple[str, int | None]]:
    """A flat referrer list's ``(page, line)`` pairs."""
    if not flat:
        return []
    pages = cast(list[str], flat[::2])
    lines = cast(list[int | None], flat[1::2])
    return list(zip(pages, lines, strict=True))


def _decode(url: str, stored: str) -> tuple[int, tuple[UrlResult, float | None]]:
    """The depth a URL was found at, its result and when its failures began."""
    depths, _, text = stored.partition(" ")
    found, _, own = depths.partition(":")
    return int(found), decode_result(url, int(own or found), text)


def _decode_depth(stored: str) -> int:
    return int(stored[: stored.index(" ")].partition(":")[0])


def _is_ok(stored: int | str | None) -> bool:
    """Whether a stored value is an ok result: its compact form begins
    ``[<near>,"ok"`` (state/compact.py)."""
    if not isinstance(stored, str):
        return False
    at = stored.find(" [") + 4
    return stored.startswith('"ok"', at)
