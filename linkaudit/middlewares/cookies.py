"""``--cookie-jar FILE``: the entry of DOWNLOADER_MIDDLEWARES.  Most audits
use no cookies: this builds the cookie middleware (middlewares/cookiejar.py)
only when one is asked for, so that an audit without cookies never imports
Scrapy's cookies middleware and tldextract (which imports ``requests``):
a fifth of a second at every start."""

from __future__ import annotations

from typing import Any

from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured

from linkaudit.config import config_of


class CookieFileMiddleware:
    """Off without a file (unless ``COOKIES_ENABLED`` is set): an audit sends
    no cookies and keeps none, so each URL is checked as a first visit.
    With one: ``CookieJarMiddleware`` (see there)."""

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Any:
        path = config_of(crawler)["LINKAUDIT_COOKIE_JAR"]
        if not path and not crawler.settings.getbool("COOKIES_ENABLED"):
            raise NotConfigured
        from linkaudit.middlewares.cookiejar import CookieJarMiddleware

        return CookieJarMiddleware.from_crawler(crawler)
