"""A fault of ours is never a verdict on someone's link.

Spider middleware: an exception raised while the spider judges a response
(a bug in linkaudit's callback, or in a spider middleware after it) would be
logged by Scrapy and the URL left without a result.  Here it is turned into
the URL's result: ``unchecked``, with an ``error`` that starts with
``Internal error:``, and an ERROR with the traceback in the log (see
``linkaudit.audit.Audit.internal_error``).  The spider's errback and the report
pipeline do the same for their own exceptions.

On by default (``SPIDER_MIDDLEWARES``); nothing to configure.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from scrapy.http import Response

from linkaudit.audit import audit_of
from linkaudit.meta import CHECK_URL


class InternalErrorMiddleware:
    def __init__(self, crawler: Crawler):
        audit = audit_of(crawler)
        if audit is None:
            raise NotConfigured  # not our spider's crawl: no check of ours to settle
        self.audit = audit

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> InternalErrorMiddleware:
        return cls(crawler)

    def process_spider_exception(
        self, response: Response, exception: Exception
    ) -> Iterable[Any] | None:
        request = response.request
        if request is None or CHECK_URL not in request.meta:
            return None  # not a link check of ours: Scrapy's handling
        exc_info = (type(exception), exception, exception.__traceback__)
        return [self.audit.internal_error(request, exc_info)]
