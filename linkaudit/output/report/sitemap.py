"""The sitemap and the crawl side by side (the report's ``sitemap``
section): what the sitemaps list that is broken or redirects, what they list
that no page links to (orphans), and the site's pages they leave out.

Worked out from the results alone, like missing fragments: a sitemap's
result keeps the URLs it lists (``UrlResult.sitemap``), every URL its
referrer count; a URL whose every referrer is a sitemap is an orphan.  Fed
by the report's one pass over the entries; the listed URLs' outcomes are
looked up after it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable

from linkaudit.items import Outcome
from linkaudit.output.report.records import SitemapFindings
from linkaudit.rules.urls import is_near
from linkaudit.state.base import Entry

# in the error of a sitemap an index lists and a bound kept from being read
SKIPPED_MARK = "(LINKAUDIT_SITEMAP_MAX"


class SitemapSection:
    """Sees every entry (:meth:`see`), then compares (:meth:`section`)."""

    def __init__(self, near: tuple[str, ...]) -> None:
        self.near = near
        self.sitemaps: list[str] = []
        self.listed: Counter[str] = Counter()
        self.pages: list[str] = []  # the near HTML pages the audit scanned
        self.skipped: list[str] = []  # past LINKAUDIT_SITEMAP_MAXDEPTH or _MAXCOUNT

    def see(self, entry: Entry) -> None:
        result = entry.result
        if result is None:
            return
        if result.outcome == Outcome.UNCHECKED and SKIPPED_MARK in (result.error or ""):
            self.skipped.append(entry.url)
        if result.sitemap is not None:
            self.sitemaps.append(entry.url)
            if result.sitemap["kind"] == "urlset":
                self.listed.update(result.sitemap["urls"])
        elif result.page is not None and is_near(entry.url, self.near):
            self.pages.append(entry.url)

    def section(
        self, find: Callable[[str], Entry | None], start_urls: Iterable[str]
    ) -> SitemapFindings | None:
        """None when no sitemap was read.  ``find``: a URL's entry."""
        if not self.sitemaps:
            return None
        listed, near = self.listed, self.near
        checked = {u: e for u in listed if (e := find(u)) is not None and e.result is not None}
        outcome = {u: e.result.outcome for u, e in checked.items() if e.result is not None}
        starts = set(start_urls)
        found: SitemapFindings = {
            "sitemaps": sorted(self.sitemaps),
            "urls": len(listed),
            "broken": sorted(u for u, o in outcome.items() if o == Outcome.BROKEN),
            "redirects": sorted(u for u, o in outcome.items() if o == Outcome.REDIRECT),
            # linked from sitemaps only (a URL listed twice counts its two listings)
            "orphans": sorted(
                u
                for u in listed
                if u not in starts
                and is_near(u, near)
                and (checked[u].referrer_count if u in checked else 0) <= listed[u]
            ),
            "missing": sorted(set(self.pages) - set(listed)),
        }
        if self.skipped:
            found["skipped"] = sorted(self.skipped)
        return found
