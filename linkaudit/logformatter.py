"""Log lines: one INFO line per response (method, status, URL); the
reasoning stays at DEBUG (every message escaped: ``logrecords.py``)."""

from __future__ import annotations

import logging
from typing import Any

from scrapy.logformatter import LogFormatter, LogFormatterResult


class LinkAuditLogFormatter(LogFormatter):
    def crawled(self, request: Any, response: Any, spider: Any) -> LogFormatterResult:
        return {
            "level": logging.INFO,
            "msg": "%(method)s %(status)s %(url)s",
            "args": {"method": request.method, "status": response.status, "url": request.url},
        }

    def dropped(
        self, item: Any, exception: BaseException, response: Any, spider: Any
    ) -> LogFormatterResult:
        # only soft-404 probes are dropped, by design
        return {"level": logging.DEBUG, "msg": "%(exception)s", "args": {"exception": exception}}

    def scraped(self, item: Any, response: Any, spider: Any) -> LogFormatterResult:
        # Scrapy logs the whole item at DEBUG; the url and outcome are enough.
        return {
            "level": logging.DEBUG,
            "msg": "%(outcome)s %(url)s",
            "args": {"outcome": getattr(item, "outcome", "?"), "url": getattr(item, "url", "?")},
        }
