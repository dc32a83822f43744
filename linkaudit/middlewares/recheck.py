"""Incremental audits: answer from the audit database, or ask conditionally.

On the first request of each URL's check (meta ``la_first``) the middleware
looks the URL up in the state's history (linkaudit/state/: only the audit
database remembers earlier audits; the memory state answers None):

- checked recently enough (linkaudit/rules/recheck.py): the request never
  leaves the process.  Like Scrapy's HttpCacheMiddleware, the middleware
  answers with a response of its own, flagged ``cached``, and the spider
  reports the stored outcome with ``from_cache``.  It runs before the
  robots.txt middleware, so a host whose URLs are all fresh is not asked
  for robots.txt either.
- a page scanned before, with an ``ETag`` or ``Last-Modified``: its requests
  carry ``If-None-Match`` / ``If-Modified-Since``; a 304 tells the spider to
  reuse the stored links without downloading the page.

The history rides along in ``request.meta["la_history"]`` (the spider copies
it to the GET that follows a HEAD), for the 304 and for ghost links.

A state that remembers nothing across audits (the memory state, Redis: their
``history`` is the base class's, always None) leaves the middleware out of
the chain: one step less for every request.
"""

from __future__ import annotations

import time
from typing import Any

from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from scrapy.http import Request, Response

from linkaudit.audit import audit_of
from linkaudit.meta import CACHED, CHECK_URL, FIRST, HISTORY


class RecheckMiddleware:
    def __init__(self, crawler: Crawler):
        audit = audit_of(crawler)
        if audit is None or not audit.state.remembers:
            raise NotConfigured  # nothing to look up (or not our spider's crawl)
        self.state = audit.state
        self.policy = audit.config.policy

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> RecheckMiddleware:
        return cls(crawler)

    def process_request(self, request: Request, spider: Any = None) -> Response | None:
        meta = request.meta
        if meta.pop(FIRST, False):
            history = self.state.history(meta[CHECK_URL])
            if history is None:
                return None
            meta[HISTORY] = history
            if self.policy.fresh(history, time.time()):
                return Response(request.url, status=200, request=request, flags=[CACHED])
        history = meta.get(HISTORY)
        if history is not None and history.links is not None and history.result.page:
            if history.etag:
                request.headers.setdefault(b"If-None-Match", history.etag)
            if history.last_modified:
                request.headers.setdefault(b"If-Modified-Since", history.last_modified)
        return None
