"""The source files' links, each file parsed once.

The parsers are imported when a file of theirs is first read: a MkDocs
project never loads docutils, a Sphinx project in reST never loads
markdown-it, and a build audit with no finding to map loads neither (their
imports alone are a tenth of a small build's walk)."""

from __future__ import annotations

import os
from urllib.parse import unquote

from linkaudit.sources.layout import MARKDOWN, REST, Layout
from linkaudit.sources.links import SourceLink
from linkaudit.sources.literal import Literal, find
from linkaudit.sources.match import squeezed
from linkaudit.sources.needles import Words
from linkaudit.sources.restliteral import find_rest, find_role

MAX_SOURCES = 5000  # source files read for a page no one file made (an aggregate page)


def _rest_links(path: str, text: str, offset: int = 0) -> list[SourceLink]:
    from linkaudit.sources.rest import rest_links

    return rest_links(path, text, offset)


class SourceFiles:
    """Each source file's links, parsed once."""

    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        self.parsed: dict[str, list[SourceLink]] = {}
        self._paths: list[str] | None = None
        self._paths_read = False
        self._words: dict[str, str] = {}
        self._lower: dict[str, Words] = {}
        self._held: dict[str, set[str]] = {}  # a needle -> the files holding it
        self._literals: dict[tuple[str, str, str | None], Literal | None] = {}
        self._rest_literals: dict[tuple[str, str, int, int], tuple[Literal, int | None] | None] = {}
        self._rest_roles: dict[tuple[str, str, str], Literal | None] = {}
        self._parts: dict[tuple[str, str, bool], list[SourceLink] | None] = {}

    def links(self, path: str) -> list[SourceLink]:
        if path not in self.parsed:
            self.parsed[path] = self._parse(path)
        return self.parsed[path]

    def part_links(self, path: str, word: tuple[str, bool]) -> list[SourceLink] | None:
        """The links of the part of a reST file that may hold a link
        holding ``word`` (``blocks.rest_part``); None: parse it whole."""
        if path in self.parsed or not path.endswith(REST):
            return None
        if (path, *word) not in self._parts:
            from linkaudit.sources.blocks import rest_part

            text = self._read(path)
            part = rest_part(text, *word)
            if part is None:
                self._parts[(path, *word)] = None
            else:
                from linkaudit.sources.rest import rest_links

                self._parts[(path, *word)] = rest_links(path, text, part=part)
        return self._parts[(path, *word)]

    def literal(
        self, path: str, name: str, tail: str | None, href: str | None = None
    ) -> Literal | None:
        """The one inline link of a Markdown file whose target holds
        ``name`` (or is ``href``), found without the parser (``literal.find``)."""
        if (path, name, href) not in self._literals:
            liquid = self.layout.tool == "jekyll"
            found = find(self._read(path), name, tail, liquid, href)
            self._literals[(path, name, href)] = found
        return self._literals[(path, name, href)]

    def rest_literal(
        self, path: str, name: str, nth: int = 0, count: int = 1
    ) -> tuple[Literal, int | None] | None:
        """The reference of a reST file whose target holds ``name`` (the
        ``nth`` of ``count``), and its definition's line, found without
        docutils (``restliteral``)."""
        if (path, name, nth, count) not in self._rest_literals:
            found = find_rest(self._read(path), name, nth, count)
            self._rest_literals[(path, name, nth, count)] = found
        return self._rest_literals[(path, name, nth, count)]

    def rest_role(self, path: str, name: str, role: str) -> Literal | None:
        """The one ``:ref:`` or ``:doc:`` with a title of a reST file whose
        target holds ``name``, found without docutils (``restliteral``)."""
        if (path, name, role) not in self._rest_roles:
            self._rest_roles[(path, name, role)] = find_role(self._read(path), name, role)
        return self._rest_roles[(path, name, role)]

    def _read(self, path: str) -> str:
        try:
            with open(path, encoding="utf-8", errors="replace") as fh:
                return fh.read()
        except OSError:
            return ""

    def _parse(self, path: str) -> list[SourceLink]:
        try:
            with open(path, encoding="utf-8", errors="replace") as fh:
                text = fh.read()
        except OSError:
            return []
        if path.endswith(REST):
            return _rest_links(path, text)
        from linkaudit.sources.markdown import markdown_links

        flavor = self.layout.flavor
        if path.endswith(".mdx"):
            flavor = "mdx"
        elif not path.endswith(MARKDOWN) and flavor == "myst":
            flavor = "commonmark"  # an HTML page of a Sphinx project: none
        return markdown_links(path, text, flavor, linkify=self.layout.linkify, rest=_rest_links)

    def every_path(self) -> list[str] | None:
        """Every source file, in order (None: more than MAX_SOURCES)."""
        if not self._paths_read:
            self._paths_read = True
            self._paths = self._walk()
        return self._paths

    def _walk(self) -> list[str] | None:
        found = []
        for directory in self.layout.directories:
            for folder, dirs, names in os.walk(directory):
                dirs[:] = sorted(d for d in dirs if not d.startswith((".", "_build", "_site")))
                found += [os.path.join(folder, n) for n in names if n.endswith(MARKDOWN + REST)]
                if len(found) > MAX_SOURCES:
                    return None
        return sorted(found)

    def holding(self, needles: set[str] | None) -> list[str]:
        """The source files whose text holds one of ``needles`` (None:
        all), so a page of others' words parses the few files that can
        hold its link, not the whole project.  The text is compared with
        its escapes decoded and its white space and backslashes removed (a
        URL wrapped over lines, an escaped ``_`` in reST)."""
        paths = self.every_path() or []
        if needles is None:
            return paths
        found: set[str] = set()
        for needle in needles:
            found |= self._holding(needle, paths)
        return [path for path in paths if path in found]

    def _holding(self, needle: str, paths: list[str]) -> set[str]:
        """The files holding ``needle``, among those holding its part
        before ``#`` (looked for once: a page's hundred links into another
        page share it)."""
        if needle not in self._held:
            coarse = needle.partition("#")[0] or needle
            if coarse != needle:
                paths = sorted(self._holding(coarse, paths))
            self._held[needle] = {path for path in paths if needle in self._text(path)}
        return self._held[needle]

    def words(self, path: str) -> Words:
        """The file's text as ``needles.Words`` compares it (read once)."""
        if path not in self._lower:
            try:
                with open(path, encoding="utf-8", errors="replace") as fh:
                    text = fh.read()
            except OSError:
                text = ""
            self._lower[path] = Words(text)
        return self._lower[path]

    def _text(self, path: str) -> str:
        if path not in self._words:
            try:
                with open(path, encoding="utf-8", errors="replace") as fh:
                    text = fh.read()
            except OSError:
                text = ""
            self._words[path] = squeezed(unquote(text))
        return self._words[path]

    def directory_of(self, source: str) -> str:
        """The folder of a source file, relative to its sources' directory."""
        root = next(
            (d for d in self.layout.directories if source.startswith(d.rstrip(os.sep) + os.sep)),
            os.path.dirname(source),
        )
        return os.path.dirname(os.path.relpath(source, root)).replace(os.sep, "/")
