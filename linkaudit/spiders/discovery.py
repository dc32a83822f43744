"""Discovery: the links of a scanned page, and what becomes of each URL the
first time the audit meets it (settled now, or queued to be checked)."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import TYPE_CHECKING

from scrapy.http import Response, TextResponse

from linkaudit.items import UrlResult
from linkaudit.rules.html import extract_links
from linkaudit.rules.judge import Verdict
from linkaudit.rules.urls import InvalidURL, canonicalize

if TYPE_CHECKING:
    from linkaudit.spiders.linkaudit import LinkAuditSpider

logger = logging.getLogger(__name__)

Links = list[tuple[str, int | None]]


class Discovery:
    """The spider's part that meets URLs (a mixin of LinkAuditSpider)."""

    def _discover(
        self: LinkAuditSpider,
        url: str,
        depth: int,
        referer: str | None,
        outcome: str | None = None,
        error: str | None = None,
        judge: bool = False,
    ) -> Iterator[UrlResult]:
        """Note a URL; the first time, settle it now or put it in the frontier.

        ``judge``: the URL (canonical) has not been judged yet (a link found
        on a page); it is judged here, only the first time it is seen."""
        if self.state.discover(url, depth):
            yield from self._place(url, depth, referer, outcome, error, judge)

    def _place(
        self: LinkAuditSpider,
        url: str,
        depth: int,
        referer: str | None,
        outcome: str | None,
        error: str | None,
        judge: bool,
    ) -> Iterator[UrlResult]:
        """A URL seen for the first time: settled now, or put in the frontier."""
        if judge:
            _key, outcome, error = self.rules.judge(url)  # http(s): the key is the URL
        if outcome is not None:
            yield UrlResult(
                url=url, near=self.is_near(url), outcome=outcome, depth=depth, error=error
            )
        elif self.max_depth is None or depth <= self.max_depth:
            self.state.enqueue(url, depth, referer)
        # else: beyond the depth limit, reported as unchecked

    def _scan(
        self: LinkAuditSpider, response: Response, url: str, depth: int, truncated: bool = False
    ) -> tuple[Links, int, list[UrlResult]]:
        """The page's links, its number of images, and the results of new
        links settled on sight.

        A body that is not text (a PNG sent as text/html) has no links."""
        maxsize = self.config["LINKAUDIT_PAGE_MAXSIZE"]
        if truncated:
            self.crawler.stats.inc_value("linkaudit/pages_truncated")
            logger.info("%s is larger than %d bytes: the rest was not read", url, maxsize)
        if not isinstance(response, TextResponse):
            return [], 0, []
        text = response.text
        if truncated:  # the last chunk may reach past the cap; only cut pages are copied
            text = text[:maxsize]
        raw_links, base, images = extract_links(text)
        base_url = url
        if base is not None:
            try:
                base_url = canonicalize(base, url)
            except InvalidURL:
                pass  # the Standard: a base that does not parse is ignored
        links: Links = []
        found: list[UrlResult] = []
        resolved: dict[str, Verdict] = {}
        resolve = self.rules.resolve
        for value, line, _tag in raw_links:
            verdict = resolved.get(value)
            if verdict is None:
                verdict = resolved[value] = resolve(value, base_url)
            links.append((verdict[0], line))
        # each URL once, in the order found; the state is asked once per page
        verdicts = {verdict[0]: verdict for verdict in resolved.values()}
        keys = list(verdicts)
        for key, new in zip(keys, self.state.discover_many(keys, depth + 1), strict=True):
            if new:
                _key, outcome, error = verdicts[key]
                found.extend(self._place(key, depth + 1, url, outcome, error, outcome is None))
        self.crawler.stats.inc_value("linkaudit/pages")
        logger.debug("Scanned %s: %d links", url, len(links))
        return links, images, found
