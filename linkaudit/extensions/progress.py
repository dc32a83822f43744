"""A live status line on the terminal: URLs checked, queued, broken so far,
requests per second and time elapsed, redrawn a few times a second.

Settings: ``LINKAUDIT_PROGRESS`` (default False; the ``linkaudit`` command
turns it on when its stdout is a terminal and it is not ``--quiet``) and
``LINKAUDIT_PROGRESS_INTERVAL`` (seconds between redraws, default 0.25).
The line is drawn on stdout with a carriage return and erased when the
audit ends, so the summary printed after it starts on a clean line; a log
line (a warning, the pace hint) erases it first, so it is a line of its
own (``output/status.py``, ``TerminalLine``).
"""

from __future__ import annotations

import sys
import time
from typing import Any, TextIO

from scrapy import signals
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from twisted.internet import task

from linkaudit import internals
from linkaudit.audit import audit_of
from linkaudit.config import config_of
from linkaudit.items import Outcome, UrlResult
from linkaudit.output.status import TerminalLine, status_line
from linkaudit.state.base import ProgressCounts


class Progress:
    def __init__(self, crawler: Crawler, interval: float, stream: TextIO):
        self.crawler = crawler
        self.interval = interval
        self.line = TerminalLine(stream)
        self.checked = self.broken = 0
        self.started = time.monotonic()
        self.loop: task.LoopingCall | None = None
        crawler.signals.connect(self.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(self.item_scraped, signal=signals.item_scraped)
        crawler.signals.connect(self.spider_closed, signal=signals.spider_closed)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Progress:
        config = config_of(crawler)
        if not config["LINKAUDIT_PROGRESS"]:
            raise NotConfigured
        return cls(crawler, config["LINKAUDIT_PROGRESS_INTERVAL"], sys.stdout)

    def spider_opened(self, spider: Any) -> None:
        self.started = time.monotonic()
        self.loop = task.LoopingCall(self.draw)
        self.loop.start(self.interval, now=True)

    def item_scraped(self, item: Any, spider: Any) -> None:
        if isinstance(item, UrlResult):
            self.checked += 1
            self.broken += item.outcome == Outcome.BROKEN

    def queued(self) -> int:
        """Frontier, scheduler and downloads in flight."""
        audit = audit_of(self.crawler)
        queued = audit.state.waiting() if audit is not None else 0
        return queued + internals.scheduler_size(self.crawler) + internals.in_flight(self.crawler)

    def draw(self) -> None:
        checked, queued, broken = self.checked, self.queued(), self.broken
        audit = audit_of(self.crawler)
        if audit is not None:  # a shared audit's: every worker's
            counts = ProgressCounts(checked, queued, broken)
            checked, queued, broken = audit.state.progress(counts)
        line = status_line(
            checked,
            queued,
            broken,
            self.crawler.stats.get_value("downloader/request_count", 0),
            time.monotonic() - self.started,
        )
        self.line.draw(line)

    def spider_closed(self, spider: Any) -> None:
        if self.loop is not None and self.loop.running:
            self.loop.stop()
        self.line.close()
