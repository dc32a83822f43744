"""A hint, once, when an audit at the polite default pace will take long.

One request a second to each host is right for someone else's server and
slow for one's own: a 2,000-page site takes over half an hour.  So
every ``LINKAUDIT_PACE_HINT_AFTER`` seconds of an audit whose delay is the
default, until it is said once: if the URLs still to check would take more than
``LINKAUDIT_PACE_HINT_LONG`` seconds at that pace, one warning says how to
go faster.  The estimate counts every queued URL at one delay each: the
site's own host, the one that waits, holds most of them.

Settings: ``LINKAUDIT_PACE_HINT`` (default True; the ``linkaudit`` command
turns it off when the delay is the user's choice: ``--delay``, ``-s
DOWNLOAD_DELAY``, a build directory or the demo),
``LINKAUDIT_PACE_HINT_AFTER`` (20 s), ``LINKAUDIT_PACE_HINT_LONG`` (300 s).
"""

from __future__ import annotations

import logging
from typing import Any

from scrapy import signals
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from twisted.internet import task

from linkaudit import internals
from linkaudit.audit import audit_of
from linkaudit.config import config_of

logger = logging.getLogger(__name__)


class PaceHint:
    def __init__(self, crawler: Crawler, delay: float, after: float, long: float):
        self.crawler = crawler
        self.delay, self.after, self.long = delay, after, long
        self.call: Any = None
        crawler.signals.connect(self.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(self.spider_closed, signal=signals.spider_closed)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> PaceHint:
        config = config_of(crawler)
        delay = crawler.settings.getfloat("DOWNLOAD_DELAY")
        if not config["LINKAUDIT_PACE_HINT"] or delay < 0.5:  # off, or fast already
            raise NotConfigured
        return cls(
            crawler,
            delay,
            config["LINKAUDIT_PACE_HINT_AFTER"],
            config["LINKAUDIT_PACE_HINT_LONG"],
        )

    def spider_opened(self, spider: Any) -> None:
        self.call = task.LoopingCall(self.check)
        self.call.start(max(self.after, 0.5), now=False)

    def queued(self) -> int:
        audit = audit_of(self.crawler)
        waiting = audit.state.waiting() if audit is not None else 0
        return waiting + internals.scheduler_size(self.crawler)

    def check(self) -> None:
        queued = self.queued()
        if queued * self.delay < self.long:
            return
        self.call.stop()  # said once
        minutes = max(1, round(queued * self.delay / 60))
        logger.warning(
            "about %d URLs are still to check at one request every %g s per host (the polite "
            "default): about %d min more. For a server you own, --delay 0 is much faster "
            "(scrapy crawl: -s DOWNLOAD_DELAY=0).",
            queued,
            self.delay,
            minutes,
        )

    def spider_closed(self, spider: Any) -> None:
        if self.call is not None and self.call.running:
            self.call.stop()
