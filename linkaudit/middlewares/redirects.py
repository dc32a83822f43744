"""Redirects are links: note them, do not follow them.

Scrapy's RedirectMiddleware follows a 3xx by replacing the request, which
would hide the redirecting URL from the audit.  This subclass keeps that
behaviour for Scrapy's own fetches (robots.txt: one that moves from http to
https or to www must still be read) and, for link checks, resolves the
``Location`` to a canonical absolute URL in ``request.meta["la_location"]``
and hands the 3xx response to the spider, which records the target as a link
from the redirecting URL and checks it on its own merits.

Scrapy's own fetch does not follow a ``Location`` that is not an http(s)
URL, or that holds a user name or password: Scrapy would log it in clear
and fail on it with a traceback (``javascript:``, ``u:p@host``).  The
robots.txt is then unavailable, as one whose redirects cannot be followed
(RFC 9309, 2.3.1.2): no rules.
"""

from __future__ import annotations

import logging
from urllib.parse import urlsplit

from scrapy.http import Request, Response

from linkaudit import internals
from linkaudit.meta import CHECK_URL, LOCATION, LOCATION_ERROR
from linkaudit.rules.urls import InvalidURL, canonicalize
from linkaudit.rules.userinfo import masked

logger = logging.getLogger(__name__)


class RedirectRecorderMiddleware(internals.redirect_middleware_class()):  # type: ignore[misc]
    def process_response(
        self, request: Request, response: Response, spider: object = None
    ) -> Request | Response:
        if CHECK_URL not in request.meta:
            raw = response.headers.get(b"Location") if 300 <= response.status < 400 else None
            if raw and not _followable(raw.decode("utf-8", "replace"), request.url):
                shown = masked(raw.decode("utf-8", "replace"))[:200]
                logger.info("%s redirects to %r: not followed (no rules)", request.url, shown)
                return response.replace(body=b"")
            followed: Request | Response = super().process_response(request, response)
            return followed
        if 300 <= response.status < 400:
            raw = response.headers.get(b"Location")
            if raw:
                value = raw.decode("utf-8", "replace")
                try:
                    request.meta[LOCATION] = canonicalize(value, request.meta[CHECK_URL])
                except InvalidURL as exc:
                    # a password in it is never shown, as in a page's link
                    shown = masked(value)[:200]  # a Location may be as long as a header
                    request.meta[LOCATION_ERROR] = f"Invalid redirect Location {shown!r}: {exc}"
        return response

    def handle_referer(self, request: Request, response: Response) -> None:
        """robots.txt fetches carry no Referer, so there is none to adjust
        (nor a warning that Scrapy's Referer middleware is off: the base,
        ``internals.redirect_middleware_class``)."""


def _followable(location: str, base: str) -> bool:
    """An http(s) URL without a user name or password."""
    try:
        url = canonicalize(location, base)
    except InvalidURL:
        return False
    return url.startswith(("http://", "https://")) and "@" not in urlsplit(url).netloc
