"""Where URLs read back from the state become requests: the one door every
state's frontier goes through (memory, the audit database on resume, a
shared audit's Redis queue).

A state is data, not instructions: an audit database or a Redis record can
be altered by anyone who can write it, and Scrapy would read a
``file:///etc/passwd`` it was handed.  So each released URL is judged again
by the link rules (``LinkRules.judge_stored``: http(s) only, the canonical
form, the length bound, the guards) before it is requested; one that fails
is settled without a request, reported as the rules say (a ``file:`` URL
is ``excluded``), the referer it came with is kept only if it passes the
same rules, and a phase it owes only if it is one linkaudit writes.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from scrapy.http import Request

from linkaudit import internals
from linkaudit.items import UrlResult
from linkaudit.meta import ANCHORS, SITEMAP
from linkaudit.state.base import Pending

if TYPE_CHECKING:
    from linkaudit.spiders.linkaudit import LinkAuditSpider

logger = logging.getLogger(__name__)
# the requests a check may owe after its HEAD (see Pending): anything else a
# state holds starts the check from the beginning
_OWED = frozenset({None, "get", "fallback", ANCHORS, SITEMAP})


class Frontier:
    """The spider's part that releases the frontier (a mixin of LinkAuditSpider)."""

    def _release(
        self: LinkAuditSpider, level: Iterable[Pending]
    ) -> Iterator[Request | UrlResult]:
        """Each pending URL's first request, or its result when the link
        rules settle it without one (the state was altered)."""
        refused = 0
        given = frozenset(self.start_urls)  # the user's, not the state's: always asked
        for pending in level:
            url = pending.url
            outcome, error = (None, None) if url in given else self.rules.judge_stored(url)[1:]
            if outcome is not None:
                refused += 1
                if refused == 1:
                    logger.warning(
                        "A URL read back from the audit's state is not requested: %r (%s)",
                        url[:200],
                        error,
                    )
                self.crawler.stats.inc_value("linkaudit/stored_urls_refused")
                near, depth = self.is_near(url), pending.depth
                yield UrlResult(url=url, near=near, outcome=outcome, depth=depth, error=error)
                continue
            referer = pending.referer
            if referer and self.rules.judge_stored(referer).outcome is not None:
                pending = pending._replace(referer=None)
            if pending.phase not in _OWED:
                pending = pending._replace(phase=None)
            yield self._first_request(pending)
        if refused > 1:
            logger.warning("%d URLs read back from the audit's state were not requested", refused)

    def _crawl(self: LinkAuditSpider, level: Iterable[Pending]) -> None:
        """Release ``level`` outside a callback: requests to the engine,
        results to the item pipelines."""
        for thing in self._release(level):
            if isinstance(thing, Request):
                self.crawler.engine.crawl(thing)
            else:
                internals.send_item(self.crawler, thing)
