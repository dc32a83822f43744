"""Suggestions for broken near links (the report's ``suggestion`` on a
broken entry): the page the author most likely meant.

Worked out from the results alone in the report's one pass over the
entries (``linkaudit/output/report/sections.py``): what exists (near URLs found
ok, so also where redirects lead; the URLs a sitemap lists that were not
found broken) and what is broken near; once the pass is over, the ranking
(``linkaudit/rules/suggest.py``) matches them.  So every door and mode
(a crawl, a local build, ``linkaudit report`` from Redis) suggests the
same.
"""

from __future__ import annotations

from collections.abc import Callable

from linkaudit.items import Outcome
from linkaudit.rules.suggest import Suggester, SuggestionRecord
from linkaudit.rules.urls import is_near
from linkaudit.state.base import Entry


class Suggestions:
    """Sees every entry (:meth:`see`), then gives each broken near URL its
    suggestion (:meth:`suggest`)."""

    def __init__(self, near: tuple[str, ...], min_score: float) -> None:
        self.near = near
        self.min_score = min_score
        self.broken: list[str] = []
        # every ok near URL (the state's own strings), and whether each is an
        # HTML page, a byte each: no (URL, bool) tuple a URL (56 bytes)
        self.candidates: list[str] = []
        self.pages = bytearray()
        self.listed: list[str] = []  # near URLs a sitemap lists

    def see(self, entry: Entry) -> None:
        result = entry.result
        if result is None or not result.near:
            return
        if result.outcome == Outcome.BROKEN:
            self.broken.append(entry.url)
        elif result.outcome == Outcome.OK and not result.soft_404:
            self.candidates.append(entry.url)
            self.pages.append(result.page is not None)
        if result.sitemap is not None and result.sitemap.get("kind") == "urlset":
            self.listed.extend(u for u in result.sitemap.get("urls") or () if is_near(u, self.near))

    def suggest(self, find: Callable[[str], Entry | None]) -> dict[str, SuggestionRecord]:
        """Broken URL -> its ``suggestion``; what was gathered is freed.
        ``find``: a URL's entry (a sitemap's URL the audit did not check is
        taken as the sitemap says: it exists)."""
        if not self.broken:
            return {}
        suggester = Suggester(self.broken, self.min_score)
        for url, page in zip(self.candidates, self.pages, strict=True):
            suggester.offer(url, bool(page))
        for url in set(self.listed):
            entry = find(url)
            if entry is None or entry.result is None:
                suggester.offer(url)
        self.broken, self.candidates, self.pages, self.listed = [], [], bytearray(), []
        return {url: s.as_dict() for url, s in suggester.suggestions().items()}
