"""``--cookie-jar FILE``: a session cookie for sites that need one, sent to
and taken from the site's own origins only.  Built by
``linkaudit.middlewares.cookies.CookieFileMiddleware`` when it is used."""

from __future__ import annotations

import time
from http.cookiejar import MozillaCookieJar

from scrapy.crawler import Crawler
from scrapy.downloadermiddlewares.cookies import CookiesMiddleware
from scrapy.exceptions import NotConfigured
from scrapy.http import Request, Response

from linkaudit import internals
from linkaudit.config import config_of
from linkaudit.rules.referrer import Origin, origin_of

# Scrapy's middleware asks tldextract whether a cookie's domain is a public
# suffix ("co.uk"); tldextract's default downloads the Public Suffix List
# from publicsuffix.org at the first cookie (a request the user never asked
# for, a traceback in the log when offline) and caches it in ~/.cache.  The
# list bundled with tldextract answers as well, with no request and no file.
internals.bundled_public_suffixes()


class CookieJarMiddleware(CookiesMiddleware):
    """Scrapy's cookies middleware, its jar loaded from a Netscape
    cookies.txt file (``LINKAUDIT_COOKIE_JAR``; what browsers' export
    add-ons, curl ``-c`` and wget ``--save-cookies`` write).

    Off without a file (unless ``COOKIES_ENABLED`` is set): an audit sends
    no cookies and keeps none, so each URL is checked as a first visit.
    With one, cookies go to the site's own origins (scheme, host and port of
    the start URLs or ``--near`` prefixes), like ``--header`` and ``--auth``,
    and there where their domain and path say; cookies the site sets during
    the audit are kept for it; the file is not written.  A cookie's domain
    spans every port and both schemes of a host (RFC 6265), so without this
    a session cookie would go to any far link on another port of the host,
    and a far server could set one the site then receives: a request to any
    other origin carries no cookie and its ``Set-Cookie`` is ignored.
    Expired cookies are not loaded; session cookies (no expiry) are.
    """

    def __init__(
        self, path: str | None, debug: bool = False, origins: frozenset[Origin] = frozenset()
    ):
        super().__init__(debug)
        self.origins = origins
        if not path:
            return
        loaded = MozillaCookieJar()
        loaded.load(path, ignore_discard=True, ignore_expires=True)  # checked readable
        jar, now = self.jars[None].jar, time.time()
        for cookie in loaded:
            if cookie.expires == 0:  # curl and wget write session cookies so
                cookie.expires, cookie.discard = None, True
            elif cookie.is_expired(int(now)):  # (whole seconds, as expires is)
                continue
            jar.set_cookie(cookie)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> CookieJarMiddleware:
        config = config_of(crawler)
        path = config["LINKAUDIT_COOKIE_JAR"]
        if not path and not crawler.settings.getbool("COOKIES_ENABLED"):
            raise NotConfigured
        origins = frozenset(
            origin
            for origin in map(origin_of, config.near_prefixes or config.start_urls)
            if origin is not None
        )
        middleware = cls(path, crawler.settings.getbool("COOKIES_DEBUG"), origins)
        middleware.crawler = crawler
        return middleware

    def _ours(self, request: Request) -> bool:
        return origin_of(request.url) in self.origins

    def process_request(self, request: Request, spider: object = None) -> Request | Response | None:
        if not self._ours(request):
            # none of ours, even one copied from the request it redirects
            request.headers.pop("Cookie", None)
            return None
        return super().process_request(request)

    def process_response(
        self, request: Request, response: Response, spider: object = None
    ) -> Request | Response:
        if not self._ours(request):
            return response  # a far server's Set-Cookie is never stored
        return super().process_response(request, response)
