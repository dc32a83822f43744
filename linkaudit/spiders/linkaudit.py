"""The linkaudit spider: Scrapy's glue, and nothing else.

It takes the spider's arguments and makes the crawl's audit
(``linkaudit/audit.py``: the configuration, the link rules, the state) and
its components (``linkaudit/components/checks.py``), then hands on what
Scrapy gives it: ``start()`` opens the audit, each response and each failure
goes to the components, and what they yield (requests, results) goes back
to Scrapy.  The audit's frontier is released, level by level, by its
scheduler (``components/scheduler.py``).
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Iterator
from typing import Any

import scrapy
from scrapy.crawler import Crawler
from scrapy.http import Response
from scrapy.utils.misc import load_object
from twisted.python.failure import Failure

from linkaudit.audit import Walked, start_audit
from linkaudit.components.checks import Checks
from linkaudit.components.scheduler import AuditScheduler
from linkaudit.config import Config


class LinkAuditSpider(scrapy.Spider):
    name = "linkaudit"
    checks: Checks  # the check path, made with the audit in from_crawler

    # ``start`` is taken explicitly and never stored under that name: since
    # Scrapy 2.13, Spider.start() is the method that yields the first requests.
    def __init__(self, start: str | None = None, **kwargs: Any):
        self.arguments = {k: v for k, v in kwargs.items() if not k.startswith("_")}
        if start is not None:
            self.arguments["start"] = start
        # the linkaudit command checks its configuration before the crawl
        # and hands it over (in-process only)
        self.given_config: Config | None = kwargs.pop("_config", None)
        self.walked: Walked | None = kwargs.pop("_walked", None)  # a local build, walked
        # Scrapyd passes _job and friends; keep them as Scrapy would.
        super().__init__(**{k: v for k, v in kwargs.items() if k.startswith("_")})

    @classmethod
    def from_crawler(cls, crawler: Crawler, *args: Any, **kwargs: Any) -> LinkAuditSpider:
        spider = super().from_crawler(crawler, *args, **kwargs)
        scheduler = load_object(crawler.settings["SCHEDULER"])
        # (not issubclass: Scrapy's scheduler metaclass says yes to any class
        # with a scheduler's methods)
        if AuditScheduler not in getattr(scheduler, "__mro__", ()):
            # no scheduler of ours, no frontier released: an empty audit
            print(
                "linkaudit: error: SCHEDULER must be linkaudit.components.scheduler."
                f"AuditScheduler or a subclass of it, not {crawler.settings['SCHEDULER']!r}",
                file=sys.stderr,
            )
            raise SystemExit(2)
        audit = start_audit(crawler, spider.arguments, spider.given_config, spider.walked)
        spider.given_config = spider.walked = None  # the audit's from here
        spider.checks = Checks(crawler, audit, spider.on_response, spider.on_error)
        return spider

    async def start(self) -> AsyncIterator[Any]:
        for thing in self.checks.start():
            yield thing

    def on_response(self, response: Response) -> Iterator[Any]:
        return self.checks.on_response(response)

    def on_error(self, failure: Failure) -> Iterator[Any]:
        return self.checks.on_error(failure)
