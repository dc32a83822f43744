"""Politeness that Scrapy parses but does not apply: robots.txt
``Crawl-delay`` (see :class:`CrawlDelay`)."""

from __future__ import annotations

import logging

from scrapy import signals
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from scrapy.http import Request
from scrapy.robotstxt import RobotParser

logger = logging.getLogger(__name__)


class CrawlDelay:
    """Apply robots.txt ``Crawl-delay`` for our user agent to that host.

    Scrapy (2.18+) parses it (``RobotParser.crawl_delay``) but leaves the
    download slot's delay alone.  The delay can only be raised, and is capped
    by ``LINKAUDIT_MAX_CRAWL_DELAY`` (default 30 s; 0 ignores Crawl-delay) so
    that a robots.txt cannot stall an audit for hours.
    """

    def __init__(self, crawler: Crawler):
        if not crawler.settings.getbool("ROBOTSTXT_OBEY"):
            raise NotConfigured
        self.cap = crawler.settings.getfloat("LINKAUDIT_MAX_CRAWL_DELAY", 30.0)
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
        downloader = self.crawler.engine.downloader
        key = downloader.get_slot_key(request)
        slot = downloader.slots.get(key)
        if slot is None:
            return
        delay = min(float(delay), self.cap)
        if delay > slot.delay:
            logger.info("robots.txt of %s asks Crawl-delay %g s: applied", key, delay)
            slot.delay = delay
