"""A link as a source file holds it, and the cursor that finds each link's
line inside its block.

The parsers (markdown-it-py, docutils) give a block's first line, never a
link's: the link's line is where what the source holds (``](target``,
``<target>``, `` `text <target>`_``) is found inside the block's lines,
searched from where the last link of the block was found, so a target
written twice in a paragraph gets its own line each time.  What cannot be
found there is not guessed: such a link has no line, and is never mapped."""

from __future__ import annotations

import os
import re
from typing import NamedTuple

WS = re.compile(r"\s+")
# in a literal path's block words, what the page shows of a role (a
# document's title, a function's name) that cannot be known without the tool
WILD = "\x00"
# Template syntax in a source: Hugo shortcodes, Liquid output and tags
TEMPLATE = re.compile(r"\{\{[<%].*?[%>]\}\}|\{\{.*?\}\}|\{%.*?%\}", re.S)


class SourceLink(NamedTuple):
    """A link of a source file.

    ``line``: where the link is (for a multi-line link, the line where its
    target is written, or its text starts when the target is elsewhere);
    ``defined``: the line of the definition that holds its URL (a
    reference-style link's ``[label]: url``, a reST named or anonymous
    target, a substitution), in ``defined_file``; ``target``: as written
    (a reference's: the definition's); ``kind``: ``inline``, ``reference``,
    ``autolink``, ``html``, ``image``, ``rst``, ``role:NAME``, ``template``."""

    file: str
    line: int
    target: str
    text: str
    block: str
    kind: str
    defined: int | None = None
    defined_file: str | None = None


def shown_path(path: str) -> str:
    """A path as the report names files: relative to the current
    directory when below it."""
    path = os.path.abspath(path)
    here = os.getcwd()
    return os.path.relpath(path, here) if path.startswith(here + os.sep) else path


def norm(text: str | None) -> str:
    return WS.sub(" ", text or "").strip()


def text_key(text: str | None) -> str:
    """Texts compared loosely: case, whitespace, punctuation and smart
    quotes do not count (``Pytest's`` is the page's ``Pytest’s``)."""
    return re.sub(r"\W+", "", (text or "").casefold())


def words_agree(source: str, built: str) -> bool:
    """A block's words as a literal path reads them agree with the built
    block's (``text_key``): each ``WILD`` stands for any run, the fixed
    words around them in order, from the first word to the last."""
    if WILD not in source:
        return text_key(source) == text_key(built)
    pattern = ".*?".join(re.escape(text_key(part)) for part in source.split(WILD))
    return re.fullmatch(pattern, text_key(built), re.S) is not None


class Cursor:
    """Finds what a block's links hold in the block's lines, in order."""

    def __init__(self, lines: list[str], start: int, end: int) -> None:
        self.start = start  # 0-based index of the block's first line
        self.text = "\n".join(lines[start : min(end, len(lines))])
        self.pos = 0

    def find(self, *needles: str) -> int | None:
        """The 0-based line of the first needle found from the cursor on
        (the needle's whitespace may be any run of whitespace: a link
        wrapped over lines); the cursor moves past it.  None: not there."""
        for needle in needles:
            if not needle:
                continue
            at = self.text.find(needle, self.pos)
            if at == -1 and WS.search(needle):
                pattern = r"\s+".join(re.escape(part) for part in needle.split())
                found = re.compile(pattern).search(self.text, self.pos) if pattern else None
                at = found.start() if found else -1
            if at != -1:
                self.pos = at + 1
                return self.start + self.text.count("\n", 0, at)
        return None

    def find_at(self, pattern: re.Pattern[str]) -> tuple[int, re.Match[str]] | None:
        """The 0-based line and match of ``pattern`` from the cursor on."""
        found = pattern.search(self.text, self.pos)
        if found is None:
            return None
        self.pos = found.start() + 1
        return self.start + self.text.count("\n", 0, found.start()), found
