"""The links of a reStructuredText source (Sphinx's too), with docutils:
each reference's target (resolved as docutils resolves it: a named,
anonymous, alias or substitution reference takes the URL of its
definition, whose line is ``defined``), its text, its paragraph's text,
and its line (``links.Cursor``: docutils gives a paragraph's first line,
never a reference's).

Sphinx's roles and directives are unknown to docutils: for the length of
one parse, an unknown role becomes a cross-reference (``role:NAME``, its
target as written) and an unknown directive parses its body as reST (code
and API directives excepted: their bodies are not the page's prose).
Files are inserted only by ``.. include::``; ``raw`` and ``csv-table``
never read a file or a URL (``file_insertion_enabled`` is off for them)."""

from __future__ import annotations

import contextlib
import functools
import io
import re
from collections.abc import Iterator
from typing import Any

import docutils.frontend
import docutils.nodes as dn
import docutils.utils
from docutils.parsers.rst import Directive, Parser, directives, roles
from docutils.parsers.rst.directives.misc import Include
from docutils.readers.standalone import Reader

from linkaudit.sources.links import Cursor, SourceLink, norm

CODE_LIKE = re.compile(
    r"^(code-block|sourcecode|code|literalinclude|toctree|auto\w+|doctest|testcode|testoutput|"
    r"ipython|jupyter-execute|program-output|command-output|graphviz|mermaid|math|highlight|"
    r"tabularcolumns|productionlist|index|click:example|click:run)$"
)
EMBEDDED = re.compile(r"<([^<>]+)>`_{1,2}$", re.S)
HREF = re.compile(r"""<a\s[^>]*?href\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))""", re.I)
TAG = re.compile(r"<[^>]*>")
ROLE_TARGET = re.compile(r"^(.*?)\s*<([^<>]+)>$", re.S)
PARAGRAPH_LINES = 200  # lines a paragraph's links are looked for in, when its extent is unknown


class xref(dn.Inline, dn.TextElement):  # noqa: N801 (docutils' node names are lower case)
    """A Sphinx cross-reference role: its target as written, and the text
    the page shows (its title, or the target: ``~a.b.c`` shows ``c``)."""

    def astext(self) -> str:
        if self["title"]:
            return self["title"]
        return self["target"].rpartition(".")[2] if self["short"] else self["target"]


def _xref_role(name: str, rawtext: str, text: str, lineno: int, inliner: Any,
               options: Any = None, content: Any = None) -> tuple[list[dn.Node], list]:  # fmt: skip
    written = ROLE_TARGET.match(text)
    title, target = written.groups() if written else ("", text)
    node = xref(rawtext, text)
    node["role"], node["title"] = name, title
    node["target"], node["short"] = target.lstrip("~!"), target.startswith("~")
    return [node], []


class _Generic(Directive):
    """A directive docutils does not know: its body parsed as reST."""

    has_content = True
    optional_arguments = 100
    final_argument_whitespace = True

    class _AnyOption(dict):
        def __contains__(self, key: object) -> bool:
            return True

        def __getitem__(self, key: str) -> Any:
            return directives.unchanged

    option_spec = _AnyOption()

    def run(self) -> list[dn.Node]:
        node = dn.container()
        if CODE_LIKE.match(self.name):
            return [node]
        if self.arguments:  # (versionchanged's text is its argument, as Sphinx reads it)
            written = " ".join(self.arguments)
            words, _ = self.state.inline_text(written, self.lineno)
            paragraph = dn.paragraph(written, "", *words)
            paragraph.source, paragraph.line = self.state_machine.get_source_and_line(self.lineno)
            node += paragraph
        if self.content:
            self.state.nested_parse(self.content, self.content_offset, node)
        return [node]


class _Include(Include):
    """``.. include::``: the one directive that inserts a file."""

    def run(self) -> list[dn.Node]:
        settings = self.state.document.settings
        settings.file_insertion_enabled = True
        try:
            return super().run()
        finally:
            settings.file_insertion_enabled = False


@contextlib.contextmanager
def _sphinx_aware() -> Iterator[None]:
    """Unknown roles and directives as above, for one parse (docutils
    looks them up through these two module functions)."""
    find_directive, find_role = directives.directive, roles.role

    def directive(name: str, language: Any, document: Any) -> tuple[Any, list]:
        if name == "include":
            return _Include, []
        found, messages = find_directive(name, language, document)
        return (found or _Generic), messages

    def role(name: str, language: Any, lineno: int, reporter: Any) -> tuple[Any, list]:
        found, messages = find_role(name, language, lineno, reporter)
        return (found or _xref_role), messages

    directives.directive, roles.role = directive, role
    try:
        yield
    finally:
        directives.directive, roles.role = find_directive, find_role


@functools.cache
def _docutils() -> tuple[Any, Parser, Reader]:
    """The settings, parser and reader, made once (``publish_doctree``
    makes them for each file: an option parser each time).  No
    configuration file is read (defaults only), nothing is reported, no
    file is read but by ``include``, code is not highlighted (Pygments'
    lexers cost more than the parse)."""
    parser = Parser()
    reader = Reader(parser_name=None)
    settings = docutils.frontend.get_default_settings(parser, reader)
    settings.report_level = settings.halt_level = 5
    settings.warning_stream = io.StringIO()
    settings.file_insertion_enabled = False
    settings.input_encoding = "utf-8"  # an included file's
    settings.syntax_highlight = "none"
    return settings, parser, reader


def rest_links(path: str, text: str, offset: int = 0, part: str | None = None) -> list[SourceLink]:
    """The links of ``text``, the content of ``path`` (or the body of a
    MyST ``{eval-rst}`` fence that starts after line ``offset``).  A text
    docutils cannot parse has none.  ``part``: ``text`` with lines blanked
    (``blocks.rest_part``), parsed instead; lines are found in ``text``."""
    settings, parser, reader = _docutils()
    try:
        with _sphinx_aware():
            # publish_doctree's steps: the parse, then the standalone reader's transforms
            document = docutils.utils.new_document(path, settings)
            parser.parse(text if part is None else part, document)
            document.transformer.populate_from_components((reader, parser))
            document.transformer.apply_transforms()
    except Exception:  # noqa: BLE001  docutils on any text: a failure is "no links found"
        return []
    return _Links(path, text, offset, document).read()


class _Links:
    def __init__(self, path: str, text: str, offset: int, document: dn.document) -> None:
        self.path, self.offset, self.document = path, offset, document
        self.files: dict[str, list[str]] = {path: [""] * offset + text.split("\n")}
        self.cursors: dict[tuple[str, int], Cursor] = {}
        self.names: dict[str, tuple[str, int]] = {}  # a target's name -> (file, line)
        self.anonymous: list[tuple[str, int]] = []
        for target in document.findall(dn.target):
            if target.line is None or not target.get("refuri"):
                continue
            where = (target.source or path, target.line + self._shift(target.source))
            if target.get("anonymous"):
                self.anonymous.append(where)
            for name in target["names"]:
                self.names.setdefault(name, where)

    def _shift(self, source: str | None) -> int:
        return self.offset if (source or self.path) == self.path else 0

    def lines(self, source: str) -> list[str]:
        if source not in self.files:
            try:
                with open(source, encoding="utf-8", errors="replace") as fh:
                    self.files[source] = fh.read().split("\n")
            except OSError:
                self.files[source] = []
        return self.files[source]

    def cursor(self, node: dn.Node) -> tuple[str, Cursor, str] | None:
        """The cursor of the nearest block around ``node`` that has a line."""
        block = node
        while block is not None and block.line is None:
            block = block.parent
        if block is None:
            return None
        source = block.source or self.path
        start = block.line - 1 + self._shift(block.source)
        key = (source, start)
        if key not in self.cursors:
            raw = block.rawsource or ""
            extent = raw.count("\n") + 1 if raw else PARAGRAPH_LINES
            self.cursors[key] = Cursor(self.lines(source), start, start + extent + 1)
        return source, self.cursors[key], norm(block.astext())

    def read(self) -> list[SourceLink]:
        out: list[SourceLink | None] = []
        anonymous = iter(self.anonymous)
        for node in self.document.findall(lambda n: isinstance(n, (dn.reference, xref, dn.raw))):
            found = self.cursor(node)
            if found is None:
                continue
            source, cursor, block = found
            raw = node.rawsource or ""
            if isinstance(node, dn.raw):
                if "html" in node.get("format", ""):
                    words = norm(TAG.sub(" ", node.astext()))
                    for href in HREF.finditer(node.astext()):
                        line = cursor.find(href.group(0))
                        target = next(g for g in href.groups() if g is not None)
                        out.append(self._link(source, line, target, "", words, "html"))
                continue
            line = cursor.find(raw, raw.split("\n")[0]) if raw else None
            if line is not None and EMBEDDED.search(raw) and raw.find(raw.split("\n")[0]) == 0:
                line += raw[: raw.rfind("<")].count("\n")  # wrapped: the target's line
            if isinstance(node, xref):
                text, target = node["title"], node["target"]
                out.append(self._link(source, line, target, text, block, "role:" + node["role"]))
                continue
            if node.get("anonymous"):
                defined = next(anonymous, None)
            else:
                defined = self._definition(node, raw)
            target = node.get("refuri")
            if target is None:  # a footnote, a section: inside the page
                target = "#" + (node.get("refid") or "")
            out.append(self._link(source, line, target, node.astext(), block, "rst", defined))
        return [link for link in out if link is not None]

    def _definition(self, node: dn.Node, raw: str) -> tuple[str, int] | None:
        """Where the URL of a named, alias or substitution reference is
        written (None: in the reference itself)."""
        embedded = EMBEDDED.search(raw)
        if embedded is not None:
            inner = embedded.group(1)
            if not inner.endswith("_"):
                return None  # `text <url>`_
            name = inner[:-1]  # `text <Name_>`_
        elif raw.startswith("|") and raw.endswith("|_"):
            name = raw[1:-2]
        elif raw.endswith("_"):
            name = node.get("name") or raw.rstrip("_").strip("`")
        else:
            return None  # a bare URL
        return self.names.get(dn.fully_normalize_name(name))

    def _link(
        self,
        source: str,
        line: int | None,
        target: str,
        text: str,
        block: str,
        kind: str,
        defined: tuple[str, int] | None = None,
    ) -> SourceLink | None:
        if line is None:
            return None
        return SourceLink(
            source, line + 1, target, norm(text), block, kind,
            defined[1] if defined else None, defined[0] if defined else None,
        )  # fmt: skip
