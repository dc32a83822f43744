"""Remember hosts that cannot be reached, for the rest of the run.

Scrapy caches successful DNS lookups only, and retries a dead host for each
of its URLs: a site linking 200 times to a host that is down would wait 200
timeouts.  After the first DNS failure, refused connection, connect
timeout or missing route on a host (``host:port``), its other requests fail
at once with the same error.  A timeout counts only while the host has never
answered in this run (its robots.txt is asked first, so that is where it
shows): a host that answers and is merely slow on one page is not condemned.

Setting: ``LINKAUDIT_HOST_FAILURE_CACHE`` (default True).
"""

from __future__ import annotations

import logging

from scrapy import Request
from scrapy.crawler import Crawler
from scrapy.exceptions import (
    CannotResolveHostError,
    DownloadConnectionRefusedError,
    NotConfigured,
)
from scrapy.http import Response
from scrapy.utils.httpobj import urlparse_cached
from twisted.internet import error as twisted_error

from linkaudit.config import config_of
from linkaudit.exceptions import HostUnreachable
from linkaudit.network.failures import is_timeout, no_route

logger = logging.getLogger(__name__)

_UNREACHABLE = (
    CannotResolveHostError,
    DownloadConnectionRefusedError,
    twisted_error.DNSLookupError,
    twisted_error.ConnectionRefusedError,
    twisted_error.TCPTimedOutError,
    twisted_error.NoRouteError,
)


class HostFailureCacheMiddleware:
    def __init__(self, crawler: Crawler):
        if not config_of(crawler)["LINKAUDIT_HOST_FAILURE_CACHE"]:
            raise NotConfigured
        self.stats = crawler.stats
        self.down: dict[str, BaseException] = {}
        self.answered: set[str] = set()

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> HostFailureCacheMiddleware:
        return cls(crawler)

    def process_request(self, request: Request, spider: object = None) -> None:
        cause = self.down.get(urlparse_cached(request).netloc)
        if cause is not None:
            self.stats.inc_value("linkaudit/host_failure_cache/hit")
            exc = HostUnreachable(str(cause))
            exc.__cause__ = cause
            raise exc

    def process_response(
        self, request: Request, response: Response, spider: object = None
    ) -> Response:
        self.answered.add(urlparse_cached(request).netloc)
        return response

    def process_exception(
        self, request: Request, exception: BaseException, spider: object = None
    ) -> None:
        host = urlparse_cached(request).netloc
        if isinstance(exception, HostUnreachable) or host in self.down:
            return
        if (
            isinstance(exception, _UNREACHABLE)
            or no_route(exception)
            or (is_timeout(exception) and host not in self.answered)
        ):
            self.down[host] = exception
            # the robots.txt middleware already says so in its own line
            level = logging.DEBUG if request.url.endswith("/robots.txt") else logging.INFO
            logger.log(
                level, "%s is unreachable (%s): its other URLs fail at once", host, exception
            )
