"""A link of the theme's template (outside the page's content) mapped to
the template file in the repository that writes it (MkDocs' ``custom_dir``,
Sphinx's ``templates_path``, Jekyll's ``_layouts`` and ``_includes``, Hugo's
``layouts``) or to the tool's configuration file (``mkdocs.yml``'s
``copyright``, a menu of ``hugo.toml``): only when the href as the page
wrote it is written once in all of them, and long enough to say something
(``/`` or ``#`` is written everywhere)."""

from __future__ import annotations

import os
from functools import cached_property

from linkaudit.sources.layout import Layout
from linkaudit.sources.links import SourceLink
from linkaudit.sources.match import Mapped

TEMPLATE_SUFFIXES = (".html", ".htm", ".j2", ".jinja", ".liquid", ".xml", ".md")
MAX_FILES = 2000  # template files read at most
MIN_LITERAL = 8  # characters an href needs to be looked for


class Templates:
    def __init__(self, layout: Layout) -> None:
        self.layout = layout

    @cached_property
    def _lines(self) -> list[tuple[str, list[str]]]:
        files: list[str] = []
        for folder in self.layout.templates:
            for here, dirs, names in os.walk(folder):
                dirs[:] = [d for d in dirs if not d.startswith(".")]
                files += [os.path.join(here, n) for n in names if n.endswith(TEMPLATE_SUFFIXES)]
        if self.layout.config:
            files.append(self.layout.config)
        out = []
        for path in files[:MAX_FILES]:
            try:
                with open(path, encoding="utf-8", errors="replace") as fh:
                    out.append((path, fh.read(1 << 20).split("\n")))
            except OSError:
                continue
        return out

    def find(self, href: str, path: str = "") -> Mapped | None:
        """The one template line that writes ``href``, else its ``path``
        from the site's root (``../assets/x.pdf`` on a page below the root
        of ``assets/x.pdf`` in the configuration); None: not one."""
        for literal in dict.fromkeys((href, path)):
            if len(literal) < MIN_LITERAL:
                continue
            hits = [
                (name, number)
                for name, lines in self._lines
                for number, line in enumerate(lines, 1)
                for _ in range(line.count(literal))
            ]
            if len(hits) == 1:
                name, number = hits[0]
                return Mapped(SourceLink(name, number, href, "", "", "template"), "")
        return None
