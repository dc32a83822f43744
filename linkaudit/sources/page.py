"""A built page read again for the places of findings on it (``places.py``):
its links, its source file (or why none), and its matchers."""

from __future__ import annotations

from linkaudit.rules.fragments import fragment_of
from linkaudit.rules.urls import InvalidURL, canonicalize
from linkaudit.sources.built import BuiltPage
from linkaudit.sources.match import Mapped, PageMatcher


class Page:
    """A built page read again: its links, its source file (or why none),
    and its matcher, which maps the links asked for."""

    def __init__(
        self, url: str, rel: str, built: BuiltPage | None, source: str | None, why: str
    ) -> None:
        self.rel, self.built, self.source, self.why = rel, built, source, why
        self.base = url
        if built is not None and built.base is not None:
            try:
                self.base = canonicalize(built.base, url)
            except InvalidURL:
                pass
        self.matcher: PageMatcher | None = None
        # against the part of its source that holds a word (blocks.py), by the word
        self.parts: dict[tuple[str, bool], PageMatcher | None] = {}
        self.results: dict[int, Mapped] = {}  # a link's mapping, once
        # against the sources that may hold its links (a page of others' words)
        self.listed: dict[tuple[str, ...], PageMatcher] = {}
        lines: dict[int, list[int]] = {}
        for j, line in enumerate(built.links.lines if built is not None else ()):
            lines.setdefault(line, []).append(j)
        # a line -> its links, as tuples of ints, which the collector stops
        # tracking: a kept page's thousands of lines are not walked by its passes
        self.lines: dict[int, tuple[int, ...]] = {k: tuple(v) for k, v in lines.items()}

    def at(self, line: int, target: str, fragment: str | None) -> list[int]:
        """The links on ``line`` to ``target`` (with ``fragment``)."""
        out = []
        for j in self.lines.get(line, ()):
            link = self.built.links[j]  # type: ignore[union-attr]
            try:
                if canonicalize(link.href, self.base) != target:
                    continue
            except InvalidURL:
                continue
            if fragment is None or fragment_of(link.href) == fragment:
                out.append(j)
        return out
