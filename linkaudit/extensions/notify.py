"""Notifications sent when the report is settled (``--notify``, see
``linkaudit/notify/``): an extension, so every way of running the audit
(the command, ``scrapy crawl``, Scrapyd, a worker of a shared audit) tells
the same, from the same final report.

It listens to ``report_settled``, which only the process that wrote the
report sends (a shared audit's other workers never do: one message, not
one a worker), and sends in a thread of the reactor's pool: the senders
block (urllib, smtplib), the crawl waits for the handler before it ends,
and their time is bounded (``LINKAUDIT_NOTIFY_TIMEOUT`` a target, its
tries included).  Setting: ``LINKAUDIT_NOTIFY`` (default: none, and the
extension is not configured).
"""

from __future__ import annotations

from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from scrapy.utils.defer import maybe_deferred_to_future
from twisted.internet.threads import deferToThread

from linkaudit.config import config_of
from linkaudit.notify.notifier import notify
from linkaudit.output.report.records import Report
from linkaudit.signals import report_settled


class Notify:
    def __init__(self, crawler: Crawler):
        self.config = config_of(crawler)
        if not self.config["LINKAUDIT_NOTIFY"]:
            raise NotConfigured
        crawler.signals.connect(self.report_settled, signal=report_settled)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Notify:
        return cls(crawler)

    async def report_settled(self, report: Report, path: str | None) -> None:
        # a coroutine, not a Deferred: Scrapy 2.19 deprecates handlers returning one
        await maybe_deferred_to_future(deferToThread(notify, self.config.values, report, path))
