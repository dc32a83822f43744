"""What is known before a request: what earlier audits knew (the audit
database: a URL answered from its last check or by a 304, and ghost links,
a near page that fails now still has its last known links followed), and
what the walk of a local build found before the crawl (``linkaudit/localbuild/``)."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Iterator
from dataclasses import replace
from typing import Any

from linkaudit.audit import Audit
from linkaudit.components.answers import STORED, Reply
from linkaudit.components.discovery import Discovery
from linkaudit.items import Outcome, UrlResult
from linkaudit.meta import ANCHORS
from linkaudit.rules.recheck import History, iso
from linkaudit.rules.urls import InvalidURL, canonicalize

logger = logging.getLogger(__name__)


class Replay:
    """What is known before a request, handed on as results."""

    def __init__(self, audit: Audit, discovery: Discovery):
        self.audit = audit
        self.state = audit.state
        self.policy = audit.config.policy
        self.discovery = discovery

    def walk_results(self) -> Iterator[UrlResult]:
        """The walk's results, handed on as the crawl's own (the pipelines
        record them, feeds export them); its pages and the requests the
        build would have had are counted as the crawl counts its own."""
        walked = self.audit.walked
        if walked is None:
            return
        self.audit.walked = None  # its items are the pipelines' from here
        self.audit.count("linkaudit/pages", walked.pages)
        self.audit.count("downloader/request_count", walked.requests)
        self.audit.link_faults |= walked.link_faults
        yield from walked.items

    def replay(self, history: History, reply: Reply) -> Iterator[Any]:
        """A URL not requested (checked recently: ``from_cache``) or a page
        that answered 304: its stored outcome and links, as if checked now."""
        url, depth = reply.url, reply.depth
        cached = reply.via == STORED
        fields: dict[str, Any] = {
            "url": url,
            "near": self.audit.is_near(url),
            "depth": depth,
            "links": list(history.links or ()),
            "stored_links": True,
            "from_cache": cached,
            "not_modified": not cached,
            "checked_at": iso(history.checked_at) if cached else None,
            "referrers": [],
            "referrer_count": 0,
        }
        if not cached:
            etag = reply.headers.get(b"ETag")
            fields["method"] = reply.method
            fields["etag"] = etag.decode("latin-1") if etag else history.etag
            self.audit.count("linkaudit/not_modified")
        else:
            self.audit.count("linkaudit/from_cache")
        result = replace(history.result, **fields)
        if result.fragments:  # its links to fragments: those far pages are read
            self.state.mark(ANCHORS, list(dict.fromkeys(f[0] for f in result.fragments)))
        yield result
        # a redirect's target is requested from the redirect's own referrer
        referrer = reply.referrer if result.outcome == Outcome.REDIRECT else url
        yield from self.follow_stored(result.links, referrer, depth)

    def maybe_ghost(self, result: UrlResult, history: History | None) -> Iterator[Any]:
        """A near page that fails now still has its last known links followed
        for LINKAUDIT_FOLLOW_GHOST seconds after it last answered."""
        near = self.audit.is_near(result.url)
        links = self.policy.ghost_links(history, time.time()) if near else []
        if not links:
            yield result
            return
        assert history is not None and history.last_ok_at is not None
        logger.info(
            "%s failed (%s): following its %d links from %s",
            result.url,
            result.error,
            len(links),
            iso(history.last_ok_at),
        )
        self.audit.count("linkaudit/ghost_pages")
        yield replace(result, links=list(links), stored_links=True)
        yield from self.follow_stored(links, result.url, result.depth)

    def follow_stored(
        self,
        links: Iterable[tuple[str, int | None]],
        referrer: str | None,
        depth: int,
    ) -> Iterator[UrlResult]:
        """Discover stored link targets, as Discovery.scan() does with a page's links
        (their requests come from ``referrer``: the page, or a redirect's own).
        Targets are stored canonical, so they are only judged again (the
        rules may have changed since), except a link that never was a URL:
        it is broken again, with the words it had."""
        for key in dict.fromkeys(target for target, _line in links):
            try:
                valid = canonicalize(key) == key
            except InvalidURL:
                valid = False
            if valid:
                outcome, error, judge = None, None, True
            else:
                before = self.state.history(key)
                outcome, judge = Outcome.BROKEN, False
                error = before.result.error if before else "Invalid URL"
            yield from self.discovery.discover(key, depth + 1, referrer, outcome, error, judge)
