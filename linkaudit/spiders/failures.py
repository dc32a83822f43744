"""Failures: a request that got no HTTP answer, or that robots.txt kept us
from sending, and a check an exception of ours stopped (an internal error,
never a verdict on the link)."""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from scrapy.exceptions import IgnoreRequest
from scrapy.http import Request
from scrapy.utils.httpobj import urlparse_cached
from scrapy.utils.log import failure_to_exc_info
from twisted.python.failure import Failure

from linkaudit.extensions.drain import Interrupted
from linkaudit.items import UrlResult
from linkaudit.meta import CHECK_URL, DEPTH, HISTORY, PHASE
from linkaudit.middlewares.robots import RobotsBlocked
from linkaudit.network.failures import describe_failure, is_network_failure, is_timeout
from linkaudit.rules.statuses import BROKEN, internal_error

if TYPE_CHECKING:
    from linkaudit.spiders.linkaudit import LinkAuditSpider

logger = logging.getLogger(__name__)


class Failures:
    """The spider's errback (a mixin of LinkAuditSpider)."""

    def on_error(self: LinkAuditSpider, failure: Failure) -> Iterator[Any]:
        # Scrapy hands an exception raised in an errback to its own error
        # log, and the URL would silently stay unchecked: say why instead.
        try:
            yield from self._on_error(failure)
        except Exception:
            yield self.internal_error(failure.request, sys.exc_info())

    def _on_error(self: LinkAuditSpider, failure: Failure) -> Iterator[Any]:
        request = failure.request
        meta = request.meta
        url, phase = meta[CHECK_URL], meta[PHASE]
        exc = failure.value
        if isinstance(exc, Interrupted):
            return  # never sent: the report lists it unchecked
        if isinstance(exc, IgnoreRequest):
            error = str(exc) if isinstance(exc, RobotsBlocked) else "Disallowed by robots.txt"
            logger.info("%s %s not requested: %s", request.method, url, error)
            yield UrlResult(url, self.is_near(url), "blocked", meta[DEPTH], error=error)
        elif not is_network_failure(exc):
            yield self.internal_error(request, failure_to_exc_info(failure))
        elif phase == "head" and is_timeout(exc):
            logger.info("HEAD %s timed out: asking again with GET", url)
            yield self._next_request(request, "fallback")
        else:
            host = urlparse_cached(request).hostname or url
            error = describe_failure(exc, host=host, timeout=self.config["DOWNLOAD_TIMEOUT"])
            logger.info("%s %s failed: %s", request.method, url, error)
            result = UrlResult(
                url, self.is_near(url), BROKEN, meta[DEPTH], method=request.method, error=error
            )
            yield from self._maybe_ghost(result, meta.get(HISTORY))

    def internal_error(self: LinkAuditSpider, request: Request, exc_info: Any) -> UrlResult:
        """The check of ``request``'s URL was stopped by an exception of ours
        (``exc_info``, as ``sys.exc_info()`` gives it): an ERROR with the
        traceback in the log, and the URL ``unchecked``, never ``broken``."""
        meta = request.meta
        url = meta[CHECK_URL]
        logger.error(
            "Internal error while checking %s %s (a bug in linkaudit: please report it "
            "with this log)",
            request.method,
            url,
            exc_info=exc_info,
        )
        self.crawler.stats.inc_value("linkaudit/internal_errors")
        return UrlResult(
            url=url,
            near=self.is_near(url),
            outcome="unchecked",
            depth=meta[DEPTH],
            error=internal_error(exc_info[1]),
        )
