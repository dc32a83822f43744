"""The source files' links, each file parsed once.

The parsers are imported when a file of theirs is first read: a MkDocs
project never loads docutils, a Sphinx project in reST never loads
markdown-it, and a build audit with no finding to map loads neither (their
imports alone are a tenth of a small build's walk)."""

from __future__ import annotations

import os

from linkaudit.sources.layout import MARKDOWN, REST, Layout
from linkaudit.sources.links import SourceLink

MAX_SOURCES = 5000  # source files read for a page no one file made (an aggregate page)


def _rest_links(path: str, text: str, offset: int = 0) -> list[SourceLink]:
    from linkaudit.sources.rest import rest_links

    return rest_links(path, text, offset)


class SourceFiles:
    """Each source file's links, parsed once."""

    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        self.parsed: dict[str, list[SourceLink]] = {}
        self._every: list[SourceLink] | None = None
        self._every_read = False

    def links(self, path: str) -> list[SourceLink]:
        if path not in self.parsed:
            self.parsed[path] = self._parse(path)
        return self.parsed[path]

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

    def every_link(self) -> list[SourceLink] | None:
        """The links of every source file (None: more than MAX_SOURCES),
        read once."""
        if not self._every_read:
            self._every_read = True
            self._every = self._read_every()
        return self._every

    def _read_every(self) -> list[SourceLink] | None:
        found = []
        for directory in self.layout.directories:
            for folder, dirs, names in os.walk(directory):
                dirs[:] = sorted(d for d in dirs if not d.startswith((".", "_build", "_site")))
                found += [os.path.join(folder, n) for n in names if n.endswith(MARKDOWN + REST)]
                if len(found) > MAX_SOURCES:
                    return None
        return [link for path in sorted(found) for link in self.links(path)]

    def directory_of(self, source: str) -> str:
        """The folder of a source file, relative to its sources' directory."""
        root = next(
            (d for d in self.layout.directories if source.startswith(d.rstrip(os.sep) + os.sep)),
            os.path.dirname(source),
        )
        return os.path.dirname(os.path.relpath(source, root)).replace(os.sep, "/")
