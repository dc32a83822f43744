"""``--sign-key``: the requests the user chose signed as Web Bot Auth
specifies (HTTP Message Signatures, RFC 9421; the headers are
``rules/signatures.py``'s).

What is signed: the requests to the site's own hosts (the hosts of the
start URLs and ``--near`` prefixes, whatever their scheme) over https.  A
signature names the user's signature agent to whoever receives it, and
one sent over plain http can be read and reused on the way: so far hosts
(every link of a page, a redirect's target elsewhere, their robots.txt)
are signed only with ``LINKAUDIT_SIGN_FAR``, plain http only with
``LINKAUDIT_SIGN_HTTP``; a request that is not to be signed leaves without
any signature header (one copied from a signed request, a redirect hop
elsewhere, is removed).  The browser of ``--render`` sends its own
requests: they are not signed (its page's request to linkaudit's download
handler is no request on the network, and is not signed either).

Each request is signed on its own way to the download, for its own
authority, scheme and time: the HEAD, the GET after it, a request asked
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
from urllib.parse import ParseResult, SplitResult, urlsplit

from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from scrapy.http import Request
from scrapy.utils.httpobj import urlparse_cached

from linkaudit import internals
from linkaudit.config import config_of
from linkaudit.config.signing import readable_by_others
from linkaudit.meta import RENDER
from linkaudit.rules.signatures import NONCE_BYTES, authority, signed_headers

# the headers of a signature: none is left on a request that is not signed
SIGNATURE_HEADERS = ("Signature-Agent", "Signature-Input", "Signature")

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
        self.far = config["LINKAUDIT_SIGN_FAR"]
        self.http = config["LINKAUDIT_SIGN_HTTP"]
        self.crawler = crawler
        sites = [urlsplit(url) for url in config.near_prefixes or config.start_urls]
        # the site's own hosts, as a signature's @authority names them
        self.hosts = {authority(p.scheme, p.hostname or "", _port(p)) for p in sites}
        if readable_by_others(self.signer.path):
            logger.warning(
                "%s: the signing key is readable by other users (anyone who reads it can "
                "sign as you): chmod 600 it",
                self.signer.path,
            )
        if not self.http and sites and all(p.scheme == "http" for p in sites):
            logger.warning(
                "linkaudit: --sign-key: the site is on plain http: its requests are not signed "
                "unless --sign-http (LINKAUDIT_SIGN_HTTP) asks, their signature then sent in "
                "clear"
            )
        own = ", ".join(sorted(self.hosts))
        logger.info(
            "Signing (Web Bot Auth) the requests to %s over %s: key %s, published by %s",
            "every host" if self.far else f"the site's own hosts ({own})",
            "https and http" if self.http else "https",
            self.signer.keyid,
            self.agent,
        )

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> SigningMiddleware:
        return cls(crawler)

    def process_request(self, request: Request, spider: object = None) -> None:
        if RENDER in request.meta:  # the browser's page: its own requests, not ours
            return None
        parts = urlparse_cached(request)
        scheme = parts.scheme.lower()
        where = authority(scheme, parts.hostname or "", _port(parts))
        if not self.signs(scheme, where):
            for name in SIGNATURE_HEADERS:  # a copy of a signed request's
                if name in request.headers:
                    del request.headers[name]
            self.crawler.stats.inc_value("linkaudit/unsigned_requests")
            return None
        created = int(time.time())
        expires = created + int(self.lifetime + self._wait(request)) + 1
        headers = signed_headers(
            self.signer,
            self.agent,
            where,
            created,
            expires,
            os.urandom(NONCE_BYTES),
            scheme,
        )
        for name, value in headers.items():
            request.headers[name] = value
        self.crawler.stats.inc_value("linkaudit/signed_requests")
        return None

    def signs(self, scheme: str, where: str) -> bool:
        """Whether a request to ``where`` (an authority) over ``scheme`` is
        signed: https (http when asked), to the site's own hosts (any when
        asked)."""
        if scheme != "https" and not (scheme == "http" and self.http):
            return False
        return self.far or where in self.hosts

    def _wait(self, request: Request) -> float:
        """Seconds the request may wait in its host's download queue: one
        delay for each request before it, and its own."""
        slot: Any = internals.download_slot(self.crawler, request)
        if slot is None:
            return 0.0
        return (len(getattr(slot, "queue", ())) + 1) * float(getattr(slot, "delay", 0.0))


def _port(parts: SplitResult | ParseResult) -> int | None:
    """The URL's port; None when it has none, or one no port can be (the
    download fails on it anyway)."""
    try:
        return parts.port
    except ValueError:
        return None
