"""A build's part of the report (``docs/report.md``): the top-level
``build`` (where the audit started and why, the pages read and reached,
the orphans, the files that are not pages, the symbolic links out), the
entries' ``orphan`` and ``symlink_out``, the summary's counts, and the
``href`` each referrer of a finding wrote.

Fed by the report's one pass (``output/report/build.py``): :meth:`prepare`
once the entries are read, :meth:`skip` and :meth:`see` for each, then
:meth:`section`.  Worked out from the entries alone, so every route (the
walk, the crawl reading the files, the build served over HTTP) says the
same:

- a page of the build is an entry of its address served as ``text/html``
  with status 200 and scanned (``page``); an orphan is one no link points
  at (``referrer_count`` 0: ``"unlinked"``) or that only sitemaps list
  (``"sitemap"``); the start page and ``404.html`` (the host sends it for
  every missing URL) are no orphans.  ``reached``: the pages read before
  the unread ones were enumerated (``inventory.py``), the sitemap's
  orphans left out;
- a file that is not a page (an unrendered template) the enumeration
  found has no entry: it is named once in ``build.not_pages``;
- a symbolic link out of the build: its entry's warning (``static.py``)
  gives its target, ``symlink_out``;
- ``href``: only the built pages that hold places of findings (an
  outcome other than ``ok`` and ``excluded``, a soft 404, a missing
  fragment, a symbolic link out) are read again, each once
  (``places.py``), and each place gets the value its attribute holds
  when it differs from the target's URL.
"""

from __future__ import annotations

import logging
import os
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from functools import partial
from itertools import zip_longest
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from linkaudit.audit import link_rules
from linkaudit.items import Outcome
from linkaudit.localbuild.places import BuiltPages
from linkaudit.localbuild.pool import MIN_PAGES, can_fork, in_order, processes, start
from linkaudit.localbuild.sitemap import BuildSitemap
from linkaudit.localbuild.start import (
    GIVEN,
    INDEX_NAMES,
    NO_PAGE,
    ROOT_INDEX,
    SHALLOWEST_INDEX,
    SHALLOWEST_PAGE,
)
from linkaudit.localbuild.static import outside_target
from linkaudit.output.report.records import (
    BuildSection,
    MissingFragment,
    NotPage,
    Place,
    ReportEntry,
    Summary,
)
from linkaudit.rules.fragments import fragment_of
from linkaudit.state.base import Entry

if TYPE_CHECKING:
    from linkaudit.config import Config

logger = logging.getLogger(__name__)
FINDINGS = frozenset({"broken", "redirect", "blocked", "unchecked"})
UNLINKED, SITEMAP = "unlinked", "sitemap"
NOT_FOUND_PAGE = "404.html"


class BuildReport:
    """One report's part of the build (see the module's doc)."""

    def __init__(
        self,
        config: Config,
        pages: Any,  # the build's pages (inventory.py, which makes this part)
        files: Callable[[str], str | None] | None,
    ) -> None:
        self.config = config
        self.pages = pages
        self.files = files
        self.build_url = pages.build_url
        self.starts = frozenset(config.start_urls)
        self.not_found = self.build_url + NOT_FOUND_PAGE
        self.counts: Counter[str] = Counter()
        self.seen: set[int] = set()  # the pages' files counted (their paths' hashes)
        # the name outputs give a URL (rules/names.py): a link written as its
        # shown name (the deployed URL, with --root-url) needs no href
        names = config.names
        self.shown: Callable[[str], str] = names.shown if names is not None else str
        self.sitemap: BuildSitemap | None = None  # the build's own, read for an orphan
        # the origins a link that leaves the build lands on: the build's, the site's
        own = [self.build_url, config["LINKAUDIT_ROOT_URL"] or ""]
        self.own = tuple(_origin(u) for u in own if u)
        self.listed: Counter[str] = Counter()  # URL -> its listings in sitemaps
        # (page, line, target) -> the values written there, in the page's order
        self.written: dict[tuple[str, int | None, str], list[str]] = {}

    # -- before the entries ----------------------------------------------------
    def prepare(
        self,
        entries: Iterable[Entry],
        missing: dict[str, list[MissingFragment]],
        stopped: bool = False,
    ) -> None:
        """The sitemaps' listings, and the hrefs of the findings' places.
        An audit ``stopped`` (a limit, a signal) reads no page again for the
        links it never checked: they can be most of the build (a wide level
        cut by ``--max-time``), and the stop must stay prompt; their places
        keep the target alone."""
        # page -> line -> the findings it links to there
        wanted: dict[str, dict[int, set[str]]] = defaultdict(lambda: defaultdict(set))
        for entry in entries:
            result = entry.result
            if result is not None and result.sitemap is not None:
                if result.sitemap["kind"] == "urlset":
                    self.listed.update(result.sitemap["urls"])
            if _finding(entry, self.own) and not (stopped and entry.result is None):
                for page, line in entry.referrers:
                    if line is not None:  # (a place without a line is not read for its href)
                        wanted[page][line].add(entry.url)
        for target, gaps in missing.items():
            for gap in gaps:
                for referrer in gap["referrers"]:
                    line = referrer["line"]
                    if line is not None:  # (a rendered link's place has no line to read)
                        wanted[referrer["url"]][line].add(target)
        self._read_places(wanted)

    def _read_places(self, wanted: dict[str, dict[int, set[str]]]) -> None:
        """Each page of the build that links to a finding, read once (by
        the workers of ``LINKAUDIT_JOBS`` when there are many, ``pool.py``)."""
        config = self.config
        rules = link_rules(config)
        places = BuiltPages(
            lambda value, base: rules.resolve(value, base).key,
            css=config["LINKAUDIT_CSS"],
            maxsize=config["LINKAUDIT_PAGE_MAXSIZE"],
            maxlinks=config["LINKAUDIT_PAGE_MAXLINKS"],
        )
        pages = [
            (page, str(path), dict(wanted[page]))
            for page in sorted(wanted)
            if (path := self.pages.file_of(page)) is not None
        ]
        jobs = processes(config["LINKAUDIT_JOBS"])
        workers = None
        if jobs > 1 and len(pages) >= MIN_PAGES and can_fork():
            workers = start(jobs, partial(_written, places))
        try:
            read = in_order(workers, pages) if workers is not None else iter(())
            for (page, path, lines), written in zip_longest(pages, read):
                if written is None:  # read here: one process, or a fault of ours there
                    written = _written(places, (page, path, lines))
                for line, url, href in written:
                    self.written.setdefault((page, line, url), []).append(href)
        finally:
            if workers is not None:
                workers.close()
        logger.debug("Read %d pages of the build again for their links as written", len(pages))

    # -- each entry --------------------------------------------------------------
    def skip(self, entry: Entry) -> bool:
        """An HTML file that is no page, which no link leads to: only named."""
        return entry.referrer_count == 0 and entry.url in self.pages.not_page_urls

    def see(self, item: ReportEntry) -> None:
        url = item["url"]
        dropped = _one_url_a_file(item["referrers"])
        if dropped:
            item["referrer_count"] = max(item["referrer_count"] - dropped, len(item["referrers"]))
        for gap in item.get("missing_fragments", ()):
            _one_url_a_file(gap["referrers"])
        if url.startswith(self.build_url):
            self._page(item)
            target = outside_target(item.get("warning"))
            if target is not None and item["outcome"] == Outcome.OK:
                item["symlink_out"] = target
                self.counts["symlinks_out"] += 1
        if self.written:
            self._hrefs(item)

    def _page(self, item: ReportEntry) -> None:
        url = item["url"]
        page = item.get("page") is not None and item.get("status") == 200
        if not (page and item.get("content_type") == "text/html"):
            return
        file = hash(self._file_key(url))
        if file in self.seen:
            return
        self.seen.add(file)
        self.counts["pages"] += 1
        orphan = None
        if url in self.starts or url == self.not_found:
            pass  # (the host's 404.html: reached by every missing URL)
        elif not self.pages.reached(url):  # no link from the start page's pages reached it
            orphan = SITEMAP if self.listed.get(url) or self.in_sitemap(url) else UNLINKED
        elif item["referrer_count"] <= self.listed.get(url, 0):
            orphan = SITEMAP  # read only because a sitemap lists it
        if orphan is not None:
            item["orphan"] = orphan
            self.counts[orphan] += 1
        else:
            self.counts["reached"] += 1

    def _file_key(self, url: str) -> str:
        """A page's file, in the words of its URL: ``guide/`` and
        ``guide/index.html`` are one page, as are ``page`` (a clean URL) and
        ``page.html``, and ``page.html?v=2`` (the host serves a file
        whatever the query).  From the URL alone: a page's file looked up
        again cost an eighth of the walk of 100,000 pages."""
        path = url.split("#", 1)[0].split("?", 1)[0]
        folder, _, name = path.rpartition("/")
        if name and not self.pages.is_page(name):  # served by its name plus .html
            name += ".html"
        return folder + "/" if name == "index.html" else f"{folder}/{name}"

    def in_sitemap(self, url: str) -> bool:
        """The build's own ``sitemap.xml`` lists the page (``sitemap.py``)."""
        if self.sitemap is None:
            config = self.config
            root_url = config["LINKAUDIT_ROOT_URL"] or ""
            if root_url:
                root_url = root_url if root_url.endswith("/") else root_url + "/"
            self.sitemap = BuildSitemap(
                config["LINKAUDIT_LOCAL_DIR"], self.build_url, root_url, config
            )
        return self.sitemap.lists(url)

    def _hrefs(self, item: ReportEntry) -> None:
        """Each place's ``href``, when the page wrote the link otherwise."""
        url = item["url"]
        taken: Counter[tuple[str, int | None, str]] = Counter()
        for referrer in item["referrers"]:
            target = referrer.get("via") or url
            key = (referrer["url"], referrer["line"], target)
            values = self.written.get(key)
            if values:
                value = values[min(taken[key], len(values) - 1)]
                taken[key] += 1
                if value not in (target, self.shown(target)):
                    referrer["href"] = value
        for gap in item.get("missing_fragments", ()):
            shown = (f"{url}#{gap['fragment']}", f"{self.shown(url)}#{gap['fragment']}")
            for referrer in gap["referrers"]:
                written = self.written.get((referrer["url"], referrer["line"], url)) or ()
                href = next((v for v in written if fragment_of(v) == gap["fragment"]), None)
                if href is not None and href not in shown:
                    referrer["href"] = href

    # -- after the entries ------------------------------------------------------
    def section(self, summary: Summary) -> BuildSection:
        """The report's ``build``; the summary gets its counts."""
        counts, pages = self.counts, self.pages
        summary["orphans"] = counts[UNLINKED]
        summary["sitemap_only"] = counts[SITEMAP]
        summary["symlinks_out"] = counts["symlinks_out"]
        root = self.config["LINKAUDIT_LOCAL_DIR"]
        start = self.config.start_urls[0]
        listed: list[NotPage] = [
            {"file": self._named(url, shown), "reason": why}
            for url, (shown, why) in sorted(pages.not_pages.items(), key=lambda kv: kv[1])
        ]
        section: BuildSection = {
            "directory": root,
            "root_url": self.config["LINKAUDIT_ROOT_URL"] or None,
            "start": (self.files(start) if self.files else None) or root,
            "start_from": self.start_from(),
            "pages": counts["pages"],
            "reached": counts["reached"],
            "orphans": counts[UNLINKED],
            "sitemap_only": counts[SITEMAP],
            "not_pages": listed,
            "symlinks_out": counts["symlinks_out"],
        }
        if pages.not_pages_count > len(listed):
            section["not_pages_count"] = pages.not_pages_count
        # every file of the build listed: pages no link reached were looked for
        section["orphans_sought"] = pages.complete
        return section

    def _named(self, url: str, shown: str) -> str:
        named = self.files(url) if self.files is not None else None
        return named or os.path.join(self.config["LINKAUDIT_LOCAL_DIR"], shown)

    def start_from(self) -> str:
        """How the start page was chosen (``localbuild/start.py``): given
        (``--start``), the root's ``index.html``, or found by the command
        when the root has none."""
        config = self.config
        page = config["LINKAUDIT_LOCAL_START"]
        if page and "LINKAUDIT_LOCAL_START" in config.labels:
            return GIVEN
        if page:
            name = page.rpartition("/")[2]
            return SHALLOWEST_INDEX if not name or name in INDEX_NAMES else SHALLOWEST_PAGE
        start = config.start_urls[0]
        return ROOT_INDEX if self.pages.file_of(start) is not None else NO_PAGE


def _written(
    places: BuiltPages, page: tuple[str, str, dict[int, set[str]]]
) -> list[tuple[int, str, str]]:
    """A page's links to the findings on ``lines``, as written: (line,
    target, value), in the order of the page."""
    url, path, lines = page
    found = places.read(path, url, lines=lines)
    if any(
        not targets <= {link.url for link in found.get(line, ())} for line, targets in lines.items()
    ):  # a line read alone missed a link (in <style>, say): the page whole
        found = places.read(path, url, lines=lines, whole=True)
    return [
        (line, link.url, link.href)
        for line, links in found.items()
        for link in links
        if link.url in lines[line]
    ]


def _finding(entry: Entry, own: tuple[str, ...]) -> bool:
    """An entry whose places the report lists with an ``href``: a finding,
    a symbolic link out, or a link that left the build (``excluded``, on
    the build's address or the site's own host: written relative, most
    often, so its URL is not what the page wrote; a far link left out by
    ``--skip-far`` or ``--exclude`` is written whole, and its pages are
    not read again for it)."""
    result = entry.result
    if result is None:
        return bool(entry.referrers)  # never checked (a limit): unchecked
    if result.outcome in FINDINGS or result.soft_404:
        return True
    if result.outcome == Outcome.EXCLUDED:
        return entry.url.startswith(own)
    return result.outcome == Outcome.OK and outside_target(result.warning) is not None


def _one_url_a_file(referrers: list[Place]) -> int:
    """Keep the places of a file read at two URLs (``guide/`` and
    ``guide/index.html``, ``page`` and ``page.html``: its links are the
    same, from the same folder) once, those of its first URL; how many
    were dropped."""
    first: dict[str, str] = {}
    kept = []
    for referrer in referrers:
        file = referrer.get("file")
        if file is None or first.setdefault(file, referrer["url"]) == referrer["url"]:
            kept.append(referrer)
    dropped = len(referrers) - len(kept)
    if dropped:
        referrers[:] = kept
    return dropped


def _origin(url: str) -> str:
    """``scheme://host[:port]/`` of ``url``."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}/".lower()
