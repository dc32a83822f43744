"""Item pipelines: gather the points-to edges and outcomes; write the report."""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Any

from scrapy import Spider, signals
from scrapy.crawler import Crawler
from scrapy.exceptions import DropItem
from twisted.python.failure import Failure

from linkaudit.audit import Audit, audit_of
from linkaudit.config import config_of
from linkaudit.items import UrlResult
from linkaudit.output.recording import record, write_final_report
from linkaudit.output.report.build import now_iso
from linkaudit.output.report.facts import report_facts
from linkaudit.output.report.naming import named_item
from linkaudit.output.report.revisions import revisions
from linkaudit.rules.soft404 import is_probe
from linkaudit.rules.statuses import internal_error
from linkaudit.signals import report_settled, report_written
from linkaudit.state.base import Totals

logger = logging.getLogger(__name__)


class ReportPipeline:
    """Records every URL's outcome and every link occurrence in the audit's
    state, and writes the report when the spider closes, whatever the reason.

    The report is written on ``spider_closed`` rather than in
    ``close_spider``: only the signal carries the close reason
    (``finished``, ``closespider_pagecount``, ``shutdown``...).
    Setting: ``LINKAUDIT_REPORT`` (default ``linkaudit-report.json``), the
    spider argument ``report=`` overrides it.

    The state keeps each outcome as checked; the item handed on (to feeds,
    the journal) and the report show it as the user asked: a failure in its
    grace period (LINKAUDIT_REPORT_AFTER) as ok with a warning, new breakage
    against a baseline marked ``new``.
    """

    def __init__(self, crawler: Crawler):
        self.crawler = crawler
        self.config = config_of(crawler)
        self.policy = self.config.policy
        self.started_at = now_iso()  # open_spider sets it again when the crawl starts
        self.decided_at: float | None = None  # when the feeds' revisions were decided
        crawler.signals.connect(self.spider_closed, signal=signals.spider_closed)
        crawler.signals.connect(self.item_error, signal=signals.item_error)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> ReportPipeline:
        return cls(crawler)

    def open_spider(self, spider: Spider | None = None) -> None:
        self.started_at = now_iso()

    def close_spider(self, spider: Spider | None = None) -> None:
        """The verdicts the report decides when the audit ends (a redirect
        loop, a soft 404 found by a probe, a grace period that ran out),
        sent to the feeds as revised items (``report/revisions.py``).

        Here, not on ``spider_closed``: the pipelines close before that
        signal is sent, and the feed exports close on it.  Only when a feed
        is written (the pass reads every entry of the state), and not in a
        shared audit, whose report is built from every worker's results,
        once they are all done."""
        settings = self.crawler.settings
        if not (settings.getdict("FEEDS") or settings.get("FEED_URI")):
            return
        audit = audit_of(self.crawler)
        if audit is None or audit.state.shared:
            return
        facts = report_facts(
            self.config,
            started_at=self.started_at,
            finish_reason="finished",  # (only URLs that were checked are revised)
            pages=0,
            requests=0,
            baseline=audit.baseline,
            files=audit.files,
            build=audit.build,
        )
        self.decided_at = facts.now  # the report's grace periods end when these did
        send = self.crawler.signals.send_catch_log
        revised = 0
        for item in revisions(audit.state, facts):
            send(signal=signals.item_scraped, item=item, response=None, spider=self.crawler.spider)
            revised += 1
        if revised:
            self.crawler.stats.set_value("linkaudit/revised_items", revised)
            logger.info("linkaudit: %d feed items revised by the report's verdicts", revised)

    def process_item(self, item: Any, spider: Spider | None = None) -> Any:
        if not isinstance(item, UrlResult):
            return item
        return self._record(item)

    def item_error(self, item: Any, failure: Failure, **kwargs: Any) -> None:
        """An exception in a pipeline (this one or another) dropped a
        result: a fault of ours, so the URL is recorded ``unchecked`` with an
        internal error rather than lost (Scrapy has logged the traceback)."""
        if not isinstance(item, UrlResult):
            return
        logger.error(
            "Internal error while recording the result of %s (a bug in linkaudit: please "
            "report it with this log)",
            item.url,
        )
        self.crawler.stats.inc_value("linkaudit/internal_errors")
        assert failure.value is not None  # (Twisted types it optional: never, for a failure)
        self._record(self._audit().unchecked(item.url, item.depth, internal_error(failure.value)))

    def _record(self, item: UrlResult) -> UrlResult:
        audit = self._audit()
        return record(audit.state, item, self.config, audit.baseline)

    def _audit(self) -> Audit:
        audit = audit_of(self.crawler)
        if audit is None:
            raise RuntimeError("the report pipeline records the linkaudit spider's results only")
        return audit

    async def spider_closed(self, spider: Spider, reason: str) -> None:
        stats = self.crawler.stats
        audit = self._audit()
        state = audit.state
        # requests asked again: a struggling or throttling host's, a timeout's, a Retry-After's
        retried = ("backoff/retries", "timeouts_retried", "retry_after")
        retries = sum(stats.get_value(f"linkaudit/{name}", 0) for name in retried)
        state.share_retries(retries)  # before the report is settled: a shared audit's sum
        finish_reason = state.settle_report(reason)
        if finish_reason is None:  # a shared audit's report is another worker's
            logger.warning("linkaudit: %s", state.note)
            if state.report_path is not None:  # written: this worker's journal has served too
                self.crawler.signals.send_catch_log(report_written, path=state.report_path)
            state.close()
            return
        # a resumed audit's pages include those scanned before the interruption
        pages = stats.get_value("linkaudit/pages", 0) + audit.run.pages
        requests = stats.get_value("downloader/request_count", 0)
        # a shared audit's are every worker's
        pages, requests, started_at = state.totals(Totals(pages, requests, self.started_at))
        backoffs = stats.get_value("linkaudit/backoff/backoffs", 0)
        pauses = stats.get_value("linkaudit/backoff/pauses", 0)
        backoffs, pauses = state.backoff_totals() or (backoffs, pauses)
        retries = state.retries(retries)
        facts = report_facts(
            self.config,
            started_at=started_at,
            finish_reason=finish_reason,
            pages=pages,
            requests=requests,
            baseline=audit.baseline,
            baseline_source=audit.baseline_source,
            backoffs=backoffs,
            pauses=pauses,
            retries=retries,
            files=audit.files,
            build=audit.build,
        )
        if self.decided_at is not None:  # the time the feeds' revisions were decided at
            facts = replace(facts, now=self.decided_at)
        paths: list[str] = []

        def written(path: str) -> None:
            paths.append(path)
            self.crawler.signals.send_catch_log(report_written, path=path)

        report = write_final_report(
            self.config,
            state,
            facts,
            written=written,
            failed=lambda exc: stats.set_value("linkaudit/report_error", str(exc)),
        )
        state.close()
        # this process settled the report: what is told of it is told here
        # only (notifications); the crawl waits for the handlers (a coroutine:
        # Scrapy 2.19 deprecates a handler returning a Deferred)
        await self.crawler.signals.send_catch_log_async(
            signal=report_settled, report=report, path=paths[0] if paths else None
        )


class ProbeFilter:
    """Soft-404 probes (URLs that cannot exist) are recorded in the state
    like any check, and go no further: no feed, no journal line of a link."""

    def process_item(self, item: Any, spider: Spider | None = None) -> Any:
        if isinstance(item, UrlResult) and is_probe(item.url):
            raise DropItem(f"soft-404 probe {item.url}")
        return item


class BuildNamesPipeline:
    """Last: the items of an audit of a build directory, as the feeds get
    them, name its files and deployed URLs as its report does, never the
    address it is audited at (``rules/names.py``); the report pipeline
    and the journal, before it, keep the audit's own.  Not configured for a
    site."""

    def __init__(self, crawler: Crawler):
        self.crawler = crawler
        names = config_of(crawler).names
        if names is None:
            from scrapy.exceptions import NotConfigured

            raise NotConfigured
        self.names = names

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> BuildNamesPipeline:
        return cls(crawler)

    def process_item(self, item: Any, spider: Spider | None = None) -> Any:
        if not isinstance(item, UrlResult):
            return item
        audit = audit_of(self.crawler)
        return named_item(item, self.names, audit.files if audit is not None else None)
