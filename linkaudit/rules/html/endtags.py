"""Where a template block's element ends: its matching end tag, found in
the page lower-cased (``lowered.py``), one element name at a time.

Looking for ``<div`` and ``</div`` in the original page takes a pattern
that starts with ``<`` and tries the name, in any case, at every tag of the
page (4,000 a page on the Python docs, where the main content is a ``div``
that spans the page).  In the lower-cased page the name itself is the
pattern's literal start, found at the speed of a ``str.find``, and only its
places are looked at: a ``<`` (a start tag) or ``</`` (an end tag) before
it.  The lower-cased page is as long as the page, with only ASCII letters
changed to ASCII (the same as comparing names ASCII case-insensitively, as
HTML does: ``<ſection>`` does not close a ``section``), and every other
character still whitespace, ``/`` or ``>`` exactly when it was.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from functools import lru_cache

Span = tuple[int, int]  # a candidate's start tag: where it starts, where its match ends


@lru_cache(maxsize=64)
def _name(name: str) -> re.Pattern[str]:
    return re.compile(re.escape(name) + r"(?=[\s/>])")


def _tags(low: str, name: str, pos: int) -> Iterator[tuple[int, bool]]:
    """Each start or end tag of ``name`` (ASCII lower case) whose ``<`` is
    at ``pos`` or after: (where its ``<`` is, whether it is an end tag)."""
    for m in _name(name).finditer(low, pos + 1):
        at = m.start()
        before = low[at - 1]
        if before == "<":
            yield at - 1, False
        elif before == "/" and at - 2 >= pos and low[at - 2] == "<":
            yield at - 2, True


def close(low: str, name: str, spans: Sequence[Span]) -> list[int]:
    """Where each element of ``name`` opened at ``spans`` (in page order)
    ends: its matching end tag (elements of its name nest), else the end of
    the page.

    A candidate whose match ends at ``pos`` has depth 1 there, +1 for each
    later ``<N``, -1 for each later ``</N``: with ``level`` the count of
    start tags minus end tags read so far, it ends at the first end tag
    after ``pos`` that brings ``level`` to its value at ``pos`` minus one.
    So one pass over the tags, each candidate waiting in ``waiting`` under
    that level, closes them all.  Levels only count from where a candidate
    opens: while none waits, the tags up to the next candidate's start tag
    are skipped (a page's content between its header and its footer is not
    read)."""
    ends = [len(low)] * len(spans)
    level = 0
    waiting: dict[int, list[int]] = {}
    following = 0  # the next candidate to open
    unclosed = 0  # candidates waiting for their end tag
    pos = spans[0][0]
    while following < len(spans):
        for at, closing in _tags(low, name, pos):
            while following < len(spans) and spans[following][1] <= at:
                waiting.setdefault(level - 1, []).append(following)
                following += 1
                unclosed += 1
            if closing:
                level -= 1
                closed = waiting.pop(level, ())
                for i in closed:
                    ends[i] = at
                unclosed -= len(closed)
                if not unclosed:  # on from the next candidate's start tag (never back)
                    if following < len(spans):
                        pos = max(spans[following][0], at + 1)
                    break
            else:
                level += 1
        else:
            break  # no tag left: the rest end with the page
    return ends


def close_one(low: str, name: str, pos: int) -> int:
    """:func:`close` of one element (a main content, needed before the rest
    of the page is read), its match ending at ``pos``: the tags read in
    turn, its depth counted, until its end tag."""
    depth = 0  # elements of its name opened inside it and not yet closed
    for m in _name(name).finditer(low, pos + 1):
        at = m.start()
        before = low[at - 1]
        if before == "<":
            depth += 1
        elif before == "/" and at - 2 >= pos and low[at - 2] == "<":
            if not depth:
                return at - 2
            depth -= 1
    return len(low)


def ends(low: str, found: Sequence[tuple[str, str, int, int]]) -> list[int]:
    """:func:`close` of each candidate (signature, name, start, match end):
    the elements of one name nest, those of two names are apart."""
    by_name: dict[str, list[int]] = {}
    for i, (_signature, name, _start, _pos) in enumerate(found):
        by_name.setdefault(name, []).append(i)
    out = [len(low)] * len(found)
    for name, members in by_name.items():
        closed = close(low, name, [(found[i][2], found[i][3]) for i in members])
        for i, at in zip(members, closed, strict=True):
            out[i] = at
    return out
