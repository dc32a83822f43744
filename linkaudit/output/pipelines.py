"""Item pipelines: gather the points-to edges and outcomes; write the report."""

from __future__ import annotations

import logging
import time
from dataclasses import replace
from typing import Any

from scrapy import Spider, signals
from scrapy.crawler import Crawler
from scrapy.exceptions import DropItem
from twisted.python.failure import Failure

from linkaudit.config import config_of
from linkaudit.items import UrlResult
from linkaudit.output.exitstatus import EXIT_INTERNAL, broken_keys, fail_at_exit
from linkaudit.output.formats.text import summary_text
from linkaudit.output.report import build_report, now_iso, write_report
from linkaudit.rules.soft404 import is_probe
from linkaudit.rules.statuses import internal_error
from linkaudit.signals import report_written
from linkaudit.state.recheck import iso

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
        crawler.signals.connect(self.spider_closed, signal=signals.spider_closed)
        crawler.signals.connect(self.item_error, signal=signals.item_error)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> ReportPipeline:
        return cls(crawler)

    def open_spider(self, spider: Spider | None = None) -> None:
        self.started_at = now_iso()

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
        failed = UrlResult(
            url=item.url,
            near=item.near,
            outcome="unchecked",
            depth=item.depth,
            error=internal_error(failure.value),
        )
        self._record(failed)

    def _record(self, item: UrlResult) -> UrlResult:
        spider = self.crawler.spider
        state = spider.state
        now = time.time()
        if not item.from_cache:  # a cached outcome keeps the time it was checked
            item.checked_at = iso(now)
        state.add_referrers(item.url, item.links)
        failing_since = state.record(item, now)
        shown = self.policy.present(item, failing_since, now)
        baseline = spider.baseline
        if baseline is not None and shown.outcome == "broken" and item.url not in baseline:
            shown = replace(shown, new=True)
        return shown

    def spider_closed(self, spider: Spider, reason: str) -> None:
        stats = self.crawler.stats
        state = spider.state
        finish_reason = state.report_reason(reason)
        if finish_reason is None:  # a shared audit's report is another worker's
            logger.warning("linkaudit: %s", state.note)
            path = getattr(state, "report_path", None)
            if path is not None:  # written: this worker's journal has served too
                self.crawler.signals.send_catch_log(report_written, path=path)
            state.close()
            return
        # a resumed audit's pages include those scanned before the interruption
        pages = stats.get_value("linkaudit/pages", 0) + spider.run.pages
        requests = stats.get_value("downloader/request_count", 0)
        started_at = self.started_at
        if state.shared:  # every worker's
            pages, requests, started_at = state.totals()
        path = self.config.report
        facts = dict(
            start_urls=spider.start_urls,
            near_prefixes=spider.near_prefixes,
            started_at=started_at,
            finished_at=now_iso(),
            finish_reason=finish_reason,
            pages=pages,
            requests=requests,
            max_depth=spider.max_depth,
            policy=self.policy,
            now=time.time(),
            baseline=spider.baseline,
            baseline_source=spider.baseline_source,
            files=self.config.local_files,
            fragments=self.config["LINKAUDIT_CHECK_FRAGMENTS"],
            soft_404=(
                (
                    self.config["LINKAUDIT_SOFT_404"],
                    self.config["LINKAUDIT_SOFT_404_SIMILARITY"],
                    self.config["LINKAUDIT_SOFT_404_PROBES"],
                )
                if self.config["LINKAUDIT_SOFT_404"] != "off"
                else None
            ),
            templates=self.config["LINKAUDIT_TEMPLATE_MIN_PAGES"]
            if self.config["LINKAUDIT_TEMPLATES"]
            else None,
            sitemaps=bool(
                self.config["LINKAUDIT_SITEMAPS"] or self.config["LINKAUDIT_ROBOTS_SITEMAPS"]
            ),
        )
        written = False
        try:
            report = write_report(path, state, **facts)
            written = True
        except OSError as exc:
            # Not a traceback: one line, a non-zero exit, and the journal
            # (linkaudit/journal.py) still holds every result.
            journal = self.config.journal
            logger.error(
                "linkaudit: cannot write the report %s: %s%s",
                path,
                exc.strerror or exc,
                f"; the results are in the journal {journal}" if journal else "",
            )
            stats.set_value("linkaudit/report_error", str(exc))
            fail_at_exit(1)
            report = build_report(state, **facts)
        state.finish_run(finish_reason, _broken(report))
        if written:
            logger.info("Report written to %s", path)
            state.report_written(path, report)
            self.crawler.signals.send_catch_log(report_written, path=path)
        if report["summary"].get("internal_errors"):
            # scrapy crawl too: a run that hit a bug of ours does not exit 0
            fail_at_exit(EXIT_INTERNAL)
        logger.info("%s", summary_text(report))
        state.close()


def _broken(report: dict[str, Any]) -> list[str]:
    """What the next audit's baseline holds: broken URLs, missing fragments."""
    return broken_keys(report)


class ProbeFilter:
    """Soft-404 probes (URLs that cannot exist) are recorded in the state
    like any check, and go no further: no feed, no journal line of a link."""

    def process_item(self, item: Any, spider: Spider | None = None) -> Any:
        if isinstance(item, UrlResult) and is_probe(item.url):
            raise DropItem(f"soft-404 probe {item.url}")
        return item
