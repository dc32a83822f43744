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

from linkaudit.rules.html import endtags
from linkaudit.rules.html.lowered import ascii_lowered
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


def _anchored(words: frozenset[str]) -> dict[str, re.Pattern[str]]:
    """One pattern per anchor letter, matching (from that letter) each word
    whose first anchor letter it is, standing whole.  Each starts with the
    letters its words share from the anchor on (``de`` for header and
    aside): the search compares those at each anchor letter before it tries
    the words."""
    by_anchor: dict[str, list[str]] = {}
    for word in sorted(words, key=lambda w: (-len(w), w)):
        anchor = next(c for c in _ANCHORS if c in word)  # StopIteration: add an anchor
        by_anchor.setdefault(anchor, []).append(word)
    patterns = {}
    for anchor, group in by_anchor.items():
        rests = [w[w.index(anchor) :] for w in group]
        common = os.path.commonprefix(rests)
        alternatives = "|".join(
            f"{re.escape(rest[len(common) :])}(?<=(?<!{_ASCII_WORD}){re.escape(word)})"
            for word, rest in zip(group, rests, strict=True)
        )
        patterns[anchor] = re.compile(f"{re.escape(common)}(?:{alternatives})(?!{_ASCII_WORD})")
    return patterns


_WORD_PATTERNS = _anchored(LANDMARK_ROLES | BLOCK_WORDS | {"aside", MAIN})
# the pattern of the word that may open a main content (and of others):
# it is read ahead of the rest, to the next "main" in a tag
_M_WORDS = _WORD_PATTERNS.pop(MAIN[0])
# past a region's end, what a word's match reads: its longest rest and the
# character after it
_REACH = max(map(len, LANDMARK_ROLES | BLOCK_WORDS)) + 1
# the letters a case-blind regex takes for ASCII ones (İ ı ſ K): with one of
# them the lower-cased page would not find every candidate (İ even changes
# the length), so the words are looked for in the page with these made ASCII
# (and the end tags in the page with only ASCII letters lower-cased)
_UNFOLDED = "\u0130\u0131\u017f\u212a"
_SPLIT = re.compile(r"[^a-z0-9]+")

Block = tuple[str, int, int]  # signature (``footer``, ``div#menu``), first line, last line


def landmarks(text: str) -> list[Block]:
    """The page's template blocks, in document order: its head first (when
    it has one), then the landmarks and the main content, none inside the
    main content.

    Linear in the page: the candidates' start tags in one pass that skips
    the inside of each main content (``_read``), the end tags of their
    names (``endtags.py``), and line numbers counted once, in position
    order (``_lines``)."""
    if "\r" in text:  # lines as the tokenizer counts them
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    head = _head(text)
    if any(c in text for c in _UNFOLDED):  # four str searches: faster than a regex
        names = ascii_lowered(text)
        low = names
        for letter, ascii_letter in zip(_UNFOLDED, "iisk", strict=True):
            low = low.replace(letter, ascii_letter)
        kept = _read(text, low, names)
    else:
        low = lower(text)  # as long as text: no U+0130
        kept = _read(text, low, low)
    spans = list(head) + [p for _signature, start, end in kept for p in (start, end)]
    lines = _lines(text, spans)
    blocks = [("head", lines[0], lines[1])] if head else []
    at = len(head)
    for k, (signature, _start, _end) in enumerate(kept):
        blocks.append((signature, lines[at + 2 * k], lines[at + 2 * k + 1]))
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


def _read(text: str, low: str, names: str) -> list[tuple[str, int, int]]:
    """The candidates outside every main content, in page order:
    (signature, start, end).  ``low``: the page with every letter a
    case-blind ``_CANDIDATE`` takes for an ASCII one made that letter, in
    lower case (where the words are looked for); ``names``: with only the
    ASCII letters lower-cased (where the end tags are: ``endtags.py``).

    Only the stretches between two ">" that hold one of the words a
    candidate needs are read by ``_CANDIDATE`` (its matches never span a
    ">"), and the words are looked for (``_WORD_PATTERNS``) a region at a
    time: up to the next "main", then, once a main content is read, from
    its end on.  Its inside is the page's own, no candidate there is kept,
    and on a Sphinx page it is nine tenths of the page: only its element's
    tags are read there (``endtags.py``), to find its end.  A word is
    skipped when its stretch would end inside a main content read (all it
    could give is dropped), or when it is not in a tag (the last "<" or ">"
    before it is a ">"): a candidate's match holds a word of its own, with
    no ">" before it in the match, whose stretch is the same.  The
    stretches read are those of the whole
    page's words, so the candidates are those of ``_CANDIDATE`` over the
    whole page that no main holds (``tests/helpers/landmarks.py``)."""
    size = len(text)
    kept: list[tuple[str, str, int, int]] = []
    main_ends: dict[int, int] = {}  # index in kept: where that main content ends
    until = -1  # where the main content read last ends
    skip = 0  # a word before this would give nothing but what is in a main content
    end = 0  # where the stretch read last ends, after its ">"
    pos = 0  # where the search for words goes on
    while pos < size:
        hit, before = _next_main(text, low, pos)
        region = size if hit is None else (text.find(">", hit.start()) + 1 or size)
        for at in _words_in(low, pos, region, hit, before):
            if at < end or at < skip:
                continue
            gt = text.rfind(">", end, at)
            if gt >= text.rfind("<", end, at):
                continue  # in text: a candidate of its stretch has a word of its own
            start = max(gt + 1, end)
            stop = text.find(">", at) + 1 or size
            for m in _CANDIDATE.finditer(text, start, stop):
                named = candidate(m) if m.start() >= until else None
                if named is None:
                    continue
                kept.append((named[1], named[0], m.start(), m.end()))
                if named[1] == MAIN:
                    until = endtags.close_one(names, named[0], m.end())
                    main_ends[len(kept) - 1] = until
                    skip = text.rfind(">", 0, until) + 1
            end = stop
        pos = max(region, skip)
    others = [i for i in range(len(kept)) if i not in main_ends]
    ends = endtags.ends(names, [kept[i] for i in others]) if others else []
    main_ends.update(zip(others, ends, strict=True))
    return [(signature, start, main_ends[i]) for i, (signature, _n, start, _p) in enumerate(kept)]


def _next_main(text: str, low: str, pos: int) -> tuple[re.Match[str] | None, list[int]]:
    """The first "main" from ``pos`` on (where the page is not in a tag)
    that is in a tag: one in text opens no main content, and it ends no
    region (on GIO's docs, "main loop" is on many pages); and the places of
    the words of ``_M_WORDS`` before it."""
    lo = pos
    before: list[int] = []
    for m in _M_WORDS.finditer(low, pos):
        at = m.start()
        if low.startswith(MAIN, at):
            if text.rfind("<", lo, at) > text.rfind(">", lo, at):
                return m, before
            lo = at  # in text: the last "<" or ">" before it is a ">", or none
        before.append(at)
    return None, before


def _words_in(
    low: str, pos: int, region: int, hit: re.Match[str] | None, before: list[int]
) -> list[int]:
    """A place inside each word of ``_WORD_PATTERNS`` standing whole (as
    ``\\b`` sees words: not after or before a letter, digit or "_") that
    starts in ``low[pos:region]``, in order (``hit``: the "main" that ends
    the region, ``before``: the words of ``_M_WORDS`` before it); perhaps
    more places, never fewer (see ``_ANCHORS``).  Each pattern reads a
    little past the region (``_REACH``): a match that starts in it ends
    there, and one that starts further is not kept."""
    reach = min(region + _REACH, len(low))
    found = before
    if hit is not None:  # and the other words of its stretch
        rest = _M_WORDS.finditer(low, hit.start(), reach)
        found.extend(at for m in rest if (at := m.start()) < region)
    for pattern in _WORD_PATTERNS.values():
        found.extend(at for m in pattern.finditer(low, pos, reach) if (at := m.start()) < region)
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
