"""Decompression with a ceiling: a compressed body is expanded to at most
its cap, never further: a page to ``LINKAUDIT_PAGE_MAXSIZE`` bytes, a
sitemap's GET to ``LINKAUDIT_SITEMAP_MAXSIZE``, robots.txt to
``LINKAUDIT_ROBOTSTXT_MAXSIZE`` (the cap its request carries in
``la_maxsize``).  The decoding itself is ``linkaudit/rules/inflate.py``,
linear in the body's bytes whatever a server sends.

Scrapy's ``HttpCompressionMiddleware`` refuses a body that would expand past
``DOWNLOAD_MAXSIZE`` (``IgnoreRequest``, which a link checker would have to
report as something; and for robots.txt, 1 GiB of memory before it does).
A link checker wants the opposite: keep the first megabytes, scan them, and
say the page was truncated, as it does for a plain page that is too long
(the spider cuts those on ``bytes_received``).  Requests that carry no cap
(none of linkaudit's) keep Scrapy's behaviour.
"""

from __future__ import annotations

import logging

from scrapy import Request
from scrapy.crawler import Crawler
from scrapy.downloadermiddlewares.httpcompression import HttpCompressionMiddleware
from scrapy.http import Response, TextResponse
from scrapy.responsetypes import responsetypes

from linkaudit import internals
from linkaudit.config import config_of
from linkaudit.meta import CHECK_URL, MAXSIZE, PHASE, SITEMAP, TRUNCATED
from linkaudit.rules.inflate import CorruptBody, inflate

logger = logging.getLogger(__name__)


def decode_capped(data: bytes, encoding: bytes, cap: int) -> tuple[bytes, bool]:
    """``data`` decoded, at most ``cap`` bytes of it, and whether it was cut.

    A stream that stops early (the download was cut at the cap) yields what
    it holds; a stream that is not what it claims raises :class:`CorruptBody`.
    """
    body, cut, _complete = inflate(data, encoding, cap)
    return body, cut is not None


class CappedDecompressionMiddleware(HttpCompressionMiddleware):
    """Replaces Scrapy's ``HttpCompressionMiddleware`` (same order, 590).
    Settings: ``LINKAUDIT_PAGE_MAXSIZE`` (default 5 MiB),
    ``LINKAUDIT_SITEMAP_MAXSIZE``; ``COMPRESSION_ENABLED`` switches it off as
    it does Scrapy's."""

    def __init__(self, crawler: Crawler):
        super().__init__(crawler=crawler)
        config = config_of(crawler)
        self.page_cap: int = config["LINKAUDIT_PAGE_MAXSIZE"]
        self.sitemap_cap: int = config["LINKAUDIT_SITEMAP_MAXSIZE"]

    def _cap(self, request: Request) -> int | None:
        meta = request.meta
        if MAXSIZE in meta:
            return int(meta[MAXSIZE])
        if CHECK_URL not in meta:
            return None
        return self.sitemap_cap if meta.get(PHASE) == SITEMAP else self.page_cap

    def process_response(
        self, request: Request, response: Response, spider: object = None
    ) -> Request | Response:
        cap = self._cap(request)
        if cap is None:
            return super().process_response(request, response)
        if request.method == "HEAD":
            return response
        encodings = response.headers.getlist("Content-Encoding")
        if not encodings:
            return response
        to_decode, to_keep = internals.split_encodings(encodings)
        body = response.body
        try:
            for encoding in to_decode:
                body, cut = decode_capped(body, encoding, cap)
                if cut:
                    request.meta[TRUNCATED] = True
        except CorruptBody as exc:
            logger.info("%s: the body does not decode (%s); no links read", request.url, exc)
            body = b""
        headers = response.headers.copy()
        if to_keep:
            headers["Content-Encoding"] = to_keep
        else:
            del headers["Content-Encoding"]
        respcls = responsetypes.from_args(headers=headers, url=response.url, body=body)
        kwargs: dict[str, object] = {"body": body, "headers": headers}
        if issubclass(respcls, TextResponse):
            kwargs["encoding"] = None  # let the new body's declarations decide
        return response.replace(cls=respcls, **kwargs)
