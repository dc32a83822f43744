"""Log records below ``LOG_LEVEL`` are never built (see :class:`LogLevel`)."""

from __future__ import annotations

import logging

from scrapy import signals
from scrapy.crawler import Crawler

from linkaudit.config import config_of
from linkaudit.output.logrecords import escape_log_records, name_build_in_log


class LogLevel:
    """Set Scrapy's loggers to ``LOG_LEVEL`` when the engine starts.

    Scrapy's logging configuration sets the ``scrapy`` logger to DEBUG and
    filters in its root handler, so each response's "crawled" line and each
    item's "scraped" line is built as a record (the caller's frame looked
    up, the arguments kept) and then thrown away by the handler: about
    10 µs each, two per URL, with ``-q`` as without.  At ``LOG_LEVEL`` the
    records the handler would drop are not made; what the log shows is the
    same.  (Scrapy installs its logging when the crawl starts, after the
    components are built: hence the signal.)
    """

    def __init__(self, crawler: Crawler):
        self.crawler = crawler
        self.level = crawler.settings.get("LOG_LEVEL")
        # and every message shown escaped, as the formats show values (for
        # scrapy crawl; the command installs it at its start)
        escape_log_records()
        crawler.signals.connect(self.engine_started, signal=signals.engine_started)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> LogLevel:
        return cls(crawler)

    def engine_started(self) -> None:
        # a build directory's URLs named as its outputs name them (scrapy
        # crawl -a local_dir=...: its configuration is the spider's by now)
        name_build_in_log(config_of(self.crawler).names)
        level = self.level
        if not isinstance(level, int):
            level = logging.getLevelName(str(level))
            if not isinstance(level, int):  # not a level: Scrapy's handler says so
                return
        for name in ("scrapy", ""):  # Scrapy's loggers, and every other's
            logger = logging.getLogger(name)
            if logger.getEffectiveLevel() < level:
                logger.setLevel(level)
