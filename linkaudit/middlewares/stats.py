"""Downloader statistics without serialising every request, and a request
counted when it is sent.

Scrapy's DownloaderStats measures ``downloader/request_bytes`` by building
each request's full HTTP text (``request_httprepr``); on the benchmark's
10,000-page site that was a tenth of the audit's CPU.  This one counts the
same things but the request bytes; ``summary.requests`` of the report comes
from ``downloader/request_count``.  ``DOWNLOADER_STATS = False`` turns it off
(and the report's request count with it).

A request is counted as it is handed to the network (``request_sent``, sent
by the download handler), not as it enters the downloader, where Scrapy
counts it: a request waits there for its host's delay or a free connection,
and one that never leaves (dropped when the audit closes early, taken back
for a host's ``Retry-After``) was never seen by a server.  An interrupted
audit counted them all: 24 requests reported, 8 received.  Now the count is
what the servers were sent, for a finished audit and an interrupted one
alike, as a shared audit counts it in Redis (``state/redis/counting.py``).
"""

from __future__ import annotations

from scrapy import Request
from scrapy.crawler import Crawler
from scrapy.downloadermiddlewares.stats import DownloaderStats as ScrapyDownloaderStats
from scrapy.http import Response

from linkaudit.meta import RENDER
from linkaudit.signals import request_sent


class DownloaderStats(ScrapyDownloaderStats):
    """A page's render (--render) is no request of ours: the browser is
    given the page's answer; its own requests are counted as it sends them
    (``linkaudit/rendering/browser.py``)."""

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> DownloaderStats:
        middleware = super().from_crawler(crawler)
        crawler.signals.connect(middleware.request_sent, signal=request_sent)
        return middleware

    def process_request(self, request: Request, spider: object = None) -> None:
        return None  # counted when sent (below)

    def request_sent(self, request: Request) -> None:
        # the browser's requests (sent with their page's render) are counted
        # by the browser, a render at a time
        if RENDER in request.meta:
            return
        self.stats.inc_value("downloader/request_count")
        self.stats.inc_value(f"downloader/request_method_count/{request.method}")

    def process_response(
        self, request: Request, response: Response, spider: object = None
    ) -> Request | Response:
        if RENDER in request.meta:
            return response
        return super().process_response(request, response)
