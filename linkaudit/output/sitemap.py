"""The sitemap and the crawl side by side (the report's ``sitemap``
section): what the sitemaps list that is broken or redirects, what they list
that no page links to (orphans), and the site's pages they leave out.

Worked out from the results alone, like missing fragments: a sitemap's
result keeps the URLs it lists (``UrlResult.sitemap``), every URL its
referrer count; a URL whose every referrer is a sitemap is an orphan.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from linkaudit.rules.urls import is_near
from linkaudit.state.base import Entry

# in the error of a sitemap an index lists and a bound kept from being read
SKIPPED_MARK = "(LINKAUDIT_SITEMAP_MAX"


def sitemap_section(
    entries: Iterable[Entry], start_urls: Iterable[str], near: tuple[str, ...]
) -> dict[str, Any] | None:
    """None when no sitemap was read."""
    sitemaps: list[str] = []
    listed: Counter[str] = Counter()
    outcome: dict[str, str] = {}
    counts: dict[str, int] = {}
    pages: list[str] = []
    skipped: list[str] = []  # past LINKAUDIT_SITEMAP_MAXDEPTH or _MAXCOUNT: never requested
    for entry in entries:
        result = entry.result
        if result is None:
            continue
        if result.outcome == "unchecked" and SKIPPED_MARK in (result.error or ""):
            skipped.append(entry.url)
        outcome[entry.url] = result.outcome
        counts[entry.url] = entry.referrer_count
        if result.sitemap is not None:
            sitemaps.append(entry.url)
            if result.sitemap["kind"] == "urlset":
                listed.update(result.sitemap["urls"])
        elif result.page is not None and is_near(entry.url, near):
            pages.append(entry.url)  # a near HTML page the audit scanned
    if not sitemaps:
        return None
    starts = set(start_urls)
    return {
        "sitemaps": sorted(sitemaps),
        "urls": len(listed),
        "broken": sorted(u for u in listed if outcome.get(u) == "broken"),
        "redirects": sorted(u for u in listed if outcome.get(u) == "redirect"),
        # linked from sitemaps only (a URL listed twice counts its two listings)
        "orphans": sorted(
            u
            for u in listed
            if u not in starts and is_near(u, near) and counts.get(u, 0) <= listed[u]
        ),
        "missing": sorted(set(pages) - set(listed)),
        **({"skipped": sorted(skipped)} if skipped else {}),
    }
