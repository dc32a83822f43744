"""The places of a build audit's findings mapped to their sources: the
report's referrers (``source``, or ``unmapped`` and why), and the
``build.sources`` summary.

Only places of findings are mapped (a broken target's referrers, a missing
fragment's, a redirect fix's): each built page holding one is read again
once, each source file parsed once (``SourceFiles``)."""

from __future__ import annotations

import os
from collections import OrderedDict
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple, Protocol

from w3lib.encoding import html_to_unicode

from linkaudit.rules.fragments import fragment_of
from linkaudit.rules.urls import InvalidURL, canonicalize
from linkaudit.sources.built import BuiltLink, BuiltPage, read_built
from linkaudit.sources.changes import Change
from linkaudit.sources.layout import MARKDOWN, REST, Layout
from linkaudit.sources.links import SourceLink, shown_path
from linkaudit.sources.markdown import markdown_links
from linkaudit.sources.match import Mapped, Rules, match_page
from linkaudit.sources.pages import PageSources
from linkaudit.sources.rest import rest_links
from linkaudit.sources.templates import Templates

MAX_SOURCES = 5000  # source files read for a page no one file made (an aggregate page)
PAGES_KEPT = 256
# tools whose layouts list other pages' words (Jekyll's and Hugo's lists of
# posts): a template's link there is looked for in every source (Markdown:
# quick to read; a Sphinx project's thousand reST files are not read for
# its theme's links)
LISTING_TOOLS = frozenset(
    {"jekyll", "hugo", None}
)  # built pages whose mapping is kept at once (pages come back: LRU)
MAX_PAGE = 20 * 1024 * 1024  # bytes of a built page read again


class BuildFiles(Protocol):
    """``localbuild``'s page URL -> file (``LocalFiles``)."""

    root: str
    real_root: str
    shown: str
    prefix: str

    def __call__(self, url: str) -> str | None: ...


class Found(NamedTuple):
    """A built link of a page: its line, its canonical target, fragment, mapping."""

    line: int
    target: str | None
    fragment: str | None
    mapped: Mapped
    where: str  # the built link's: "content", "template", "generated"


class SourceFiles:
    """Each source file's links, parsed once."""

    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        self.parsed: dict[str, list[SourceLink]] = {}

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
            return rest_links(path, text)
        flavor = self.layout.flavor
        if path.endswith(".mdx"):
            flavor = "mdx"
        elif not path.endswith(MARKDOWN) and flavor == "myst":
            flavor = "commonmark"  # an HTML page of a Sphinx project: none
        return markdown_links(path, text, flavor, linkify=self.layout.linkify, rest=rest_links)

    def every_link(self) -> list[SourceLink] | None:
        """The links of every source file (None: more than MAX_SOURCES)."""
        found = []
        for directory in self.layout.directories:
            for folder, dirs, names in os.walk(directory):
                dirs[:] = sorted(d for d in dirs if not d.startswith((".", "_build", "_site")))
                found += [os.path.join(folder, n) for n in names if n.endswith(MARKDOWN + REST)]
                if len(found) > MAX_SOURCES:
                    return None
        return [link for path in sorted(found) for link in self.links(path)]


class SourcePlaces:
    """Maps the places of a build's findings (see the module's doc)."""

    def __init__(self, layout: Layout, files: BuildFiles, change: Change | None = None) -> None:
        self.layout, self.files, self.change = layout, files, change
        self.pages = PageSources(layout, files.real_root)
        self.sources = SourceFiles(layout)
        self.templates = Templates(layout)
        self.rules = Rules(layout.tool, layout.extlinks, self.pages.label, self.pages.hugo_pages)
        self.kept: OrderedDict[str, tuple[list[Found], str | None, str]] = OrderedDict()
        self.mapped = self.unmapped = 0
        self.outside = 0  # findings outside the change (--changed-since)

    # -- the report's parts

    def entry(self, item: dict[str, Any]) -> None:
        """A finding's places, and whether the change holds it."""
        places = [(r, item["url"]) for r in item.get("referrers", ())]
        for gap in item.get("missing_fragments", ()):
            self.places(gap["referrers"], item["url"], gap["fragment"])
            self._changed(gap, gap["referrers"])
        if not _finding(item):
            return
        for referrer, url in places:
            self.place(referrer, referrer.get("via") or url, None)
        self._changed(item, item.get("referrers", ()))

    def places(self, referrers: list[dict[str, Any]], url: str, fragment: str | None) -> None:
        for referrer in referrers:
            self.place(referrer, referrer.get("via") or url, fragment)

    def fix(self, fix: dict[str, Any]) -> None:
        """A redirect fix's place (page, line, the redirecting URL)."""
        place = {"url": fix["page"], "line": fix["line"]}
        self.place(place, fix["from"], None)
        for name in ("source", "unmapped"):
            if name in place:
                fix[name] = place[name]
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

    def place(self, referrer: dict[str, Any], target: str, fragment: str | None) -> None:
        line = referrer.get("line")
        if line is None or referrer.get("rendered"):
            self._unmapped(referrer, "a link a script made: no line of the built page")
            return
        page = self._page(referrer["url"])
        if page is None:
            self._unmapped(referrer, "not a page of the build")
            return
        found, source, why = page
        if source is None and not found:
            self._unmapped(referrer, why)
            return
        here = [f for f in found if f.line == line and f.target == target]
        if fragment is not None:
            here = [f for f in here if f.fragment == fragment]
        links = {f.mapped.link for f in here if f.mapped.link is not None}
        if here and len(links) == 1 and all(f.mapped.link is not None for f in here):
            self._mapped(referrer, links.pop())
            return
        if not here:
            why = f"no link of the page's text to this target on line {line}"
        elif len(here) > 1:
            why = f"{len(here)} links to this target on line {line} of the page"
        else:
            why = here[0].mapped.why
        self._unmapped(referrer, why)
        content = all(f.where == "content" for f in here)
        if (
            self.change is not None
            and source is not None
            and content
            and self.change.touches(source)
        ):
            referrer["changed"] = True  # no line, but its page's words were edited

    def _mapped(self, referrer: dict[str, Any], link: SourceLink) -> None:
        source: dict[str, Any] = {"file": shown_path(link.file), "line": link.line}
        if link.defined is not None:
            source["defined"] = {"file": shown_path(link.defined_file or link.file),
                                 "line": link.defined}  # fmt: skip
        referrer["source"] = source
        self.mapped += 1
        if self.change is not None and self.change.holds(link):
            referrer["changed"] = True

    def _unmapped(self, referrer: dict[str, Any], why: str) -> None:
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

    def _page(self, url: str) -> tuple[list[Found], str | None, str] | None:
        if url in self.kept:
            self.kept.move_to_end(url)
            return self.kept[url]
        shown = self.files(url)
        if shown is None:
            return None
        files = self.files
        rel = shown[len(files.shown) + 1 :] if files.shown not in (".", "") else shown
        source, why = self.pages.source_of(rel)
        found: list[Found] = []
        if source is not None or why.startswith("no source file"):
            built = self._read(os.path.join(files.real_root, rel))
            if built is None:
                source, why = None, "the built page could not be read again"
            else:
                found = self._found(url, rel, source, built)
        self.kept[url] = (found, source, why)
        if len(self.kept) > PAGES_KEPT:
            self.kept.popitem(last=False)
        return self.kept[url]

    def _listed(self, rel: str, built: BuiltPage) -> list[Mapped]:
        """The page's links matched against every source's (see match_page)."""
        every = self.sources.every_link()
        if every is None:
            why = f"a page no one source file made, in a project of more than {MAX_SOURCES}"
            return [Mapped(None, why)] * len(built.links)
        return match_page(
            rel, built.base, built.links, every, "", self.rules, True,
            lambda link: self._src_dir(link.file),
        )  # fmt: skip

    def _src_dir(self, source: str) -> str:
        """The folder of a source file, relative to its sources' directory."""
        root = next(
            (d for d in self.layout.directories if source.startswith(d.rstrip(os.sep) + os.sep)),
            os.path.dirname(source),
        )
        return os.path.dirname(os.path.relpath(source, root)).replace(os.sep, "/")

    def _read(self, path: str) -> BuiltPage | None:
        try:
            with open(path, "rb") as fh:
                body = fh.read(MAX_PAGE)
        except OSError:
            return None
        return read_built(html_to_unicode("text/html", body)[1])

    def _found(self, url: str, rel: str, source: str | None, built: BuiltPage) -> list[Found]:
        if source is None:  # a page of other pages' words (print page, news, tags)
            mapped = self._listed(rel, built)
        else:
            links = self.sources.links(source)
            src_dir = self._src_dir(source)
            mapped = match_page(rel, built.base, built.links, links, src_dir, self.rules)
        base = url
        if built.base is not None:
            try:
                base = canonicalize(built.base, url)
            except InvalidURL:
                pass
        if (
            source is not None
            and self.layout.tool in LISTING_TOOLS
            and any(m.link is None and b.where == "template" for b, m in pairs(built, mapped))
        ):  # a list of posts in the layout: other pages' words
            listed = self._listed(rel, built)
            mapped = [
                listed[i] if m.link is None and b.where == "template" and listed[i].link else m
                for i, (b, m) in enumerate(pairs(built, mapped))
            ]
        out = []
        for link, result in zip(built.links, mapped, strict=True):
            if result.link is None and link.where == "template":
                result = self.templates.find(link.href) or result
            try:
                target: str | None = canonicalize(link.href, base)
            except InvalidURL:
                target = None
            out.append(Found(link.line, target, fragment_of(link.href), result, link.where))
        return out


def pairs(built: BuiltPage, mapped: list[Mapped]) -> Iterator[tuple[BuiltLink, Mapped]]:
    return zip(built.links, mapped, strict=True)


def _finding(item: dict[str, Any]) -> bool:
    """An entry the report calls a finding: broken, unchecked, or reported
    with a warning (a soft 404, a symbolic link out of the build)."""
    if item["outcome"] in ("broken", "unchecked"):
        return True
    return bool(item.get("soft_404") or item.get("warning"))


SourcePlacesFactory = Callable[[BuildFiles], SourcePlaces | None]
