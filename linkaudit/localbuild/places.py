"""A built page's links read again, after the audit, where the report needs
them: for a page file and a line, each link on that line with the value its
attribute holds as written, the URL it resolves to, its text and the text
of the block around it (``PlacedLink``).

The audit keeps a link as (page, line) and its target's canonical URL,
nothing of what the page wrote: the report's ``href`` (``report.py``) and
the mapping of a finding to its source file (``linkaudit/sources/``) need
that, for the few pages that hold findings.  So only those pages are read
again, each once (:meth:`BuiltPages.read`: every link of the page by line;
:meth:`BuiltPages.at` keeps the last pages read), from the build's files,
decoded and read as the scan read them:

- the links: the scan's own reader (``rules/pagelinks.py``: the HTML
  Standard's tokenizer, character references decoded, with the CSS links
  of ``<style>`` when ``--no-css`` is not given, the first ``LINKAUDIT_PAGE_MAXLINKS``
  of them, the first ``LINKAUDIT_PAGE_MAXSIZE`` characters), each resolved
  against the page's URL or its ``<base href>`` by ``resolve`` (the audit's
  link rules: the key the report names the target by);
- the texts, only when asked (``texts=True``): Python's ``html.parser``
  (start tags matched to the tokenizer's links by line, name and order),
  the link's text (an ``<img>``'s ``alt``), and its block's: the text of
  the innermost block element around it (``p``, ``li``, ``td``, ``h2``,
  ``div``...), the text of blocks inside that one left out, blanks
  collapsed, at most :data:`MAX_TEXT` characters.  A page without an end
  tag for ``p``, ``li``, ``dd``, ``td`` gets them where HTML implies them.

This is report time, not a check: its reader is the scan's (the layout's
rule that the walk has no reader of its own, ``tests/test_layout.py``,
names this module as the one exception).
"""

from __future__ import annotations

import re
from collections import OrderedDict, defaultdict
from collections.abc import Callable, Collection, Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import NamedTuple

from linkaudit.localbuild.decoding import decoded
from linkaudit.localbuild.reading import read_file
from linkaudit.localbuild.serving import content_type
from linkaudit.rules.pagelinks import PageLinks, read_page
from linkaudit.rules.urls import InvalidURL, canonicalize, clean

_LINE_END = re.compile(r"\r\n|\r|\n")  # the tokenizer's ends of line
_BASE = re.compile(r"<base[\t\n\f\r />]", re.IGNORECASE)
_MAX_TAG = 64 * 1024  # characters a tag that begins on a line read may go on below it
MAX_TEXT = 2000  # characters of a link's or a block's text kept
KEPT = 8  # pages :meth:`BuiltPages.at` keeps read
DEFAULT_MAXSIZE = 10 * 1024 * 1024
DEFAULT_MAXLINKS = 100_000


class PlacedLink(NamedTuple):
    """One link of a built page: ``href`` its attribute's value as the
    tokenizer reads it (character references decoded, the spaces the URL
    parser strips stripped), ``url`` where it leads (the audit's key),
    its ``line`` and element, and (``texts=True``) its text and its block's."""

    href: str
    url: str
    line: int
    tag: str
    text: str | None = None
    block: str | None = None


def _resolved(value: str, base: str) -> str:
    try:
        return canonicalize(value, base)
    except InvalidURL:  # reported as written (rules/judge.py)
        return clean(value)


class BuiltPages:
    """The links of a build's pages, read again from their files.

    ``resolve(value, base)``: a link value's key (default: its canonical
    URL); ``css``, ``maxsize``, ``maxlinks``: what the scan read of a page
    (``LINKAUDIT_CSS``, ``LINKAUDIT_PAGE_MAXSIZE``, ``LINKAUDIT_PAGE_MAXLINKS``)."""

    def __init__(
        self,
        resolve: Callable[[str, str], str] = _resolved,
        *,
        css: bool = True,
        maxsize: int = DEFAULT_MAXSIZE,
        maxlinks: int = DEFAULT_MAXLINKS,
    ) -> None:
        self.resolve = resolve
        self.css = css
        self.maxsize = maxsize
        self.maxlinks = maxlinks
        self.reads = 0  # pages read (each once, by a caller that keeps what it needs)
        self._kept: OrderedDict[tuple[str, str, bool], dict[int, list[PlacedLink]]] = OrderedDict()

    def read(
        self,
        file: str | Path,
        url: str,
        texts: bool = False,
        lines: Collection[int] | None = None,
        whole: bool = False,
    ) -> dict[int, list[PlacedLink]]:
        """Every link of the page ``file`` served at ``url``, by line, in
        the order of the page; an unreadable file has none.

        ``lines``: only the links on these lines, read from those lines
        alone (the tags that begin on them, to the ``>`` that ends the
        last), unless ``whole`` or ``texts`` is given or the page has a
        ``<base>``: a page of 1 MB with three findings costs three lines'
        reading.  A line inside ``<style>``, ``<script>`` or a comment that
        began above it is not read as such from the line alone: a caller
        that misses a link it expects reads the page ``whole``."""
        self.reads += 1
        try:
            body, truncated = read_file(Path(file), self.maxsize)
        except OSError:
            return {}
        text = decoded(content_type(str(file)), body)
        if truncated:
            text = text[: self.maxsize]
        if lines is not None and not (whole or texts) and not _BASE.search(text):
            return self._lines(text, url, lines)
        page = self._page(text)
        base = url
        if page.base is not None:
            try:
                base = canonicalize(page.base, url)
            except InvalidURL:
                pass  # ignored, as a browser ignores it
        found: dict[int, list[PlacedLink]] = defaultdict(list)
        for value, line, tag in page.links:
            if lines is not None and line not in lines:
                continue
            found[line].append(PlacedLink(clean(value), self.resolve(value, base), line, tag))
        if texts:
            _add_texts(text, found)
        return dict(found)

    def _page(self, text: str) -> PageLinks:
        return read_page(
            text, False, css=self.css, anchors=False, limit=self.maxlinks, templates=False
        )

    def _lines(self, text: str, url: str, lines: Collection[int]) -> dict[int, list[PlacedLink]]:
        """The links of ``lines`` only, each run of lines read alone."""
        starts = [0] + [m.end() for m in _LINE_END.finditer(text)]
        found: dict[int, list[PlacedLink]] = defaultdict(list)
        wanted = sorted(n for n in lines if 1 <= n <= len(starts))
        for first, last in _runs(wanted):
            begin = starts[first - 1]
            end = starts[last] if last < len(starts) else len(text)
            window = text[begin:end]
            if window.rfind("<") > window.rfind(">"):  # a tag that goes on below
                close = text.find(">", end, end + _MAX_TAG)
                window = text[begin : close + 1] if close >= 0 else window
            for value, line, tag in self._page(window).links:
                line += first - 1
                if line <= last:
                    found[line].append(
                        PlacedLink(clean(value), self.resolve(value, url), line, tag)
                    )
        return dict(found)

    def at(self, file: str | Path, line: int, url: str, texts: bool = False) -> list[PlacedLink]:
        """The links on ``line`` of the page ``file`` served at ``url``
        (the last :data:`KEPT` pages read are kept: a page asked for line
        after line is read once)."""
        key = (str(file), url, texts)
        links = self._kept.get(key)
        if links is None:
            links = self._kept[key] = self.read(file, url, texts)
            if len(self._kept) > KEPT:
                self._kept.popitem(last=False)
        else:
            self._kept.move_to_end(key)
        return links.get(line, [])


# -- the texts: html.parser, matched to the tokenizer's links --------------------------
BLOCKS = frozenset(
    "p li dt dd td th h1 h2 h3 h4 h5 h6 caption figcaption blockquote pre summary legend "
    "div section article aside nav header footer main body table tr ul ol dl form figure "
    "details address center".split()
)
# a start tag of these ends an open <p> (HTML's implied end tags, the common ones)
_CLOSES_P = BLOCKS - {"td", "th", "tr", "li", "dt", "dd", "caption", "body"}
_SIBLINGS = {
    "li": {"li"},
    "dt": {"dt", "dd"},
    "dd": {"dt", "dd"},
    "td": {"td", "th"},
    "th": {"td", "th"},
    "tr": {"tr"},
}
_VOID = frozenset("area base br col embed hr img input link meta source track wbr".split())


class _Texts(HTMLParser):
    """Each start tag's ``[link text, block text]``, by (line, tag), in
    the order of the page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, list[str]]] = []  # open blocks: name, own text
        self.link: tuple[list[str | None], list[str]] | None = None  # an open <a>
        self.tags: dict[tuple[int, str], list[list[str | None]]] = defaultdict(list)
        # the start tags whose block has not ended: (blocks open around, texts)
        self.waiting: list[tuple[int, list[str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        line = self.getpos()[0]
        if tag in BLOCKS:
            self._implied(tag)
            self.stack.append((tag, []))
        texts: list[str | None] = [None, None]
        self.tags[(line, tag)].append(texts)
        self.waiting.append((len(self.stack), texts))
        if tag == "a":
            self._end_link()
            self.link = (texts, [])
        elif tag in ("img", "input", "area"):
            texts[0] = _collapsed(dict(attrs).get("alt") or "")
        else:
            texts[0] = ""

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag == "a":
            self._end_link()

    def handle_endtag(self, tag: str) -> None:
        if tag == "a":
            self._end_link()
        elif tag in BLOCKS and any(name == tag for name, _ in self.stack):
            while self.stack:
                name = self.stack[-1][0]
                self._close()
                if name == tag:
                    break

    def handle_data(self, data: str) -> None:
        if self.stack:
            self.stack[-1][1].append(data)
        if self.link is not None:
            self.link[1].append(data)

    def close(self) -> None:
        super().close()
        self._end_link()
        while self.stack:
            self._close()

    def _implied(self, tag: str) -> None:
        """End the open element a start tag of ``tag`` ends."""
        if tag in _CLOSES_P and self.stack and self.stack[-1][0] == "p":
            self._close()
        siblings = _SIBLINGS.get(tag)
        if siblings and self.stack and self.stack[-1][0] in siblings:
            self._close()

    def _close(self) -> None:
        """The innermost open block ends: its text is the block of the
        tags inside it that no inner block took."""
        depth = len(self.stack)
        own = self.stack.pop()[1]
        text = _collapsed("".join(own))
        while self.waiting and self.waiting[-1][0] >= depth:
            texts = self.waiting.pop()[1]
            if texts[1] is None:
                texts[1] = text
        if self.stack:  # the block's words end here, in the text around it
            self.stack[-1][1].append(" ")

    def _end_link(self) -> None:
        if self.link is not None:
            texts, words = self.link
            texts[0] = _collapsed("".join(words))
            self.link = None


def _runs(lines: list[int]) -> Iterator[tuple[int, int]]:
    """Runs of consecutive numbers (sorted): (first, last) each."""
    if not lines:
        return
    first = last = lines[0]
    for line in lines[1:]:
        if line != last + 1:
            yield first, last
            first = line
        last = line
    yield first, last


def _collapsed(text: str) -> str:
    return " ".join(text.split())[:MAX_TEXT]


def _add_texts(text: str, found: dict[int, list[PlacedLink]]) -> None:
    """Each link's text and block text (html.parser counts ``\\n`` alone as
    a line's end: the tokenizer's CR and CRLF are made so first)."""
    parser = _Texts()
    try:
        parser.feed(text.replace("\r\n", "\n").replace("\r", "\n"))
        parser.close()
    except Exception:  # html.parser gave up on the markup: the links keep no text
        return
    taken: dict[tuple[int, str], int] = defaultdict(int)
    for line, links in found.items():
        for i, link in enumerate(links):
            # (a srcset's candidates are links of one element: its texts
            # may then be the next element's, on that line only)
            key = (line, link.tag)
            index = taken[key]
            taken[key] += 1
            elements = parser.tags.get(key, ())
            if index < len(elements):
                link_text, block = elements[index]
                links[i] = link._replace(text=link_text or "", block=block or "")
