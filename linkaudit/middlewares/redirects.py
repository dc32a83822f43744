"""Redirects are links: note them, do not follow them.

Scrapy's RedirectMiddleware follows a 3xx by replacing the request, which
would hide the redirecting URL from the audit.  This subclass keeps that
behaviour for Scrapy's own fetches (robots.txt: one that moves from http to
https or to www must still be read) and, for link checks, resolves the
``Location`` to a canonical absolute URL in ``request.meta["la_location"]``
and hands the 3xx response to the spider, which records the target as a link
from the redirecting URL and checks it on its own merits.
"""

from __future__ import annotations

from scrapy.downloadermiddlewares.redirect import RedirectMiddleware
from scrapy.http import Request, Response

from linkaudit.meta import CHECK_URL, LOCATION, LOCATION_ERROR
from linkaudit.rules.urls import InvalidURL, canonicalize
from linkaudit.rules.userinfo import masked


class RedirectRecorderMiddleware(RedirectMiddleware):
    def process_response(
        self, request: Request, response: Response, spider: object = None
    ) -> Request | Response:
        if CHECK_URL not in request.meta:
            return super().process_response(request, response)
        if 300 <= response.status < 400:
            raw = response.headers.get(b"Location")
            if raw:
                value = raw.decode("utf-8", "replace")
                try:
                    request.meta[LOCATION] = canonicalize(value, request.meta[CHECK_URL])
                except InvalidURL as exc:
                    # a password in it is never shown, as in a page's link
                    shown = masked(value)
                    request.meta[LOCATION_ERROR] = f"Invalid redirect Location {shown!r}: {exc}"
        return response

    def handle_referer(self, request: Request, response: Response) -> None:
        """robots.txt fetches carry no Referer, so there is none to adjust."""

    def _engine_started(self) -> None:
        # The parent looks for RefererMiddleware to adjust Referer headers on
        # the redirects it follows, and warns when it is off.  The spider sets
        # Referer itself and we only follow robots.txt redirects: no warning.
        pass
