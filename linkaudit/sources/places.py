"""The places of a build audit's findings mapped to their sources: the
report's referrers (``source``, or ``unmapped`` and why), and the
``build.sources`` summary.

Only places of findings are mapped (a broken target's referrers, a missing
fragment's, a redirect fix's): each built page holding one is read again
once, each source file parsed once (``SourceFiles``)."""

from __future__ import annotations

import gc
import os
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Protocol
from urllib.parse import urldefrag, urljoin

from w3lib.encoding import html_to_unicode

from linkaudit.items import Outcome, Place, SourceLine
from linkaudit.sources.built import BuiltPage, read_built
from linkaudit.sources.changes import Change
from linkaudit.sources.files import MAX_SOURCES, SourceFiles
from linkaudit.sources.layout import REST, Layout
from linkaudit.sources.links import SourceLink, shown_path
from linkaudit.sources.match import (
    NO_TARGET,
    ORIGIN,
    Index,
    Mapped,
    PageMatcher,
    Rules,
    listing_index,
    listing_needles,
    page_base,
    page_index,
)
from linkaudit.sources.needles import target_word
from linkaudit.sources.page import Page
from linkaudit.sources.pages import PageSources
from linkaudit.sources.shortcuts import elsewhere, literal, part
from linkaudit.sources.templates import Templates

PAGES_KEPT = 256  # built pages whose mapping is kept at once (pages come back: LRU)
# characters of built pages whose lxml trees are kept (their links' words
# read when asked; a tree takes about 14 bytes a character: 110 MB at
# most); an older one's links are read whole and its tree let go (LRU)
TREE_CHARS = 8_000_000
# tools whose layouts list other pages' words (Jekyll's and Hugo's lists of
# posts): a template's link there is looked for in every source (Markdown:
# quick to read; a Sphinx project's thousand reST files are not read for
# its theme's links)
LISTING_TOOLS = frozenset({"jekyll", "hugo", None})
MAX_PAGE = 20 * 1024 * 1024  # bytes of a built page read again


class BuildFiles(Protocol):
    """``localbuild``'s page URL -> file (``LocalFiles``)."""

    root: str
    real_root: str
    shown: str
    prefix: str

    def __call__(self, url: str) -> str | None: ...


class SourcePlaces:
    """Maps the places of a build's findings (see the module's doc)."""

    def __init__(self, layout: Layout, files: BuildFiles, change: Change | None = None) -> None:
        self.layout, self.files, self.change = layout, files, change
        self.pages = PageSources(layout, files.real_root)
        self.sources = SourceFiles(layout)
        self.templates = Templates(layout)
        self.rules = Rules(layout.tool, layout.extlinks, self.pages.label, self.pages.hugo_pages)
        self.kept: OrderedDict[str, Page | None] = OrderedDict()
        self.trees: OrderedDict[str, BuiltPage] = OrderedDict()
        self.tree_chars = 0
        # the links of the sources a page of others' words may hold, indexed once
        self._indexes: dict[tuple[str, ...], tuple[list[SourceLink], Index]] = {}
        self.mapped = self.unmapped = 0
        self.outside = 0  # findings outside the change (--changed-since)

    # -- the report's parts

    def entry(self, item: dict[str, Any]) -> None:
        """A finding's places, and whether the change holds it."""
        with _collector_paused():
            self._entry(item)

    def _entry(self, item: dict[str, Any]) -> None:
        places = [(r, item["url"]) for r in item.get("referrers", ())]
        for gap in item.get("missing_fragments", ()):
            self.places(gap["referrers"], item["url"], gap["fragment"])
            self._changed(gap, gap["referrers"])
        if not _finding(item):
            return
        for referrer, url in places:
            self.place(referrer, referrer.get("via") or url, None)
        self._changed(item, item.get("referrers", ()))

    def places(self, referrers: list[Place], url: str, fragment: str | None) -> None:
        for referrer in referrers:
            self.place(referrer, referrer.get("via") or url, fragment)

    def fix(self, fix: dict[str, Any]) -> None:
        """A redirect fix's place (page, line, the redirecting URL)."""
        place: Place = {"url": fix["page"], "line": fix["line"]}
        with _collector_paused():
            self.place(place, fix["from"], None)
        if "source" in place:
            fix["source"] = place["source"]
        if "unmapped" in place:
            fix["unmapped"] = place["unmapped"]
        self._changed(fix, [place])

    def section(self) -> dict[str, Any]:
        """``build.sources``."""
        layout = self.layout
        return {
            "tool": layout.tool,
            "directories": [shown_path(d) for d in layout.directories],
            "config": shown_path(layout.config) if layout.config else None,
            "detected": layout.detected,
            "mapped": self.mapped,
            "unmapped": self.unmapped,
        }

    # -- one place

    def place(self, referrer: Place, target: str, fragment: str | None) -> None:
        line = referrer.get("line")
        if line is None or referrer.get("rendered"):
            self._unmapped(referrer, "a link a script made: no line of the built page")
            return
        page = self._page(referrer["url"])
        if page is None:
            self._unmapped(referrer, "not a page of the build")
            return
        source = page.source
        links_read = page.built.links if page.built is not None else []
        if source is None and (not links_read or not page.why.startswith("no source file")):
            self._unmapped(referrer, page.why)
            return
        here = page.at(line, target, fragment)
        results: list[Mapped] = []
        for j in here:  # all of them to one source link, or unmapped: stop at the first not
            results.append(self._map(page, j))
            if results[-1].link is None or results[-1].link != results[0].link:
                break
        if here and len(results) == len(here) and results[0].link is not None:
            self._mapped(referrer, results[0].link)
            return
        if not here:
            why = f"no link of the page's text to this target on line {line}"
        elif len(here) > 1:
            why = f"{len(here)} links to this target on line {line} of the page"
        else:
            why = results[0].why
        self._unmapped(referrer, why)
        content = all(links_read[j].where == "content" for j in here)
        if (
            self.change is not None
            and source is not None
            and content
            and self.change.touches(source)
        ):
            referrer["changed"] = True  # no line, but its page's words were edited

    def _mapped(self, referrer: Place, link: SourceLink) -> None:
        source: SourceLine = {"file": shown_path(link.file), "line": link.line}
        if link.defined is not None:
            source["defined"] = {"file": shown_path(link.defined_file or link.file),
                                 "line": link.defined}  # fmt: skip
        referrer["source"] = source
        self.mapped += 1
        if self.change is not None and self.change.holds(link):
            referrer["changed"] = True

    def _unmapped(self, referrer: Place, why: str) -> None:
        referrer["unmapped"] = why
        self.unmapped += 1

    def _changed(self, finding: dict[str, Any], places: Any) -> None:
        if self.change is None:
            return
        changed = any(p.get("changed") for p in places)
        finding["changed"] = changed
        if not changed:
            self.outside += 1

    # -- a page read again

    def _page(self, url: str) -> Page | None:
        if url in self.kept:
            self.kept.move_to_end(url)
            if url in self.trees:
                self.trees.move_to_end(url)
            return self.kept[url]
        shown = self.files(url)
        page = None
        if shown is not None:
            files = self.files
            rel = shown[len(files.shown) + 1 :] if files.shown not in (".", "") else shown
            source, why = self.pages.source_of(rel)
            built = None
            # a page no source made is read for its others' words (not Sphinx's
            # genindex and search pages: the tool's own)
            listing = why.startswith("no source file") and self.layout.tool != "sphinx"
            if source is not None or listing:
                built = self._read(os.path.join(files.real_root, rel))
                if built is None:
                    source, why = None, "the built page could not be read again"
            page = Page(url, rel, built, source, why)
            if built is not None:
                self.trees[url] = built
                self.tree_chars += built.size
                while self.tree_chars > TREE_CHARS and len(self.trees) > 1:
                    self._release(next(iter(self.trees)), True)
        self.kept[url] = page
        if len(self.kept) > PAGES_KEPT:
            self._release(self.kept.popitem(last=False)[0], False)
        return page

    def _release(self, url: str, read: bool) -> None:
        """Let go of a page's tree, its links read whole first if ``read``."""
        built = self.trees.pop(url, None)
        if built is not None:
            self.tree_chars -= built.size
            if read:
                built.release()

    def _read(self, path: str) -> BuiltPage | None:
        try:
            with open(path, "rb") as fh:
                body = fh.read(MAX_PAGE)
        except OSError:
            return None
        return read_built(html_to_unicode("text/html", body)[1])

    def _map(self, page: Page, j: int) -> Mapped:
        """The j-th link of ``page`` (see ``_mapping``), once."""
        if j not in page.results:
            page.results[j] = self._mapping(page, j)
        return page.results[j]

    def _mapping(self, page: Page, j: int) -> Mapped:
        """The j-th link of ``page``: its source link, else the list of
        posts' (a template's link of a Jekyll or Hugo page), else the
        theme's template line (or configuration's) that writes it, for a
        link of the template or one whose target no source link has."""
        assert page.built is not None
        link = page.built.links[j]
        if page.source is not None:
            if link.where == "content":
                result = self._own(page, j)
            else:  # the source is not parsed for it (a theme's link on every page)
                result = Mapped(None, f"outside the page's content (the {link.where})")
            if (
                result.link is None
                and link.where == "template"
                and self.layout.tool in LISTING_TOOLS
            ):  # a list of posts in the layout: other pages' words
                listed = self._listed(page, j)
                result = listed if listed.link is not None else result
        else:  # a page of other pages' words (print page, news, tags)
            result = self._listed(page, j)
        if result.link is None and (link.where == "template" or result.why == NO_TARGET):
            # the theme's, or a plugin's in the content (a PDF button of
            # mkdocs-print-site: mkdocs.yml's path_to_pdf)
            resolved = urljoin(page_base(page.rel, page.built.base), link.href.strip())
            path = (
                urldefrag(resolved)[0].removeprefix(ORIGIN) if resolved.startswith(ORIGIN) else ""
            )
            result = self.templates.find(link.href, path) or result
        return result

    def _own(self, page: Page, j: int) -> Mapped:
        """The j-th link of ``page`` against its source file's links, the
        file not parsed when it lacks a word its link must hold (needles.py)."""
        assert page.built is not None and page.source is not None
        if page.matcher is None:
            base = page_base(page.rel, page.built.base)
            resolved = urljoin(base, page.built.links[j].href.strip())
            word = target_word(resolved, base, self.layout.extlinks)
            words = self.sources.words(page.source)
            if words.lacks(word):
                return Mapped(None, NO_TARGET)
            # (a Jekyll file's Liquid: the literal path refuses a block that holds
            # it; reST: template syntax and character references are text, and
            # the literal path refuses an include)
            sure = not words.unsure or self.layout.tool == "jekyll" or page.source.endswith(REST)
            if word is not None and sure:
                found = literal(self.sources, self.rules, page, j, resolved)  # no parser
                if found is not None:
                    return found
            if word is not None and not words.unsure and elsewhere(resolved, base, word):
                found = part(self.sources, self.rules, page, word, j)  # its blocks only
                if found is not None and found.link is not None:
                    return found  # kept only when it maps; else the whole file
        return self._matcher(page)[j]

    def _matcher(self, page: Page) -> PageMatcher:
        """The page's matcher against its source file's links (parsed now)."""
        assert page.built is not None and page.source is not None
        if page.matcher is None:
            source, built = page.source, page.built
            links = self.sources.links(source)
            index = page_index(page.rel, links, self.sources.directory_of(source), self.rules)
            page.matcher = PageMatcher(page.rel, built.base, built.links, links, index)
        return page.matcher

    def _listed(self, page: Page, j: int) -> Mapped:
        """The page's j-th link matched against every source's (see
        PageMatcher), in the files that can hold it: those holding a word
        of its href, then those holding a word of the other links that may
        claim the same source links (the decision counts them: their own
        source links must all be there)."""
        assert page.built is not None
        if self.sources.every_path() is None:
            return Mapped(None, f"a page no one source file made, in a project of more than "
                                f"{MAX_SOURCES}")  # fmt: skip
        wanted = {j}
        base = page_base(page.rel, page.built.base)
        while True:
            needles: set[str] | None = set()
            for k in sorted(wanted):
                href = page.built.links[k].href
                found = listing_needles(href, urljoin(base, href.strip()))
                needles = None if found is None or needles is None else needles | found
            matcher = self._listing(page, tuple(self.sources.holding(needles)))
            rivals = matcher.rivals(j)
            if rivals <= wanted:
                return matcher[j]
            wanted |= rivals

    def _listing(self, page: Page, paths: tuple[str, ...]) -> PageMatcher:
        assert page.built is not None
        if paths not in page.listed:
            if paths not in self._indexes:
                links = [link for path in paths for link in self.sources.links(path)]
                index = listing_index(links, lambda s: self.sources.directory_of(s.file))
                self._indexes[paths] = (links, index)
            links, index = self._indexes[paths]
            built = page.built
            page.listed[paths] = PageMatcher(page.rel, built.base, built.links, links, index, True)
        return page.listed[paths]


def _finding(item: dict[str, Any]) -> bool:
    """An entry the report calls a finding: broken, unchecked, or reported
    with a warning (a soft 404, a symbolic link out of the build)."""
    if item["outcome"] in (Outcome.BROKEN, Outcome.UNCHECKED):
        return True
    return bool(item.get("soft_404") or item.get("warning"))


SourcePlacesFactory = Callable[[BuildFiles], SourcePlaces | None]


@contextmanager
def _collector_paused() -> Iterator[None]:
    """The garbage collector off while one finding's places are mapped: the
    mapping allocates many objects that live on (parsed trees, indexes), so
    the collector's passes over them cost about a quarter of the mapping on a
    large build while freeing nothing. Re-enabled after each finding (only if
    it was on), so the cycles a parse leaves (docutils' doctrees) are
    collected then, not held for the whole report."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()
