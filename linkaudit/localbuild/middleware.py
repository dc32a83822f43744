"""A local build's file reached through a symbolic link out of the
directory (``linkaudit/localbuild/static.py``): ``ok``, with a ``warning`` that
names the target, never scanned.

Spider middleware: the answer (from the directory's server or from the
file-reading handler, the same on both routes) is a 200 without a body and
a header naming the target; the spider's own output for it (an empty page,
or the GET that would follow a HEAD) is replaced by that one result.  The
header is believed only on the build's own origin (``LINKAUDIT_LOCAL_DIR``):
any other server sending it gets no say.

On by default (``SPIDER_MIDDLEWARES``), in the chain only when the audit is
of a build directory; nothing to configure.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable
from typing import Any
from urllib.parse import unquote, urlsplit

from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from scrapy.http import Response

from linkaudit.audit import audit_of
from linkaudit.components.checks import reply_of
from linkaudit.config import config_of
from linkaudit.items import Outcome
from linkaudit.localbuild.static import OUTSIDE_HEADER, outside_warning
from linkaudit.meta import CHECK_URL


class LinkOutMiddleware:
    def __init__(self, crawler: Crawler):
        # no build directory, no link out of it: not one more wrapper around
        # every callback's output
        if not config_of(crawler)["LINKAUDIT_LOCAL_DIR"]:
            raise NotConfigured
        audit = audit_of(crawler)
        if audit is None:
            raise NotConfigured  # not our spider's crawl
        self.audit = audit
        self.crawler = crawler
        self._origin: str | None | bool = False  # False: not looked up yet

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> LinkOutMiddleware:
        return cls(crawler)

    def _target(self, response: Response) -> str | None:
        value = response.headers.get(OUTSIDE_HEADER)
        if value is None or CHECK_URL not in response.meta:
            return None
        if self._origin is False:
            config = config_of(self.crawler)
            build = config.build_url
            self._origin = urlsplit(build).netloc if build else None
        if not self._origin or urlsplit(response.url).netloc != self._origin:
            return None
        return unquote(value.decode("latin-1"))

    def _result(self, response: Response, target: str) -> Any:
        return self.audit.result(reply_of(response), Outcome.OK, warning=outside_warning(target))

    def process_spider_output(
        self, response: Response, result: Iterable[Any], spider: Any = None
    ) -> Iterable[Any]:
        target = self._target(response)
        return result if target is None else [self._result(response, target)]

    async def process_spider_output_async(
        self, response: Response, result: AsyncIterator[Any], spider: Any = None
    ) -> AsyncIterator[Any]:
        target = self._target(response)
        if target is not None:
            yield self._result(response, target)
            return
        async for thing in result:
            yield thing
