"""Where a page's links sit: in a template block (a landmark such as the
site's footer, see ``rules/html/landmarks.py``) or in a run of links, so
that the report can tell a link the site template repeats on every page
from a link written in one page's content (``output/report/groups.py``).

A page's result keeps its blocks, a few numbers each (``UrlResult.blocks``):

- a landmark: ``[signature, first line, last line, [hash of each URL it links]]``;
  the head too, ``head``, whose URLs are only those of the tags a head
  holds (``HEAD_TAGS``: on a page written on a line or two, the body's
  ``<a>`` on the head's last line are not the head's);
- the main content: ``["main", first line, last line, None]``: a link on a
  line inside it (not on its first or last line, which it may share with
  the template on a page written on few lines) is the page's own, in no
  block, and no run is cut there;
- a run: ``["links:<digest>", first line, last line, None]``, a run being
  three or more links outside landmarks on consecutive lines, its digest
  that of the URLs in order (the same run on many pages is a menu the
  template repeats without naming it).

Hashes rather than URLs: a 30-link footer costs a few hundred bytes per
page, not kilobytes, in every state (memory, database, Redis).
"""

from __future__ import annotations

import zlib
from bisect import bisect_left, bisect_right
from collections.abc import Container, Sequence
from itertools import chain, compress
from operator import sub
from typing import Any

from linkaudit.rules.html.landmarks import MAIN, Block

RUN = "links:"
RUNS = "links"  # the kind of a group of repeated runs of links (the report's groups)
RUN_MIN = 3  # links in a run
HEAD = "head"
HEAD_TAGS = frozenset({"link", "script", "meta", "style"})  # the tags of a head's links


def url_hash(url: str) -> int:
    return zlib.crc32(url.encode("utf-8", "surrogatepass"))


def page_blocks(
    links: Sequence[tuple[str, int | None]],
    landmarks: Sequence[Block],
    head: Container[str] | None = None,
) -> list[list[Any]] | None:
    """A page's blocks from its links (resolved URL, line) and landmarks;
    None when it has none.  ``head``: the URLs of the page's links in tags
    of ``HEAD_TAGS`` (None: any link on the head's lines is the head's).

    Linear in the links and landmarks (plus what a block lists).  A page's
    links come in document order: their lines already sorted, each
    landmark's links are one slice of them, found by bisection, and the runs
    lie between those slices, cut where a line is skipped (found in C, by
    ``compress``: most of a page's links are in runs).  Links in any other
    order (or without a line) go the general way, ``_any_order``."""
    lines = [line for _url, line in links if line is not None]
    if len(lines) < len(links) or lines != sorted(lines):
        return _any_order(links, landmarks, head)
    blocks: list[list[Any]] = []
    covered: list[tuple[int, int]] = []  # the slices of links in some landmark
    hashes_of: dict[str, int] = {}
    for signature, first, last in landmarks:
        if signature == MAIN:
            start, stop = bisect_right(lines, first), bisect_left(lines, last)
            if start < stop:
                covered.append((start, stop))
            blocks.append([MAIN, first, last, None])
            continue
        start, stop = bisect_left(lines, first), bisect_right(lines, last)
        if start < stop:
            covered.append((start, stop))
            hashes = set()
            urls = {links[i][0] for i in range(start, stop)}
            if signature == HEAD and head is not None:
                urls = {url for url in urls if url in head}
            for url in urls:
                hashed = hashes_of.get(url)
                if hashed is None:
                    hashed = hashes_of[url] = url_hash(url)
                hashes.add(hashed)
            blocks.append([signature, first, last, sorted(hashes)])
    covered.sort()
    at = 0  # the first link not yet in a run or a landmark
    for start, stop in [*covered, (len(links), len(links))]:
        if at < start:
            _slice_runs(blocks, links, lines, at, start)
        at = max(at, stop)
    return blocks if any(b[0] != MAIN for b in blocks) else None


def _slice_runs(
    blocks: list[list[Any]],
    links: Sequence[tuple[str, int | None]],
    lines: list[int],
    start: int,
    stop: int,
) -> None:
    """Add the runs of ``links[start:stop]`` (no landmark holds them, their
    lines sorted): a run ends where the next link is more than a line on."""
    steps = map(sub, lines[start + 1 : stop], lines[start:stop])
    cuts = compress(range(start + 1, stop), map((1).__lt__, steps))
    for cut in chain(cuts, (stop,)):
        if cut - start >= RUN_MIN:
            urls = "\n".join(links[i][0] for i in range(start, cut))
            digest = zlib.crc32(urls.encode("utf-8", "surrogatepass"))
            blocks.append([f"{RUN}{digest:08x}", lines[start], lines[cut - 1], None])
        start = cut


def _any_order(
    links: Sequence[tuple[str, int | None]],
    landmarks: Sequence[Block],
    head: Container[str] | None,
) -> list[list[Any]] | None:
    """``page_blocks`` of links in any order, some perhaps without a line:
    the lines sorted once, each landmark's links are one slice of them, and
    the links in some landmark are marked by a sweep of +1/-1 at the
    slices' ends."""
    blocks: list[list[Any]] = []
    in_landmark: set[int] = set()
    if landmarks:
        in_landmark = _landmark_blocks(blocks, links, landmarks, head)
    run: list[tuple[str, int]] = []
    for i, (url, line) in enumerate(links):
        if line is None or i in in_landmark:
            if run:
                _add_run(blocks, run)
            continue
        if run and line - run[-1][1] > 1:
            _add_run(blocks, run)
        run.append((url, line))
    _add_run(blocks, run)
    return blocks if any(b[0] != MAIN for b in blocks) else None


def _landmark_blocks(
    blocks: list[list[Any]],
    links: Sequence[tuple[str, int | None]],
    landmarks: Sequence[Block],
    head: Container[str] | None,
) -> set[int]:
    """Add the blocks of the landmarks that hold links; the indexes of the
    links in some landmark."""
    placed = sorted((line, i) for i, (_url, line) in enumerate(links) if line is not None)
    lines = [line for line, _i in placed]
    hashes_of: dict[str, int] = {}
    cover = [0] * (len(placed) + 1)  # +1 where a landmark's slice starts, -1 after it ends
    for signature, first, last in landmarks:
        if signature == MAIN:  # its inner lines: in no run, in no block
            start, stop = bisect_right(lines, first), bisect_left(lines, last)
            if start < stop:
                cover[start] += 1
                cover[stop] -= 1
            blocks.append([MAIN, first, last, None])
            continue
        start, stop = bisect_left(lines, first), bisect_right(lines, last)
        if start < stop:
            cover[start] += 1
            cover[stop] -= 1
            hashes = set()
            for _line, i in placed[start:stop]:
                url = links[i][0]
                if signature == HEAD and head is not None and url not in head:
                    continue
                hashed = hashes_of.get(url)
                if hashed is None:
                    hashed = hashes_of[url] = url_hash(url)
                hashes.add(hashed)
            blocks.append([signature, first, last, sorted(hashes)])
    in_landmark: set[int] = set()
    depth = 0
    for k, (_line, i) in enumerate(placed):
        depth += cover[k]
        if depth:
            in_landmark.add(i)
    return in_landmark


def _add_run(blocks: list[list[Any]], run: list[tuple[str, int]]) -> None:
    if len(run) >= RUN_MIN:
        digest = zlib.crc32("\n".join(url for url, _ in run).encode("utf-8", "surrogatepass"))
        blocks.append([f"{RUN}{digest:08x}", run[0][1], run[-1][1], None])
    run.clear()


def _holds(hashes: Sequence[int], hashed: int) -> bool:
    """``hashed in hashes``, by bisection: a block's hashes are sorted
    (``page_blocks``), and a landmark may link hundreds of URLs."""
    at = bisect_left(hashes, hashed)
    return at < len(hashes) and hashes[at] == hashed


def block_of(blocks: Sequence[Sequence[Any]], url: str, line: int | None) -> Sequence[Any] | None:
    """The block a link to ``url`` at ``line`` sits in: none inside the
    main content, else the narrowest landmark that links to ``url`` and
    spans the line, else the run that spans it.  For many links of one
    page, ``BlockIndex(blocks).of``."""
    return BlockIndex(blocks).of(url, line)


class BlockIndex:
    """A page's blocks, for the block each of its links sits in (``of``).

    A page may hold hundreds of runs and only a few landmarks: the landmarks
    are read in turn, the run by bisection when the runs' first and last
    lines both rise in list order (as ``page_blocks`` gives them for links
    in document order), in turn otherwise.  Built once per page, it answers
    every broken link's referrers on that page (an index page of the Python
    docs holds about 500 runs, once read whole for each referrer)."""

    def __init__(self, blocks: Sequence[Sequence[Any]]) -> None:
        self.landmarks = [b for b in blocks if b[3] is not None]
        self.mains = [(b[1], b[2]) for b in blocks if b[0] == MAIN]
        self.runs = [b for b in blocks if b[3] is None and b[0] != MAIN]
        self.firsts = [b[1] for b in self.runs]
        self.lasts = [b[2] for b in self.runs]
        self.rising = self.firsts == sorted(self.firsts) and self.lasts == sorted(self.lasts)

    def of(self, url: str, line: int | None) -> Sequence[Any] | None:
        if line is None or any(first < line < last for first, last in self.mains):
            return None  # a link of the page's own content
        found: Sequence[Any] | None = None
        hashed: int | None = None
        for block in self.landmarks:  # the narrowest, the first of equals
            _signature, first, last, hashes = block
            if first <= line <= last:
                if hashed is None:
                    hashed = url_hash(url)
                narrower = found is None or last - first < found[2] - found[1]
                if narrower and _holds(hashes, hashed):
                    found = block
        return found if found is not None else self._run(line)

    def _run(self, line: int) -> Sequence[Any] | None:
        """The first run in list order that spans ``line``: with first and
        last lines rising, the first whose last line is not before it."""
        if self.rising:
            at = bisect_left(self.lasts, line)
            if at < len(self.runs) and self.firsts[at] <= line:
                return self.runs[at]
            return None
        return next((b for b in self.runs if b[1] <= line <= b[2]), None)
