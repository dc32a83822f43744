"""The report's entries kept between the one pass and the writing.

The one pass (``sections.py``) must keep every entry: the report lists
them sorted by URL, and the builders look URLs up afterwards.  Kept as
``Entry`` values, each with its decoded ``UrlResult`` (its strings, its
page dict, its ``checked_at`` text), that is about 1,100 bytes a URL, all
at once at the end of the audit: at 50,000 URLs, the largest single part
of the process's peak (bench/README.md, "A million URLs").  So an entry
is kept as little as its state allows, and read again each time it is
read (a few microseconds):

- a state that holds every entry in this process's memory and reads one
  again by its URL (``AuditState.rereads_entries``: the memory state, the
  audit database's) gives only the URL, the state's own string: 8 bytes
  a URL, the entry read from the state again (``AuditState.entry``);
- any other (Redis: a round trip a read) the entry packed, in the compact
  form the states keep results in (``state/compact.py``): the URL, the
  depth, the result's compact text, the referrer count and, flat, the
  referrers, one tuple (about 200 bytes a URL).

An entry a builder replaces (a redirect in a loop, a far link unchecked
offline) is kept as the ``Entry`` it is given.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterator

from linkaudit.state.base import AuditState, Entry
from linkaudit.state.compact import decode_result, encode_result

# (url, depth, compact result or None, referrer count, referrers flat, failing since)
_Packed = tuple
_Kept = str | _Packed | Entry


def pack(entry: Entry) -> _Packed:
    result = entry.result
    text = None if result is None else encode_result(result, None)
    flat = tuple(part for place in entry.referrers for part in place) or None
    return (entry.url, entry.depth, text, entry.referrer_count, flat, entry.failing_since)


def unpack(kept: _Packed | Entry) -> Entry:
    if isinstance(kept, Entry):
        return kept
    url, depth, text, count, flat, failing = kept
    result = None if text is None else decode_result(url, depth, text)[0]
    refs = [] if flat is None else list(zip(flat[::2], flat[1::2], strict=True))
    return Entry(url, depth, result, count, refs, failing)


class KeptEntries:
    """A list of entries held as little as ``state`` allows: ``append``,
    ``sort`` by URL, the position of a URL (:meth:`position`), and the
    entries read (again) by index or in order."""

    def __init__(self, state: AuditState | None = None) -> None:
        self._kept: list[_Kept] = []
        self._keep: Callable[[Entry], _Kept] = pack
        self._read: Callable[[_Kept], Entry] = unpack  # type: ignore[assignment]
        if state is not None and state.rereads_entries:
            entry = state.entry
            self._keep = _url_of
            self._read = lambda kept: entry(kept) if isinstance(kept, str) else unpack(kept)

    def append(self, entry: Entry) -> None:
        self._kept.append(self._keep(entry))

    def sort(self) -> None:
        """Sorted by URL (as ``Entry`` values sort by their first field)."""
        self._kept.sort(key=_url)

    def position(self, url: str) -> int:
        """Where ``url`` is, or would be inserted, once sorted."""
        return bisect_left(self._kept, url, key=_url)

    def __len__(self) -> int:
        return len(self._kept)

    def __getitem__(self, at: int) -> Entry:
        return self._read(self._kept[at])

    def __setitem__(self, at: int, entry: Entry) -> None:
        self._kept[at] = entry

    def __iter__(self) -> Iterator[Entry]:
        return map(self._read, self._kept)


def _url_of(entry: Entry) -> str:
    return entry.url


def _url(kept: _Kept) -> str:
    return kept if isinstance(kept, str) else kept[0]
