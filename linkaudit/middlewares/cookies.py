"""``--cookie-jar FILE``: a session cookie for sites that need one."""

from __future__ import annotations

import time
from http.cookiejar import MozillaCookieJar

from scrapy.crawler import Crawler
from scrapy.downloadermiddlewares.cookies import CookiesMiddleware
from scrapy.exceptions import NotConfigured

from linkaudit.config import config_of


class CookieFileMiddleware(CookiesMiddleware):
    """Scrapy's cookies middleware, its jar loaded from a Netscape
    cookies.txt file (``LINKAUDIT_COOKIE_JAR``; what browsers' export
    add-ons, curl ``-c`` and wget ``--save-cookies`` write).

    Off without a file (unless ``COOKIES_ENABLED`` is set): an audit sends
    no cookies and keeps none, so each URL is checked as a first visit.
    With one, cookies go where their domain and path say (the file decides,
    as in a browser), and cookies the site sets during the audit are kept
    for it; the file is not written.
    Expired cookies are not loaded; session cookies (no expiry) are.
    """

    def __init__(self, path: str | None, debug: bool = False):
        super().__init__(debug)
        if not path:
            return
        loaded = MozillaCookieJar()
        loaded.load(path, ignore_discard=True, ignore_expires=True)  # checked readable
        jar, now = self.jars[None].jar, time.time()
        for cookie in loaded:
            if cookie.expires == 0:  # curl and wget write session cookies so
                cookie.expires, cookie.discard = None, True
            elif cookie.is_expired(now):
                continue
            jar.set_cookie(cookie)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> CookieFileMiddleware:
        path = config_of(crawler)["LINKAUDIT_COOKIE_JAR"]
        if not path and not crawler.settings.getbool("COOKIES_ENABLED"):
            raise NotConfigured
        middleware = cls(path, crawler.settings.getbool("COOKIES_DEBUG"))
        middleware.crawler = crawler
        return middleware
