"""A built page read again for its links' words: each ``<a href>`` with the
value as the page wrote it, the line of its start tag (the line the
audit's referrers name), its text, the text of the block around it, and
where it sits (the page's content, the theme's template around it, or a
link the builder made: a heading's permalink, a table of contents).

Two readers agree on each link: the audit's own tokenizer
(``rules/html``) gives the lines the report names; lxml gives the tree
(text, blocks, landmarks).  Their lists of hrefs are aligned in order
(difflib); a link only one of them sees is left without words, and is
never mapped (``match.py``)."""

from __future__ import annotations

import difflib
import re
from typing import NamedTuple

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
# the elements that may be one of them, found in one pass by libxml2 (a
# page's every element with a class, tested in Python, was most of a large
# page's read): each name GENERATED_AROUND matches holds "toc", "contents"
# or "md-nav"
GENERATED_XPATH = etree.XPath(
    'descendant-or-self::*[self::nav or @role="doc-toc" or @id="TableOfContents" or @id="toc"'
    ' or contains(@class, "toc") or contains(@class, "contents") or contains(@class, "md-nav")]'
)


class BuiltLink(NamedTuple):
    """A link of a built page, as written there."""

    href: str  # the attribute's value (character references decoded)
    line: int  # the line of its start tag
    text: str  # its text, whitespace collapsed
    block: str  # the text of the nearest block around it, whitespace collapsed
    where: str  # "content", "template" (outside the content) or "generated"
    classes: str  # its class attribute


class BuiltPage(NamedTuple):
    links: list[BuiltLink]
    base: str | None  # the first <base href>
    unread: int  # links the tree reader did not see alike (left without words)


def norm(text: str | None) -> str:
    return WS.sub(" ", text or "").strip()


def read_built(text: str) -> BuiltPage:
    """The links of a page's text (see the module's doc)."""
    tagged: list[tuple[str, int]] = []
    base: str | None = None
    for name, attrs, line, namespace in start_tags(text):
        if namespace != "html":
            continue
        if name == "base" and base is None and "href" in attrs:
            base = attrs["href"]
        elif name in ("a", "area") and "href" in attrs:
            tagged.append((attrs["href"], line))
        elif name == "img" and "src" in attrs:
            tagged.append((attrs["src"], line))
    if not tagged:
        return BuiltPage([], base, 0)
    tree_links = _tree_links(text)
    values = [href for href, _ in tagged]
    tree_values = [href for href, *_ in tree_links]
    if values == tree_values:  # the two readers agree (most pages): one block
        blocks = [(0, 0, len(values))]
    else:
        blocks = difflib.SequenceMatcher(
            None, values, tree_values, autojunk=False
        ).get_matching_blocks()
    links: list[BuiltLink] = []
    for i, j, size in blocks:
        for k in range(size):
            href, line = tagged[i + k]
            _, words, block, where, classes = tree_links[j + k]
            links.append(BuiltLink(href, line, words, block, where, classes))
    return BuiltPage(links, base, len(tagged) - len(links))


def _tree_links(text: str) -> list[tuple[str, str, str, str, str]]:
    """(href, text, block text, where, classes) of each ``<a href>``,
    ``<area href>`` and ``<img src>`` (its text: its ``alt``) in the tree's
    order. A link the builder generated gets no text and no block (""):
    nothing reads them (a generated link is never a candidate for a source
    link, and only the content link being mapped is read for its words), and
    computing them was about a tenth of the mapping on the Python docs."""
    if not text.strip():
        return []
    try:
        root = lxml.html.document_fromstring(text)
    except (etree.ParserError, ValueError):  # no tree at all (only a comment)
        return []
    content = None
    for path in CONTENT_ROOTS:
        found = root.xpath(path)
        if found:
            content = found[0]
            break
    inside = set(content.iter("a", "area", "img")) if content is not None else None
    generated = _generated_around(root)
    blocks: dict[object, str] = {}
    out = []
    for a in root.iter("a", "area", "img"):
        href = a.get("src" if a.tag == "img" else "href")
        if href is None:
            continue
        classes = a.get("class") or ""
        if inside is not None and a not in inside:
            where = "template"
        elif a in generated or GENERATED_CLASSES.search(classes) or a.get("role") == "doc-backlink":
            where = "generated"
        else:
            where = "content"
        if where == "generated":  # never matched by its words (match.py): not read
            out.append((href, "", "", where, classes))
            continue
        block = a.getparent()
        while block is not None and block.tag not in BLOCKS:
            block = block.getparent()
        if block not in blocks:
            blocks[block] = norm(block.text_content())[:MAX_BLOCK] if block is not None else ""
        words = a.get("alt", "") if a.tag == "img" else a.text_content()
        out.append((href, norm(words), blocks[block], where, classes))
    return out


def _generated_around(root: lxml.html.HtmlElement) -> set[lxml.html.HtmlElement]:
    """The links inside what a builder generates: a table of contents, a
    navigation (found once for the page, not from each link's ancestors)."""
    out: set[lxml.html.HtmlElement] = set()
    for element in GENERATED_XPATH(root):
        if (
            element.tag == "nav"
            or element.get("role") == "doc-toc"
            or element.get("id") in ("TableOfContents", "toc")
            or GENERATED_AROUND.search(element.get("class") or "")
        ):
            out.update(d for d in element.iter("a", "area", "img") if d is not element)
    return out
