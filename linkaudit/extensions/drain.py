"""A prompt close: requests not yet sent are dropped when the audit closes
early (see :class:`DrainOnClose`)."""

from __future__ import annotations

import logging

from scrapy import signals
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from twisted.internet import task
from twisted.python.failure import Failure

from linkaudit import internals
from linkaudit.config import config_of
from linkaudit.exceptions import Interrupted

logger = logging.getLogger(__name__)


class DrainOnClose:
    """When the audit closes early (Ctrl-C, SIGTERM, a hit or time limit),
    drop the requests still waiting in the downloader's per-host queues.

    Scrapy's graceful close waits for every request handed to the
    downloader, sent or not: with 16 queued for one slow host that can be
    minutes, and a hit limit overshoots by as many.  Only requests already
    on the wire are waited for (at most ``DOWNLOAD_TIMEOUT`` of the
    server's time: seconds our own code held the event loop are added, up
    to one more timeout, see ``linkaudit/network/looplag.py``); the dropped
    ones fail with :class:`Interrupted` and end ``unchecked`` in the report.

    Scrapy has no signal for "closing has begun", so the engine is looked at
    every ``LINKAUDIT_DRAIN_INTERVAL`` seconds (default 0.1), through
    ``linkaudit/internals.py``.
    Setting: ``LINKAUDIT_DRAIN_ON_CLOSE`` (default True).
    """

    def __init__(self, crawler: Crawler):
        config = config_of(crawler)
        if not config["LINKAUDIT_DRAIN_ON_CLOSE"]:
            raise NotConfigured
        self.crawler = crawler
        self.interval = config["LINKAUDIT_DRAIN_INTERVAL"]
        self.loop = task.LoopingCall(self._check)
        crawler.signals.connect(self.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(self.spider_closed, signal=signals.spider_closed)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> DrainOnClose:
        return cls(crawler)

    def spider_opened(self) -> None:
        self.loop.start(self.interval, now=False)

    def spider_closed(self) -> None:
        if self.loop.running:
            self.loop.stop()

    def _check(self) -> None:
        if not internals.engine_closing(self.crawler):
            return
        dropped = 0
        for _request, deferred in internals.queued_downloads(self.crawler):
            deferred.errback(Failure(Interrupted("the audit is closing")))
            dropped += 1
        if dropped:
            logger.info("Closing: %d queued requests dropped (left unchecked)", dropped)
