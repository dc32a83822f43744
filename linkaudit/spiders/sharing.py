"""Working on a shared audit (a state in Redis): claims are small, so hosts
spread over the workers, and the frontier here may be empty while other
workers still produce work: the worker waits, and closes when the audit is
over for every worker."""

from __future__ import annotations

from typing import TYPE_CHECKING

from scrapy import signals
from scrapy.exceptions import CloseSpider, DontCloseSpider
from scrapy.utils.defer import deferred_from_coro
from twisted.internet import task

from linkaudit import internals

if TYPE_CHECKING:
    from linkaudit.spiders.linkaudit import LinkAuditSpider


class Sharing:
    """The spider's part for shared audits (a mixin of LinkAuditSpider)."""

    _feeder: task.LoopingCall | None = None

    @property
    def claim_size(self: LinkAuditSpider) -> int:
        return 2 * self.config["CONCURRENT_REQUESTS"]

    def _batch(self: LinkAuditSpider) -> int | None:
        """URLs taken from the frontier at once."""
        return self.claim_size if self.state.shared else self.release_batch

    def _start_feeding(self: LinkAuditSpider) -> None:
        self._feeder = task.LoopingCall(self._feed)
        self._feeder.start(self.config["LINKAUDIT_REDIS_POLL"], now=False)
        self.crawler.signals.connect(self._stop_feeding, signal=signals.spider_closed)

    def _stop_feeding(self: LinkAuditSpider) -> None:
        if self._feeder is not None and self._feeder.running:
            self._feeder.stop()

    def _feed(self: LinkAuditSpider) -> None:
        """Keep this worker supplied with claims (Scrapy's idle signal comes
        only every 5 s), and close when the audit is over."""
        crawler = self.crawler
        if internals.engine_closing(crawler):
            return
        reason = self.state.over()
        if reason is not None:
            self._stop_feeding()
            deferred_from_coro(crawler.engine.close_spider_async(reason=reason))
            return
        size = self.claim_size
        if internals.scheduler_size(crawler) + internals.in_flight(crawler) >= size // 2:
            return
        self._crawl(self.state.next_level(size))

    def _idle_while_shared(self: LinkAuditSpider) -> None:
        """Nothing to claim: wait while the audit goes on elsewhere."""
        reason = self.state.over()
        if reason is None:
            raise DontCloseSpider
        if reason != "finished":
            raise CloseSpider(reason)
