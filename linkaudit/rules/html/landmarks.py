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

import re

LANDMARK_TAGS = ("nav", "header", "footer", "aside")
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
_SPLIT = re.compile(r"[^a-z0-9]+")
_ENDS: dict[str, re.Pattern[str]] = {}

Block = tuple[str, int, int]  # signature (``footer``, ``div#menu``), first line, last line


def landmarks(text: str) -> list[Block]:
    """The page's template blocks, in document order."""
    if "\r" in text:  # lines as the tokenizer counts them
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    blocks: list[Block] = []
    for m in _CANDIDATE.finditer(text):
        name = (m.group(1) or m.group(2)).lower()
        signature = _signature(name, m.group(3), m.group(4))
        if signature is None:
            continue
        end = _element_end(text, name, m.end())
        first = text.count("\n", 0, m.start()) + 1
        blocks.append((signature, first, first + text.count("\n", m.start(), end)))
    return blocks


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


def _element_end(text: str, name: str, pos: int) -> int:
    """Where the element that opened before ``pos`` ends: its matching end
    tag (elements of its name nest), else the end of the page."""
    pattern = _ENDS.get(name)
    if pattern is None:
        pattern = _ENDS[name] = re.compile(rf"<(/?){re.escape(name)}(?=[\s/>])", re.IGNORECASE)
    depth = 1
    for m in pattern.finditer(text, pos):
        depth += -1 if m.group(1) else 1
        if depth == 0:
            return m.start()
    return len(text)
