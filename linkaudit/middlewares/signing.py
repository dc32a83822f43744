"""``--sign-key``: every request signed as Web Bot Auth specifies (HTTP
Message Signatures, RFC 9421; the headers are ``rules/signatures.py``'s).

Each request is signed on its own way to the download, for its own
authority and its own time: the HEAD, the GET after it, a request asked
again (a retry, a ``Retry-After``), each redirect hop (linkaudit asks each
hop as its own request), robots.txt (whose request goes through the
downloader middlewares too), a probe, on every worker of a shared audit.
The middleware sits late in DOWNLOADER_MIDDLEWARES (800: after the
cookies, before the download statistics count the request's bytes), so
the request it signs is the one sent; a request that comes back (a retry
is a copy) is signed again, its old headers replaced.

A request may wait in its host's download queue behind the host's delay
after it is signed: its ``expires`` is its ``created``, plus that wait,
plus ``LINKAUDIT_SIGN_LIFETIME``.
"""

from __future__ import annotations

import logging
import os
import time
from typing import Any

from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from scrapy.http import Request
from scrapy.utils.httpobj import urlparse_cached

from linkaudit import internals
from linkaudit.config import config_of
from linkaudit.config.signing import readable_by_others
from linkaudit.rules.signatures import NONCE_BYTES, authority, signed_headers

logger = logging.getLogger(__name__)


class SigningMiddleware:
    """Off without a key (``NotConfigured``): nothing is signed."""

    def __init__(self, crawler: Crawler):
        config = config_of(crawler)
        self.signer = config["LINKAUDIT_SIGN_KEY"]
        if self.signer is None:
            raise NotConfigured
        self.agent = config["LINKAUDIT_SIGNATURE_AGENT"]
        self.lifetime = config["LINKAUDIT_SIGN_LIFETIME"]
        self.crawler = crawler
        if readable_by_others(self.signer.path):
            logger.warning(
                "%s: the signing key is readable by other users (anyone who reads it can "
                "sign as you): chmod 600 it",
                self.signer.path,
            )
        logger.info(
            "Signing every request (Web Bot Auth): key %s, published by %s",
            self.signer.keyid,
            self.agent,
        )

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> SigningMiddleware:
        return cls(crawler)

    def process_request(self, request: Request, spider: object = None) -> None:
        parts = urlparse_cached(request)
        created = int(time.time())
        expires = created + int(self.lifetime + self._wait(request)) + 1
        headers = signed_headers(
            self.signer,
            self.agent,
            authority(parts.scheme, parts.hostname or "", parts.port),
            created,
            expires,
            os.urandom(NONCE_BYTES),
        )
        for name, value in headers.items():
            request.headers[name] = value
        self.crawler.stats.inc_value("linkaudit/signed_requests")
        return None

    def _wait(self, request: Request) -> float:
        """Seconds the request may wait in its host's download queue: one
        delay for each request before it, and its own."""
        slot: Any = internals.download_slot(self.crawler, request)
        if slot is None:
            return 0.0
        return (len(getattr(slot, "queue", ())) + 1) * float(getattr(slot, "delay", 0.0))
