"""The blocks a site template repeats on its pages: landmark elements
(``nav``, ``header``, ``footer``, ``aside``, an element with ``role``
navigation, banner, contentinfo or complementary) and the containers sites
name so (``<div id="footer">``, ``<ul class="menu">``), with the lines they
span.

A pass of its own over the page, only for start and end tags of these
(the link tokenizer skips end tags at C speed and is left alone).  Like the
report's lines, a block is known by lines: on a page written on one line,
a link sharing a line with a block's start or end tag counts as in it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator

from linkaudit.rules.html.lowered import lowered as lower

LANDMARK_ROLES = frozenset({"navigation", "banner", "contentinfo", "complementary"})
# words in an id or class that name a template block
BLOCK_WORDS = frozenset(
    {"nav", "navbar", "navigation", "menu", "header", "footer", "sidebar", "breadcrumb"}
)
# elements never taken for a block by their id or class (an item, not a container)
_NOT_BLOCKS = frozenset({"a", "li", "span", "img", "link", "meta", "script", "style", "html"})

_WORDS = "|".join(sorted(LANDMARK_ROLES | BLOCK_WORDS, key=len, reverse=True))
_CANDIDATE = re.compile(
    r"<(nav|header|footer|aside)(?=[\s/>])"
    r"|<([a-z][a-z0-9-]*)(?=\s)[^>]*?[\s\"'](role|id|class)[\t\n\f\r ]*=[\t\n\f\r ]*"
    rf"[\"']?([^\"'>]*?\b(?:{_WORDS})\b[^\"'>]*)",
    re.IGNORECASE,
)
# A candidate holds one of these words, in any case, between word
# boundaries: only the stretches between the ">" before and the ">" after
# one are read by _CANDIDATE (its matches never span a ">"), which would
# otherwise try every attribute of every tag (on the Python docs, more than
# the link tokenizer costs).  The words are found in the lower-cased page by
# a few patterns, each starting with one rare letter (v, b, f, m, d): a
# pattern that starts with one literal character is searched for at the
# speed of a str.find of that character, and five such passes cost half of
# the ten str.find of the words themselves (a case-blind regex, or one with
# all the words, tries every letter of the page: slower still).  Word ends
# are checked on ASCII only ([a-z0-9_]): a character outside ASCII stays
# outside it when lowered (see lowered.py), so it never counts as a letter
# here, and this finds every word the regex's Unicode \b finds, perhaps a
# few more ("énav"), whose stretches then give nothing.
_ANCHORS = "vbfmd"
_ASCII_WORD = "[a-z0-9_]"


def _anchored(words: frozenset[str]) -> tuple[re.Pattern[str], ...]:
    """One pattern per anchor letter, matching (from that letter) each word
    whose first anchor letter it is, standing whole.  Each starts with the
    letters its words share from the anchor on (``de`` for header and
    aside): the search compares those at each anchor letter before it tries
    the words."""
    by_anchor: dict[str, list[str]] = {}
    for word in sorted(words, key=lambda w: (-len(w), w)):
        anchor = next(c for c in _ANCHORS if c in word)  # StopIteration: add an anchor
        by_anchor.setdefault(anchor, []).append(word)
    patterns = []
    for anchor, group in by_anchor.items():
        rests = [w[w.index(anchor) :] for w in group]
        common = os.path.commonprefix(rests)
        alternatives = "|".join(
            f"{re.escape(rest[len(common) :])}(?<=(?<!{_ASCII_WORD}){re.escape(word)})"
            for word, rest in zip(group, rests, strict=True)
        )
        patterns.append(re.compile(f"{re.escape(common)}(?:{alternatives})(?!{_ASCII_WORD})"))
    return tuple(patterns)


_WORD_PATTERNS = _anchored(LANDMARK_ROLES | BLOCK_WORDS | {"aside"})
# the letters a case-blind regex takes for ASCII ones (İ ı ſ K): with one of
# them the lower-cased page would not find every candidate (İ even changes
# the length), so the page is read whole
_UNFOLDED = "\u0130\u0131\u017f\u212a"
_SPLIT = re.compile(r"[^a-z0-9]+")

Block = tuple[str, int, int]  # signature (``footer``, ``div#menu``), first line, last line


def landmarks(text: str) -> list[Block]:
    """The page's template blocks, in document order.

    Linear in the page: the candidates' start tags in one pass, then one
    pass over the start and end tags of their names that closes each at its
    matching end tag (``_ends``), and line numbers counted once, in
    position order (``_lines``)."""
    if "\r" in text:  # lines as the tokenizer counts them
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    found: list[tuple[str, str, int, int]] = []  # signature, name, tag start, match end
    for m in _candidates(text):
        name = (m.group(1) or m.group(2)).lower()
        signature = _signature(name, m.group(3), m.group(4))
        if signature is not None:
            found.append((signature, name, m.start(), m.end()))
    if not found:
        return []
    ends = _ends(text, found)
    lines = _lines(text, [f[2] for f in found] + ends)
    count = len(found)
    return [(f[0], lines[i], lines[count + i]) for i, f in enumerate(found)]


def _candidates(text: str) -> Iterator[re.Match[str]]:
    """``_CANDIDATE.finditer(text)``, reading only the stretches between two
    ">" that hold one of the words a candidate needs."""
    if any(c in text for c in _UNFOLDED):  # four str searches: faster than a regex
        yield from _CANDIDATE.finditer(text)
        return
    end = 0  # where the stretch read last ends, after its ">"
    for at in _words_at(text):
        if at < end:
            continue
        start = max(text.rfind(">", end, at) + 1, end)
        stop = text.find(">", at) + 1 or len(text)
        yield from _CANDIDATE.finditer(text, start, stop)
        end = stop


def _words_at(text: str) -> list[int]:
    """A place inside each of the words of ``_WORD_PATTERNS`` standing whole
    (as ``\\b`` sees words: not after or before a letter, digit or "_"),
    in order; perhaps more places, never fewer (see ``_ANCHORS``)."""
    lowered = lower(text)  # as long as text: no U+0130 (see _UNFOLDED)
    found = [m.start() for pattern in _WORD_PATTERNS for m in pattern.finditer(lowered)]
    found.sort()
    return found


def _signature(name: str, attribute: str | None, value: str | None) -> str | None:
    if attribute is None:
        return name  # <nav>, <footer>...
    attribute = attribute.lower()
    words = [w for w in _SPLIT.split(value.lower()) if w] if value else []
    if attribute == "role":
        role = words[0] if words else ""
        return f"{name}[role={role}]" if role in LANDMARK_ROLES else None
    if name in _NOT_BLOCKS or not BLOCK_WORDS.intersection(words):
        return None
    word = next(w for w in words if w in BLOCK_WORDS)
    return f"{name}{'#' if attribute == 'id' else '.'}{word}"


def _ends(text: str, found: list[tuple[str, str, int, int]]) -> list[int]:
    """Where each candidate's element ends: its matching end tag (elements
    of its name nest), else the end of the page.

    A candidate of name N opened at ``pos`` (its match's end) has depth 1
    there, +1 for each later ``<N``, -1 for each later ``</N``: with
    ``level[N]`` the count of N's start tags minus its end tags so far, it
    ends at the first end tag after ``pos`` that brings ``level[N]`` to its
    value at ``pos`` minus one.  So one pass over the tags of the
    candidates' names, in order, each candidate waiting in ``waiting[N]``
    under that level, closes them all."""
    names = sorted({f[1] for f in found})
    # one group per name: the group that matched names the tag, as the
    # pattern of each name alone would (names ASCII case-insensitive, as
    # HTML compares them: ``<ſection>`` does not close a ``section``)
    tags = re.compile(
        "<(/?)(?ai:" + "|".join(f"({re.escape(n)})" for n in names) + r")(?=[\s/>])"
    )
    level = dict.fromkeys(names, 0)
    waiting: dict[str, dict[int, list[int]]] = {n: {} for n in names}
    ends = [len(text)] * len(found)
    following = 0  # the next candidate to open
    unclosed = 0  # candidates waiting for their end tag
    # Levels only count from where a candidate opens: while none waits,
    # the tags up to the next candidate's start tag are skipped (a page's
    # content between its header and its footer is not read)
    pos = found[0][2]
    while following < len(found):
        for m in tags.finditer(text, pos):
            at = m.start()
            if not unclosed and at < found[following][2]:
                pos = found[following][2]
                break
            while following < len(found) and found[following][3] <= at:
                _s, name, _start, _pos = found[following]
                waiting[name].setdefault(level[name] - 1, []).append(following)
                following += 1
                unclosed += 1
            name = names[m.lastindex - 2]  # type: ignore[operator]
            if m.group(1):
                level[name] -= 1
                closed = waiting[name].pop(level[name], ())
                for i in closed:
                    ends[i] = at
                unclosed -= len(closed)
                if not unclosed and following == len(found):
                    return ends
            else:
                level[name] += 1
        else:
            break
    return ends


def _lines(text: str, positions: list[int]) -> list[int]:
    """The line of each position, newlines counted once from the top."""
    lines = [0] * len(positions)
    line, counted = 1, 0
    for i in sorted(range(len(positions)), key=positions.__getitem__):
        at = positions[i]
        line += text.count("\n", counted, at)
        counted = at
        lines[i] = line
    return lines
