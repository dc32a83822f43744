"""The report's entries kept between the one pass and the writing, in the
compact form the states keep results in (``state/compact.py``).

The one pass (``sections.py``) must keep every entry: the report lists
them sorted by URL, and the builders look URLs up afterwards.  Kept as
``Entry`` values, each with its decoded ``UrlResult`` (its strings, its
page dict, its ``checked_at`` text), that is about 1,100 bytes a URL, all
at once at the end of the audit: at 50,000 URLs, the largest single part
of the process's peak (bench/README.md, "A million URLs").  Kept encoded,
about 200: the URL (the state's own string), the depth, the result's
compact text, the referrer count and list, as one tuple; an entry is
decoded again each time it is read, which costs a few microseconds.

An entry a builder replaces (a redirect in a loop, a far link unchecked
offline) is kept as the ``Entry`` it is given.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterator

from linkaudit.state.base import Entry
from linkaudit.state.compact import decode_result, encode_result

# (url, depth, compact result or None, referrer count, referrers, failing since)
_Packed = tuple
_Kept = _Packed | Entry


def pack(entry: Entry) -> _Packed:
    result = entry.result
    text = None if result is None else encode_result(result, None)
    return (
        entry.url,
        entry.depth,
        text,
        entry.referrer_count,
        entry.referrers or None,
        entry.failing_since,
    )


def unpack(kept: _Kept) -> Entry:
    if isinstance(kept, Entry):
        return kept
    url, depth, text, count, refs, failing = kept
    result = None if text is None else decode_result(url, depth, text)[0]
    return Entry(url, depth, result, count, [] if refs is None else refs, failing)


class KeptEntries:
    """A list of entries held packed: ``append``, ``sort`` by URL, the
    position of a URL (:meth:`position`), and the entries read (decoded)
    by index or in order."""

    def __init__(self) -> None:
        self._kept: list[_Kept] = []

    def append(self, entry: Entry) -> None:
        self._kept.append(pack(entry))

    def sort(self) -> None:
        """Sorted by URL (as ``Entry`` values sort by their first field)."""
        self._kept.sort(key=_url)

    def position(self, url: str) -> int:
        """Where ``url`` is, or would be inserted, once sorted."""
        return bisect_left(self._kept, url, key=_url)

    def __len__(self) -> int:
        return len(self._kept)

    def __getitem__(self, at: int) -> Entry:
        return unpack(self._kept[at])

    def __setitem__(self, at: int, entry: Entry) -> None:
        self._kept[at] = entry

    def __iter__(self) -> Iterator[Entry]:
        return map(unpack, self._kept)


def _url(kept: _Kept) -> str:
    return kept[0]
