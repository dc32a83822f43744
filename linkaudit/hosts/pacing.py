"""The per-host delay as the server sees it (see :class:`DelayMargin`)."""

from __future__ import annotations

from scrapy import signals
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured

from linkaudit import internals
from linkaudit.config import config_of


class DelayMargin:
    """Space the requests to a host by ``DOWNLOAD_DELAY`` plus
    ``LINKAUDIT_DELAY_MARGIN`` (default 0.1 s; 0 turns it off).

    Scrapy's downloader times the delay from the moment it takes a request
    off a host's queue; the request reaches the server later, by however
    long the event loop is busy (parsing a page, connecting).  On a loaded
    machine that varies by tens of milliseconds, so two requests could
    arrive closer than the delay the user asked for.  The margin makes the
    delay a floor as the server measures it.  Like Scrapy's AutoThrottle,
    it sets the delay new download slots start with, when the spider opens.
    """

    def __init__(self, crawler: Crawler):
        config = config_of(crawler)
        self.margin = config["LINKAUDIT_DELAY_MARGIN"]
        self.delay = config["DOWNLOAD_DELAY"]
        if self.margin <= 0 or self.delay <= 0:
            raise NotConfigured
        self.crawler = crawler
        crawler.signals.connect(self.spider_opened, signal=signals.spider_opened)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> DelayMargin:
        return cls(crawler)

    def spider_opened(self) -> None:
        internals.set_default_delay(self.crawler, self.delay + self.margin)
