"""Decompression with a ceiling: a compressed page is expanded to at most
``LINKAUDIT_PAGE_MAXSIZE`` bytes, never further.

Scrapy's ``HttpCompressionMiddleware`` refuses a body that would expand past
``DOWNLOAD_MAXSIZE`` (``IgnoreRequest``, which a link checker would have to
report as something).  A link checker wants the opposite: keep the first
megabytes, scan them, and say the page was truncated, as it does for a
plain page that is too long (the spider cuts those on ``bytes_received``).
Requests that are not link checks (robots.txt) keep Scrapy's behaviour.
"""

from __future__ import annotations

import logging
import zlib

from scrapy import Request
from scrapy.crawler import Crawler
from scrapy.downloadermiddlewares.httpcompression import HttpCompressionMiddleware
from scrapy.http import Response, TextResponse
from scrapy.responsetypes import responsetypes

from linkaudit.config import config_of
from linkaudit.meta import CHECK_URL, TRUNCATED

try:
    import brotli
except ImportError:  # pragma: no cover - Scrapy installs one of the two
    import brotlicffi as brotli  # type: ignore[no-redef]

try:
    from backports import zstd
except ImportError:  # pragma: no cover - Python 3.14 has it built in
    from compression import zstd  # type: ignore[no-redef]

logger = logging.getLogger(__name__)


class CorruptBody(ValueError):
    """The body does not decode with its declared Content-Encoding."""


def _zlib(data: bytes, wbits: int, cap: int) -> bytes:
    out = bytearray()
    while data and len(out) <= cap:
        d = zlib.decompressobj(wbits)
        out += d.decompress(data, cap + 1 - len(out))
        # concatenated gzip members follow the end of the first one
        data = d.unused_data if d.eof else b""
    return bytes(out)


def decode_capped(data: bytes, encoding: bytes, cap: int) -> tuple[bytes, bool]:
    """``data`` decoded, at most ``cap`` bytes of it, and whether it was cut.

    A stream that stops early (the download was cut at the cap) yields what
    it holds; a stream that is not what it claims raises :class:`CorruptBody`.
    """
    try:
        if encoding in (b"gzip", b"x-gzip"):
            out = _zlib(data, 16 + zlib.MAX_WBITS, cap)
        elif encoding == b"deflate":
            try:
                out = _zlib(data, zlib.MAX_WBITS, cap)
            except zlib.error:  # raw deflate, as some servers send it
                out = _zlib(data, -zlib.MAX_WBITS, cap)
        elif encoding == b"br":
            out = brotli.Decompressor().process(data, output_buffer_limit=cap + 1)
        elif encoding == b"zstd":
            out = zstd.ZstdDecompressor().decompress(data, max_length=cap + 1)
        else:  # pragma: no cover - the caller only passes supported ones
            return data, False
    except (zlib.error, brotli.error, zstd.ZstdError) as exc:
        raise CorruptBody(f"{encoding.decode()}: {exc}") from None
    return out[:cap], len(out) > cap


class CappedDecompressionMiddleware(HttpCompressionMiddleware):
    """Replaces Scrapy's ``HttpCompressionMiddleware`` (same order, 590).
    Setting: ``LINKAUDIT_PAGE_MAXSIZE`` (default 5 MiB); ``COMPRESSION_ENABLED``
    switches it off as it does Scrapy's."""

    def __init__(self, crawler: Crawler):
        super().__init__(crawler=crawler)
        self.cap = config_of(crawler)["LINKAUDIT_PAGE_MAXSIZE"]

    def process_response(
        self, request: Request, response: Response, spider: object = None
    ) -> Request | Response:
        if CHECK_URL not in request.meta:
            return super().process_response(request, response)
        if request.method == "HEAD":
            return response
        encodings = response.headers.getlist("Content-Encoding")
        if not encodings:
            return response
        to_decode, to_keep = self._split_encodings(encodings)
        body = response.body
        try:
            for encoding in to_decode:
                body, cut = decode_capped(body, encoding, self.cap)
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
