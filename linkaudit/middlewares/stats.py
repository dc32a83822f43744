"""Downloader statistics without serialising every request.

Scrapy's DownloaderStats measures ``downloader/request_bytes`` by building
each request's full HTTP text (``request_httprepr``); on the benchmark's
10,000-page site that was a tenth of the audit's CPU.  This one counts the
same things but the request bytes; ``summary.requests`` of the report comes
from ``downloader/request_count``.  ``DOWNLOADER_STATS = False`` turns it off
(and the report's request count with it).
"""

from __future__ import annotations

from scrapy import Request
from scrapy.downloadermiddlewares.stats import DownloaderStats as ScrapyDownloaderStats
from scrapy.http import Response

from linkaudit.meta import RENDER


class DownloaderStats(ScrapyDownloaderStats):
    """A page's render (--render) is no request of ours: the browser is
    given the page's answer; its own requests are counted as it sends them
    (``linkaudit/rendering/browser.py``)."""

    def process_request(self, request: Request, spider: object = None) -> None:
        if RENDER in request.meta:
            return None
        self.stats.inc_value("downloader/request_count")
        self.stats.inc_value(f"downloader/request_method_count/{request.method}")
        return None

    def process_response(
        self, request: Request, response: Response, spider: object = None
    ) -> Response:
        if RENDER in request.meta:
            return response
        return super().process_response(request, response)
