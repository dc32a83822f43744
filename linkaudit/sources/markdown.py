"""The links of a Markdown source (CommonMark, GitHub's flavour, MkDocs'
Python-Markdown, Jekyll's kramdown, Hugo's goldmark, MyST, MDX), with
markdown-it-py and mdit-py-plugins: each link's target as written, its
text, the text of its block, its line (``links.Cursor``) and, for a
reference-style link, the line of its definition.

What markdown-it does not read as the tool does is brought close first,
line for line (never moving a line): Liquid and Hugo template syntax is
masked (a target holding ``{{ site.baseurl }}`` would not be a link at all),
pymdownx.tabbed's ``=== "Tab"`` is read as an admonition (its indented body
would be a code block), attr_list's ``{: .class }`` as ``{ .class }``, MDX's
``import``/``export`` lines are blanked."""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Callable
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.common.utils import unescapeAll
from mdit_py_plugins.admon import admon_plugin
from mdit_py_plugins.attrs import attrs_block_plugin, attrs_plugin
from mdit_py_plugins.colon_fence import colon_fence_plugin
from mdit_py_plugins.deflist import deflist_plugin
from mdit_py_plugins.footnote import footnote_plugin
from mdit_py_plugins.front_matter import front_matter_plugin
from mdit_py_plugins.gfm_autolink import gfm_autolink_plugin
from mdit_py_plugins.myst_blocks import myst_block_plugin
from mdit_py_plugins.myst_role import myst_role_plugin

from linkaudit.sources.links import TEMPLATE, Cursor, SourceLink, norm

FLAVORS = ("commonmark", "gfm", "mkdocs", "jekyll", "hugo", "myst", "mdx")
PLACEHOLDER = re.compile(r"TPLPH(\d+)TPLPH")
# an HTML (or JSX) attribute that holds a link
HREF = re.compile(
    r"""<[A-Za-z][\w:-]*\s[^>]*?\b(href|src|to)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))""", re.I
)
# an inline link's or image's destination after "](": <in brackets> or plain
DESTINATION = re.compile(r"\]\(\s*(?:<([^<>\n]*)>|((?:[^\s()\\]|\\.|\((?:[^\s()\\]|\\.)*\))*))")
TABBED = re.compile(r"^(\s*)===(\+?) ", re.M)
# Python-Markdown's attr_list, {: .class }: markdown-it's attrs read { .class }
ATTR_LIST = re.compile(r"\{:(?=\s*[.#\w])")
MDX_ESM = re.compile(r"^(?:import|export)\s.*$", re.M)
# MyST directives whose body is Markdown (a code-like directive's is not)
MYST_BODY = re.compile(
    r"^\{(note|warning|tip|important|caution|attention|danger|error|hint|seealso|admonition|"
    r"versionadded|versionchanged|deprecated|versionremoved|dropdown|tab-item|tab-set|card|"
    r"grid-item-card|topic|sidebar|margin|div|container|rubric|glossary)\}"
)
OPTION_LINE = re.compile(r"^:[\w-]+:")
MAX_INCLUDES = 8  # nested {include} directives followed


@functools.cache
def parser(flavor: str, linkify: bool) -> MarkdownIt:
    md = MarkdownIt("commonmark").enable(["table", "strikethrough"])
    md.use(front_matter_plugin).use(footnote_plugin).use(deflist_plugin)
    if linkify or flavor in ("hugo", "gfm"):  # goldmark's linkify, GitHub's autolinks
        md.use(gfm_autolink_plugin)
    if flavor == "mkdocs":
        md.use(admon_plugin).use(attrs_plugin).use(attrs_block_plugin)
    if flavor == "myst":
        md.use(myst_role_plugin).use(myst_block_plugin).use(colon_fence_plugin)
        md.use(attrs_block_plugin)
    return md


class Masked:
    """Template syntax hidden behind placeholders, lines kept."""

    def __init__(self, text: str, on: bool) -> None:
        self.saved: list[str] = []
        self.text = TEMPLATE.sub(self._hide, text) if on else text

    def _hide(self, found: re.Match[str]) -> str:
        if "\n" in found.group(0):
            return "\n" * found.group(0).count("\n")
        self.saved.append(found.group(0))
        return f"TPLPH{len(self.saved) - 1}TPLPH"

    def shown(self, text: str) -> str:
        return PLACEHOLDER.sub(lambda m: self.saved[int(m.group(1))], text) if self.saved else text


RestLinks = Callable[[str, str, int], list[SourceLink]]


def markdown_links(
    path: str,
    text: str,
    flavor: str,
    *,
    linkify: bool = False,
    offset: int = 0,
    rest: RestLinks | None = None,
    depth: int = 0,
) -> list[SourceLink]:
    """The links of ``text``, the content of ``path`` (or a part of it that
    starts after line ``offset``)."""
    templated = flavor in ("jekyll", "hugo")
    if flavor == "mkdocs":
        text = TABBED.sub(lambda m: f"{m.group(1)}!!!{m.group(2)} tab ", text)
        text = ATTR_LIST.sub("{ ", text)
    if flavor == "mdx":
        text = MDX_ESM.sub("", text)
    masked = Masked(text, templated)
    lines = masked.text.split("\n")
    md = parser(flavor, linkify)
    env: dict[str, Any] = {}
    tokens = md.parse(masked.text, env)
    reader = _Reader(path, lines, masked, md, env, offset)
    out = reader.links
    if templated:  # a link written in a shortcode's or an include's arguments
        for found in TEMPLATE.finditer(text):
            line = text.count("\n", 0, found.start())
            for href in HREF.finditer(found.group(0).replace('\\"', '"')):
                target = next(g for g in href.groups()[1:] if g is not None)
                out.append(SourceLink(path, line + 1 + offset, target, "", "", "template"))
    for token in tokens:
        if token.map is None:
            continue
        start, end = token.map
        if token.type in ("fence", "colon_fence") and flavor == "myst":
            out.extend(_myst_fence(path, token, start, offset, rest, depth))
        elif token.type == "html_block":
            reader.html_block(start, end)
        elif token.type == "inline" and token.children:
            reader.inline(token.children, start, end)
    return out


def _myst_fence(
    path: str, token: Any, start: int, offset: int, rest: RestLinks | None, depth: int
) -> list[SourceLink]:
    """A MyST directive written as a fence: its body is Markdown (an
    admonition), reST (``{eval-rst}``), another file (``{include}``), or
    code (nothing)."""
    info = (token.info or "").strip()
    body_start = offset + start + 1  # lines before the body: the fence's own
    if info.startswith("{include}"):
        included = os.path.normpath(os.path.join(os.path.dirname(path), info[9:].strip()))
        if depth >= MAX_INCLUDES or not os.path.isfile(included):
            return []
        try:
            with open(included, encoding="utf-8", errors="replace") as fh:
                content = fh.read()
        except OSError:
            return []
        if included.endswith((".rst", ".txt")):
            return rest(included, content, 0) if rest is not None else []
        return markdown_links(included, content, "myst", rest=rest, depth=depth + 1)
    if info == "{eval-rst}":
        return rest(path, token.content, body_start) if rest is not None else []
    if MYST_BODY.match(info):
        body = token.content.split("\n")
        skip = 0
        while skip < len(body) and OPTION_LINE.match(body[skip]):
            skip += 1
        content = "\n".join(body[skip:])
        return markdown_links(
            path, content, "myst", offset=body_start + skip, rest=rest, depth=depth
        )
    return []


class _Reader:
    """The links of one parsed text, block by block."""

    def __init__(
        self, path: str, lines: list[str], masked: Masked, md: MarkdownIt, env: dict, offset: int
    ) -> None:
        self.path, self.lines, self.masked, self.md, self.offset = path, lines, masked, md, offset
        self.links: list[SourceLink] = []
        # a reference's label -> (its URL as markdown-it made it, the definition's 0-based line)
        self.refs = {
            label: (ref["href"], ref["map"][0] if ref.get("map") else None)
            for label, ref in env.get("references", {}).items()
        }

    def add(self, line: int | None, target: str, text: str, block: str, kind: str,
            defined: int | None = None) -> None:  # fmt: skip
        if line is None:  # not found on a line of its block: no line rather than a wrong one
            return
        shown = self.masked.shown
        self.links.append(
            SourceLink(
                self.path, line + 1 + self.offset, shown(target), norm(shown(text)),
                shown(block), kind,
                None if defined is None else defined + 1 + self.offset,
                None if defined is None else self.path,
            )
        )  # fmt: skip

    def html_block(self, start: int, end: int) -> None:
        for i in range(start, min(end, len(self.lines))):
            for found in HREF.finditer(self.lines[i]):
                target = next(g for g in found.groups()[1:] if g is not None)
                self.add(i, target, "", "", "html")

    def inline(self, children: list[Any], start: int, end: int) -> None:
        cursor = Cursor(self.lines, start, end)
        block = norm("".join(_block_text(c) for c in children))
        done: set[int] = set()
        for k, child in enumerate(children):
            kind = child.type
            if k in done:
                continue
            if kind == "link_open":
                # an image inside the link is written before the link's target
                for j in range(k + 1, len(children)):
                    if children[j].type == "link_close":
                        break
                    if children[j].type == "image":
                        self._image(children[j], cursor, block)
                        done.add(j)
                self._link(children, k, cursor, block)
            elif kind == "image":
                self._image(child, cursor, block)
            elif kind == "html_inline":
                found = HREF.search(child.content)
                if found is not None:
                    target = next(g for g in found.groups()[1:] if g is not None)
                    self.add(cursor.find(found.group(0)), target, "", block, "html")
            elif kind == "myst_role":
                name, content = child.meta.get("name", ""), child.content
                line = cursor.find(f"{{{name}}}`{content}`", content)
                role = re.fullmatch(r"(.*?)\s*<([^<>]+)>", content, re.S)
                text, target = (role.group(1), role.group(2)) if role else ("", content)
                self.add(line, target, text, block, "role:" + name)

    def _image(self, child: Any, cursor: Cursor, block: str) -> None:
        src = child.attrs.get("src", "")
        line, written = self._destination(cursor, src)
        self.add(line, written or src, child.content, block, "image")

    def _link(self, children: list[Any], k: int, cursor: Cursor, block: str) -> None:
        child = children[k]
        href = child.attrs.get("href", "")
        text = _link_text(children, k)
        if child.markup in ("autolink", "linkify") or child.info == "auto":
            written = text.strip()
            line = cursor.find(f"<{written}>", written)
            self.add(line, href, text, block, "autolink")
            return
        line, written = self._destination(cursor, href)
        if line is not None:
            self.add(line, written, text, block, "inline")
            return
        # a reference-style link: [text][label], [label][], [label]
        for label, (url, defined) in self.refs.items():
            if url != href:
                continue
            pattern = r"\s+".join(re.escape(part) for part in label.split())
            found = cursor.find_at(re.compile(r"\[" + pattern + r"\]", re.I))
            if found is not None:
                written = self._definition_target(defined) or href
                self.add(found[0], written, text, block, "reference", defined)
                return

    def _destination(self, cursor: Cursor, href: str) -> tuple[int | None, str]:
        """The line of the inline destination that markdown-it made
        ``href`` of, and the destination as written."""
        saved = cursor.pos
        while (found := cursor.find_at(DESTINATION)) is not None:
            line, match = found
            written = match.group(1) if match.group(1) is not None else match.group(2)
            if self.md.normalizeLink(unescapeAll(written)) == href or written == href:
                return line, written
        cursor.pos = saved
        return None, ""

    def _definition_target(self, defined: int | None) -> str | None:
        if defined is None or defined >= len(self.lines):
            return None
        found = re.match(r"^ {0,3}\[[^\]]*\]:\s*(?:<([^>]*)>|(\S+))", self.lines[defined])
        return (found.group(1) or found.group(2)) if found else None


def _link_text(children: list[Any], k: int) -> str:
    text = []
    for child in children[k + 1 :]:
        if child.type == "link_close":
            break
        text.append(_block_text(child))
    return "".join(text)


def _block_text(child: Any) -> str:
    """What a token adds to its block's text in the built page."""
    if child.type in ("softbreak", "hardbreak"):
        return " "
    if child.type in ("text", "code_inline"):
        return child.content
    if child.type == "myst_role":
        role = re.fullmatch(r"(.*?)\s*<([^<>]+)>", child.content, re.S)
        return role.group(1) if role else child.content
    return ""
