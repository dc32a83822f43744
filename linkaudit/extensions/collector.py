"""Python's garbage collector paced for a crawl (see :class:`GarbageCollection`)."""

from __future__ import annotations

import gc

from scrapy import signals
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured

from linkaudit.config import config_of


class GarbageCollection:
    """When the engine starts, the youngest generation of Python's cyclic
    garbage collector is collected every ``LINKAUDIT_GC_THRESHOLD``
    allocations (default 10,000) instead of Python's 700, and the objects
    alive at that moment (the modules, Scrapy's and Twisted's classes, the
    settings: they live as long as the process) are set aside for good
    (``gc.freeze()``, once per process).

    Why: Scrapy's and Twisted's machinery allocates about 240 container
    objects per request (Deferreds, dicts, the page's links): on PostgreSQL's
    documentation a collection every third request, and every hundredth a
    full one that walks the start-up's 70,000 objects again, as does the
    command's collection before it reads the report back.  Pacing and
    freezing took 9 % off the CPU of that audit (1,167 pages), 14 % off a
    50-page site's.  Cycles are still collected, every few dozen requests:
    the peak memory of the benchmark's audits did not change (125 MB at
    10,000 pages).  0 leaves the collector as Python sets it.
    """

    def __init__(self, crawler: Crawler):
        self.threshold = config_of(crawler)["LINKAUDIT_GC_THRESHOLD"]
        if not self.threshold:
            raise NotConfigured
        self.before = gc.get_threshold()
        crawler.signals.connect(self.engine_started, signal=signals.engine_started)
        crawler.signals.connect(self.engine_stopped, signal=signals.engine_stopped)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> GarbageCollection:
        return cls(crawler)

    def engine_started(self) -> None:
        if not gc.get_freeze_count():  # a second crawl in this process: frozen already
            gc.freeze()
        gc.set_threshold(self.threshold, *self.before[1:])

    def engine_stopped(self) -> None:
        gc.set_threshold(*self.before)
