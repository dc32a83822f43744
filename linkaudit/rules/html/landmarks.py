"""The blocks a site template repeats on its pages: the document's
``head``, landmark elements (``nav``, ``header``, ``footer``, ``aside``, an
element with ``role`` navigation, banner, contentinfo or complementary) and
the containers sites name so (``<div id="footer">``, ``<ul class="menu">``),
with the lines they span.  The page's main content (``<main>``, an element
with ``role="main"``) is a block too, ``main``: what lies in it is the
page's own, never the template's, so no other block inside it is kept.

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
_NOT_BLOCKS = frozenset(
    {"a", "li", "span", "img", "link", "meta", "script", "style", "html", "body"}
)
MAIN = "main"  # the page's main content: a block that holds no template block

_WORDS = "|".join(sorted(LANDMARK_ROLES | BLOCK_WORDS, key=len, reverse=True))
_CANDIDATE = re.compile(
    r"<(nav|header|footer|aside|main)(?=[\s/>])"
    r"|<([a-z][a-z0-9-]*)(?=\s)[^>]*?[\s\"'](role|id|class)[\t\n\f\r ]*=[\t\n\f\r ]*"
    rf"[\"']?([^\"'>]*?\b(?:{_WORDS})\b[^\"'>]*)"
    # role="main" (not a word of the alternative above: class="main" is no block)
    r"|<([a-z][a-z0-9-]*)(?=\s)[^>]*?[\s\"']role[\t\n\f\r ]*=[\t\n\f\r ]*[\"']?(main)\b",
    re.IGNORECASE,
)
# the head's start tag, its end tag or the body's start tag (an omitted
# head: from the top of the page to the first of these)
_HEAD = re.compile(r"<(/?)(?ai:(head)|body)(?=[\s/>])")
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


_WORD_PATTERNS = _anchored(LANDMARK_ROLES | BLOCK_WORDS | {"aside", MAIN})
# the letters a case-blind regex takes for ASCII ones (İ ı ſ K): with one of
# them the lower-cased page would not find every candidate (İ even changes
# the length), so the page is read whole
_UNFOLDED = "\u0130\u0131\u017f\u212a"
_SPLIT = re.compile(r"[^a-z0-9]+")

Block = tuple[str, int, int]  # signature (``footer``, ``div#menu``), first line, last line


def landmarks(text: str) -> list[Block]:
    """The page's template blocks, in document order: its head first (when
    it has one), then the landmarks and the main content, none inside the
    main content.

    Linear in the page: the candidates' start tags in one pass, then one
    pass over the start and end tags of their names that closes each at its
    matching end tag (``_ends``), and line numbers counted once, in
    position order (``_lines``)."""
    if "\r" in text:  # lines as the tokenizer counts them
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    head = _head(text)
    found: list[tuple[str, str, int, int]] = []  # signature, name, tag start, match end
    for m in _candidates(text):
        named = candidate(m)
        if named is not None:
            found.append((named[1], named[0], m.start(), m.end()))
    ends = _ends(text, found) if found else []
    kept = _outside_main(found, ends)
    spans = list(head) + [p for i in kept for p in (found[i][2], ends[i])]
    lines = _lines(text, spans)
    blocks = [("head", lines[0], lines[1])] if head else []
    at = len(head)
    for k, i in enumerate(kept):
        blocks.append((found[i][0], lines[at + 2 * k], lines[at + 2 * k + 1]))
    return blocks


def candidate(m: re.Match[str]) -> tuple[str, str] | None:
    """A ``_CANDIDATE`` match's element name and block signature, or None
    when it names no block."""
    if m.group(5) is not None:
        return m.group(5).lower(), MAIN
    name = (m.group(1) or m.group(2)).lower()
    signature = _signature(name, m.group(3), m.group(4))
    return None if signature is None else (name, signature)


def _head(text: str) -> tuple[int, int] | tuple[()]:
    """Where the document's head starts and ends: its start tag (or the top
    of the page when it is omitted) and its end tag or the body's start tag;
    none on a page with neither."""
    first = _HEAD.search(text)
    if first is None:
        return ()
    if first.group(1) or first.group(2) is None:  # </head> or <body>: an omitted <head>
        return (0, first.start())
    end = _HEAD.search(text, first.end())
    while end is not None and end.group(2) is not None and not end.group(1):
        end = _HEAD.search(text, end.end())  # a second <head> is no end
    return (first.start(), end.start()) if end is not None else ()


def _outside_main(found: list[tuple[str, str, int, int]], ends: list[int]) -> list[int]:
    """The candidates not inside the main content (a main inside a main is
    dropped too): the page's own blocks are not the template's."""
    kept: list[int] = []
    until = -1  # where the main content read last ends
    for i, (signature, _name, start, _pos) in enumerate(found):
        if start < until:
            continue
        kept.append(i)
        if signature == MAIN:
            until = ends[i]
    return kept


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
    tags = re.compile("<(/?)(?ai:" + "|".join(f"({re.escape(n)})" for n in names) + r")(?=[\s/>])")
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
