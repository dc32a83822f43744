"""linkaudit's link extraction against an HTML5 parser, html5lib.

    python tests/differential.py PAGE.html...      # or a directory

html5lib builds the tree a browser would; every element of it that holds a
link (the same rules as linkaudit's: ``extract._links_in_tag``) gives the
link's value and the line where its start tag began (recorded from
html5lib's tokenizer).  linkaudit's extraction must give the same (value,
line) pairs and the same ``<base href>``.  Elements the tree builder clones
(the adoption agency, foster parenting) are one link in the source: pairs
are compared as sets.  Prints the differences; exits 1 if there are any.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from pathlib import Path
from xml.etree import ElementTree

import html5lib
from html5lib import _tokenizer
from html5lib.treebuilders import etree as etree_builder

from linkaudit.rules.html import Tag, extract_links
from linkaudit.rules.html import links_in_tag as _links_in_tag
from linkaudit.rules.html.links import form_method as _form_method
from linkaudit.rules.urls import C0_SPACE as _C0_SPACE

NAMESPACES = {
    "http://www.w3.org/1999/xhtml": "html",
    "http://www.w3.org/2000/svg": "svg",
    "http://www.w3.org/1998/Math/MathML": "math",
}
XLINK = "{http://www.w3.org/1999/xlink}"
LINE = "{linkaudit}line"


_TAG_OPEN = _tokenizer.HTMLTokenizer.tagOpenState


def _tag_open_with_line(self: _tokenizer.HTMLTokenizer) -> bool:
    """html5lib's tag open state, noting the line a start tag begins on."""
    line = self.stream.position()[0]
    more = _TAG_OPEN(self)
    token = self.currentToken
    if isinstance(token, dict) and token.get("type") == _tokenizer.tokenTypes["StartTag"]:
        token.setdefault("line", line)
    return more


_Builder = etree_builder.getETreeModule(ElementTree)


class _TreeBuilder(_Builder.TreeBuilder):  # type: ignore[name-defined]
    """html5lib's ElementTree builder, keeping each element's start line."""

    def createElement(self, token: dict) -> object:  # noqa: N802
        return _with_line(super().createElement(token), token)

    def insertElementNormal(self, token: dict) -> object:  # noqa: N802
        return _with_line(super().insertElementNormal(token), token)

    def insertElementTable(self, token: dict) -> object:  # noqa: N802
        return _with_line(super().insertElementTable(token), token)


def _with_line(element: object, token: dict) -> object:
    if "line" in token:
        element._element.set(LINE, str(token["line"]))  # type: ignore[attr-defined]
    return element


@contextlib.contextmanager
def _line_tracking() -> Iterator[None]:
    _tokenizer.HTMLTokenizer.tagOpenState = _tag_open_with_line
    try:
        yield
    finally:
        _tokenizer.HTMLTokenizer.tagOpenState = _TAG_OPEN


def html5lib_links(text: str) -> tuple[set[tuple[str, int | None]], str | None]:
    """(value, line) of every link in html5lib's tree, and the base."""
    with _line_tracking():
        document = html5lib.HTMLParser(tree=_TreeBuilder).parse(text)
    links: set[tuple[str, int | None]] = set()
    base = None
    methods = _form_methods(document)
    for element in document.iter():
        if not isinstance(element.tag, str) or not element.tag.startswith("{"):
            continue
        uri, _, local = element.tag[1:].partition("}")
        namespace = NAMESPACES.get(uri)
        if namespace is None:
            continue
        name = local.lower()
        attrs = {}
        for key, value in element.attrib.items():
            if key == LINE:
                continue
            key = "xlink:" + key[len(XLINK) :] if key.startswith(XLINK) else key
            attrs.setdefault(key.lower(), value)
        if namespace == "html" and name == "base":
            if base is None and "href" in attrs:
                base = attrs["href"]
            continue
        # no line: an element the tree builder made from another token
        # (<image> is reprocessed as <img>): matched by value alone
        line = int(element.attrib[LINE]) if LINE in element.attrib else None
        method = methods.get(element, "get")
        for value in _links_in_tag(Tag(name, attrs, line, namespace), method):
            if value.strip(_C0_SPACE):
                links.add((value, line))
    return links, base


def _form_methods(document: ElementTree.Element) -> dict[ElementTree.Element, str]:
    """The method of the form each element of the tree sits in: a submit
    button's ``formaction`` is navigated to only by a form sent with GET."""
    methods: dict[ElementTree.Element, str] = {}

    def walk(element: ElementTree.Element, method: str) -> None:
        for child in element:
            if isinstance(child.tag, str) and child.tag == "{http://www.w3.org/1999/xhtml}form":
                walk(child, _form_method(child.get("method")))
            else:
                methods[child] = method
                walk(child, method)

    walk(document, "get")
    return methods


def compare(text: str) -> tuple[set, set, tuple[str | None, str | None]]:
    """(missing, extra, (base expected, base found)) for one page."""
    expected, base = html5lib_links(text)
    extracted = extract_links(text)
    found = {(link.value, link.line) for link in extracted.links}
    for value, _line in [e for e in expected if e[1] is None]:
        expected.discard((value, None))
        expected |= {f for f in found if f[0] == value} or {(value, None)}
    return expected - found, found - expected, (base, extracted.base)


def main(paths: list[str]) -> int:
    files: list[Path] = []
    for path in map(Path, paths):
        files += sorted(path.rglob("*.html")) if path.is_dir() else [path]
    differ = links = 0
    for path in files:
        text = path.read_bytes().decode("utf-8", "replace")  # CRs as they are
        missing, extra, (want_base, got_base) = compare(text)
        links += len(extract_links(text).links)
        if missing or extra or want_base != got_base:
            differ += 1
            print(f"{path}: missing {sorted(missing)[:5]} extra {sorted(extra)[:5]}", end="")
            print(f" base {want_base!r} vs {got_base!r}" if want_base != got_base else "")
    print(f"{len(files)} pages, {links} links, {differ} pages differ")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
