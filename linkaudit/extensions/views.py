"""The views of the report beside it (the HTML report, the redirect
fix-list: ``linkaudit/output/exports.py``), written when the report is.

An extension: on ``report_written`` it writes each view the configuration
asks for (``LINKAUDIT_HTML``, ``LINKAUDIT_REDIRECT_FIXES``); switched off
(``NotConfigured``) when neither path is set.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from linkaudit.config import config_of
from linkaudit.output.exports import write_views
from linkaudit.signals import report_written

if TYPE_CHECKING:
    from scrapy.crawler import Crawler


class ReportViews:
    def __init__(self, crawler: Crawler, html: str | None, fixes: str | None):
        self.html, self.fixes = html, fixes
        crawler.signals.connect(self.report_written, signal=report_written)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> ReportViews:
        config = config_of(crawler)
        html, fixes = config["LINKAUDIT_HTML"], config["LINKAUDIT_REDIRECT_FIXES"]
        if not html and not fixes:
            from scrapy.exceptions import NotConfigured

            raise NotConfigured
        return cls(crawler, html, fixes)

    def report_written(self, path: str) -> None:
        write_views(path, self.html, self.fixes)
