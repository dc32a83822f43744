"""Politeness that Scrapy parses but does not apply: robots.txt
``Crawl-delay`` (see :class:`CrawlDelay`)."""

from __future__ import annotations

import logging

from scrapy import signals
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from scrapy.http import Request
from scrapy.robotstxt import RobotParser
from scrapy.utils.httpobj import urlparse_cached

from linkaudit import internals
from linkaudit.config import config_of

logger = logging.getLogger(__name__)


class CrawlDelay:
    """Apply robots.txt ``Crawl-delay`` for our user agent to that host.

    Scrapy (2.18+) parses it (``RobotParser.crawl_delay``) but leaves the
    download slot's delay alone.  The delay can only be raised, and is capped
    by ``LINKAUDIT_MAX_CRAWL_DELAY`` (default 30 s; 0 ignores Crawl-delay) so
    that a robots.txt cannot stall an audit for hours.
    """

    def __init__(self, crawler: Crawler):
        config = config_of(crawler)
        if not config["ROBOTSTXT_OBEY"]:
            raise NotConfigured
        self.cap = config["LINKAUDIT_MAX_CRAWL_DELAY"]
        self.margin = config["LINKAUDIT_DELAY_MARGIN"]  # as for DOWNLOAD_DELAY
        if self.cap <= 0:
            raise NotConfigured
        self.crawler = crawler
        self.user_agent = (
            crawler.settings.get("ROBOTSTXT_USER_AGENT") or crawler.settings["USER_AGENT"]
        )
        crawler.signals.connect(self.robots_parsed, signal=signals.robots_parsed)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> CrawlDelay:
        return cls(crawler)

    def robots_parsed(self, robotparser: RobotParser, request: Request) -> None:
        delay = robotparser.crawl_delay(self.user_agent)
        if not delay:
            return
        slot = internals.download_slot(self.crawler, request)
        if slot is None:
            return
        delay = min(float(delay), self.cap)
        if delay + self.margin > slot.delay:
            host = urlparse_cached(request).netloc
            logger.info("robots.txt of %s asks Crawl-delay %g s: applied", host, delay)
            slot.delay = delay + self.margin
