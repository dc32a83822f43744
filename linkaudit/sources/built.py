"""A built page read again for its links' words: each ``<a href>`` with the
value as the page wrote it, the line of its start tag (the line the
audit's referrers name), its text, the text of the block around it, and
where it sits (the page's content, the theme's template around it, or a
link the builder made: a heading's permalink, a table of contents).

Two readers agree on each link: the audit's own tokenizer
(``rules/html``) gives the lines the report names; lxml gives the tree
(text, blocks, landmarks).  Their lists of hrefs are aligned in order
(difflib); a link only one of them sees is left without words, and is
never mapped (``match.py``).

A link's place and words are read from the tree when first asked: a
finding's few links of a page of thousands (the Python docs'
``contents.html``: 14,000, most in its table of contents), so the page's
every element is not tested; ``places.py`` keeps a few trees and has the
others' links read whole (``BuiltPage.release``)."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator, Sequence
from typing import Any, NamedTuple

import lxml.html
from lxml import etree

from linkaudit.rules.html import start_tags

WS = re.compile(r"\s+")
MAX_BLOCK = 4000  # characters of a block's text kept (a 100 KB table cell says enough by then)

# The page's own content, in a theme's template: the first element found
# (MkDocs Material, then the ARIA landmark most themes set, Sphinx's basic
# theme, then HTML's own); without one, the whole body is content.
CONTENT_ROOTS = (
    '//article[contains(concat(" ", normalize-space(@class), " "), " md-content__inner ")]',
    '//*[@role="main"]',
    "//main",
    "//article",
    '//div[contains(concat(" ", normalize-space(@class), " "), " body ")]',
)
BLOCKS = frozenset(
    "p li td th dd dt h1 h2 h3 h4 h5 h6 blockquote figcaption caption pre div section "
    "article main nav aside header footer details summary table dl ul ol body".split()
)
# links a builder writes itself: a heading's permalink, back links of
# footnotes and contents, tables of contents
GENERATED_CLASSES = re.compile(r"\b(headerlink|toc-backref|footnote-backref|fn-backref)\b")
GENERATED_AROUND = re.compile(r"\b(toctree-wrapper|contents|toc|md-nav|table-of-contents)\b")


class BuiltLink:
    """A link of a built page, as written there: its href and line when the
    page is read, where it sits and its words from the tree when first
    asked (a page's thousands of links, of which a finding's few are)."""

    __slots__ = ("href", "line", "_tree", "_element", "_where", "_words")

    def __init__(self, href: str, line: int, tree: _Tree, element: Any) -> None:
        self.href = href  # the attribute's value (character references decoded)
        self.line = line  # the line of its start tag
        self._tree: _Tree | None = tree
        self._element = element
        self._where: str | None = None
        self._words: tuple[str, str] | None = None

    @property
    def where(self) -> str:
        """ "content", "template" (outside the content) or "generated"."""
        if self._where is None:
            self._where = self._tree.where(self._element)  # type: ignore[union-attr]
        return self._where

    @property
    def text(self) -> str:
        """Its text (an image's ``alt``), whitespace collapsed."""
        return self._read()[0]

    @property
    def block(self) -> str:
        """The text of the nearest block around it, whitespace collapsed."""
        return self._read()[1]

    def _read(self) -> tuple[str, str]:
        if self._words is None:
            # a link the builder generated is never matched by its words (match.py)
            generated = self.where == "generated"
            self._words = ("", "") if generated else self._tree.words(self._element)  # type: ignore[union-attr]
        return self._words

    def release(self) -> None:
        """Everything read from the tree now, and the tree let go."""
        self._read()
        self._tree = self._element = None


class BuiltLinks(Sequence[BuiltLink]):
    """A page's links, each made when first asked (``links[j]``): a kept
    page's thousands of links are three lists (hrefs, lines, their elements'
    places in the tree), not thousands of objects for the collector to walk
    each pass; a finding asks for a few."""

    __slots__ = ("hrefs", "lines", "_tree", "_at", "_made")

    def __init__(self, hrefs: list[str], lines: list[int], tree: _Tree | None, at: Any) -> None:
        self.hrefs, self.lines = hrefs, lines  # as the page wrote them, and their lines
        self._tree, self._at = tree, at  # the j-th link's element: tree.elements[at[j]]
        self._made: dict[int, BuiltLink] = {}

    def __len__(self) -> int:
        return len(self.hrefs)

    def __getitem__(self, j: int) -> BuiltLink:  # type: ignore[override]
        link = self._made.get(j)
        if link is None:
            j = range(len(self.hrefs))[j]  # a negative index counted; IndexError past the end
            tree = self._tree
            assert tree is not None
            link = self._made.get(j) or BuiltLink(
                self.hrefs[j], self.lines[j], tree, tree.elements[self._at[j]]
            )
            self._made[j] = link
        return link

    def __iter__(self) -> Iterator[BuiltLink]:
        return (self[j] for j in range(len(self.hrefs)))


class BuiltPage(NamedTuple):
    links: BuiltLinks
    base: str | None  # the first <base href>
    unread: int  # links the tree reader did not see alike (left without words)
    size: int = 0  # characters of the page (its tree: about 14 bytes each)

    def release(self) -> None:
        """Its links' words read, its tree let go (``places.py`` keeps a few trees)."""
        for link in self.links:
            link.release()


def norm(text: str | None) -> str:
    return WS.sub(" ", text or "").strip()


def read_built(text: str) -> BuiltPage:
    """The links of a page's text (see the module's doc)."""
    values: list[str] = []
    lines: list[int] = []
    base: str | None = None
    for name, attrs, line, namespace in start_tags(text):
        if namespace != "html":
            continue
        if name == "base" and base is None and "href" in attrs:
            base = attrs["href"]
        elif name in ("a", "area") and "href" in attrs:
            values.append(attrs["href"])
            lines.append(line)
        elif name == "img" and "src" in attrs:
            values.append(attrs["src"])
            lines.append(line)
    if not values:
        return BuiltPage(BuiltLinks([], [], None, ()), base, 0)
    tree = _Tree(text)
    tree_values = tree.hrefs
    if values == tree_values:  # the two readers agree (most pages): one block
        return BuiltPage(BuiltLinks(values, lines, tree, range(len(values))), base, 0, len(text))
    blocks = difflib.SequenceMatcher(None, values, tree_values, autojunk=False)
    hrefs: list[str] = []
    kept: list[int] = []
    at: list[int] = []
    for i, j, size in blocks.get_matching_blocks():
        hrefs += values[i : i + size]
        kept += lines[i : i + size]
        at += range(j, j + size)
    links = BuiltLinks(hrefs, kept, tree, at)
    return BuiltPage(links, base, len(values) - len(hrefs), len(text))


class _Tree:
    """A page's lxml tree: each ``<a href>``, ``<area href>`` and ``<img
    src>`` (its text: its ``alt``) in the tree's order, and a link's place
    and words when asked."""

    def __init__(self, text: str) -> None:
        # each link's href and element, in two lists: no tuple a link for the
        # collector to walk while the page is kept (places.py)
        self.hrefs: list[str] = []
        self.elements: list[Any] = []
        self.root = None
        if text.strip():
            try:
                self.root = lxml.html.document_fromstring(text)
            except (etree.ParserError, ValueError):  # no tree at all (only a comment)
                pass
        if self.root is not None:
            for a in self.root.iter("a", "area", "img"):
                href = a.get("src" if a.tag == "img" else "href")
                if href is not None:
                    self.hrefs.append(href)
                    self.elements.append(a)
        self._content: Any = False  # not looked for yet
        self._generated: dict[Any, bool] = {}  # an element -> it or an ancestor generated
        self._blocks: dict[Any, str] = {}

    @property
    def content(self) -> Any:
        """The page's own content (``CONTENT_ROOTS``), None: the whole body."""
        if self._content is False:
            self._content = None
            for path in CONTENT_ROOTS:
                found = self.root.xpath(path)  # type: ignore[union-attr]
                if found:
                    self._content = found[0]
                    break
        return self._content

    def where(self, a: Any) -> str:
        content = self.content
        if content is not None and a is not content and content not in a.iterancestors():
            return "template"
        if (
            self._inside_generated(a.getparent())
            or GENERATED_CLASSES.search(a.get("class") or "")
            or a.get("role") == "doc-backlink"
        ):
            return "generated"
        return "content"

    def _inside_generated(self, element: Any) -> bool:
        """``element`` or an ancestor is what a builder generates: a table of
        contents, a navigation (each element tested once for the page)."""
        chain = []
        while element is not None and element not in self._generated:
            chain.append(element)
            element = element.getparent()
        found = self._generated[element] if element is not None else False
        for element in reversed(chain):
            found = found or _generates(element)
            self._generated[element] = found
        return found

    def words(self, a: Any) -> tuple[str, str]:
        """(its text, its block's text)."""
        block = a.getparent()
        while block is not None and block.tag not in BLOCKS:
            block = block.getparent()
        if block not in self._blocks:
            self._blocks[block] = (
                norm(block.text_content())[:MAX_BLOCK] if block is not None else ""
            )
        words = a.get("alt", "") if a.tag == "img" else a.text_content()
        return norm(words), self._blocks[block]


def _generates(element: Any) -> bool:
    """An element whose links a builder generates (see GENERATED_AROUND)."""
    return (
        element.tag == "nav"
        or element.get("role") == "doc-toc"
        or element.get("id") in ("TableOfContents", "toc")
        or GENERATED_AROUND.search(element.get("class") or "") is not None
    )
