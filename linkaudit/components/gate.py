"""What of a response is downloaded (an extension, on by default): a GET
stops at the headers unless its body is read, and a body stops at its size
limit.

Far pages and binaries are never downloaded, whatever their name, except
for anchors: a far page is downloaded only when fragments are checked, it
is HTML (its HEAD says so) and some link points at one of its fragments
(``rules/decisions.py`` asks for that GET); the GET is capped at
LINKAUDIT_PAGE_MAXSIZE like a near page's.  A sitemap's GET is read
whatever its type, capped at LINKAUDIT_SITEMAP_MAXSIZE.

A GET stopped at the headers may be a bot wall's answer whose page alone
says so (``rules/walls.py``: Akamai's Access Denied, PerimeterX's captcha,
Anubis's challenge); the headers do not tell the status, so an HTML (or
untyped) answer to a check's GET that would stop there lets the first
``BODY_PREFIX`` bytes (32 KiB) through instead, then stops: at most that
much (and one network read) per answer in flight, inflated to no more
(``la_maxsize``, read by ``middlewares/decompress.py``).  Such GETs are
rare: a far URL is asked with GET only after its HEAD failed.

Every body the gate lets through, it bounds itself (the page cap, the
sitemap cap, a wall's prefix): Scrapy's ``DOWNLOAD_MAXSIZE`` is no bound
for it.  A page that announces a ``Content-Length`` over that size (1 GiB)
is read to its cap, scanned and ``truncated``, as a build's page is, never
``Download cancelled`` before a byte was read.  (To read less of each page,
lower ``LINKAUDIT_PAGE_MAXSIZE``.)
"""

from __future__ import annotations

from typing import Any

from scrapy import signals
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured, StopDownload
from scrapy.http import Request

from linkaudit.audit import audit_of
from linkaudit.meta import ANCHORS, CHECK_URL, MAXSIZE, PHASE, READ, SITEMAP, TRUNCATED
from linkaudit.rules.decisions import Phase
from linkaudit.rules.statuses import media_type
from linkaudit.rules.walls import BODY_PREFIX


class DownloadGate:
    def __init__(self, crawler: Crawler):
        audit = audit_of(crawler)
        if audit is None:
            raise NotConfigured  # not our spider's crawl: no check of ours to gate
        self.rules = audit.rules
        self.html_types = audit.html_types
        self.scan_types = audit.scan_types
        self.page_maxsize = audit.config["LINKAUDIT_PAGE_MAXSIZE"]
        self.sitemap_maxsize = audit.config["LINKAUDIT_SITEMAP_MAXSIZE"]
        crawler.signals.connect(self.headers_received, signal=signals.headers_received)
        crawler.signals.connect(self.bytes_received, signal=signals.bytes_received)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> DownloadGate:
        return cls(crawler)

    def headers_received(
        self, headers: Any, body_length: int, request: Request, spider: Any
    ) -> None:
        """Stop a GET at the headers unless it is a near HTML page (or
        stylesheet) to scan, or a far HTML page whose anchors are wanted;
        an HTML answer that may be a bot wall's page: its first bytes."""
        meta = request.meta
        phase = meta.get(PHASE)
        if phase in (Phase.GET, Phase.FALLBACK, ANCHORS):  # a SITEMAP GET is read whatever its type
            kind = media_type(headers.get(b"Content-Type"))
            if phase == ANCHORS:
                if kind not in self.html_types:
                    raise StopDownload(fail=False)
            elif not (self.rules.is_near(meta[CHECK_URL]) and kind in self.scan_types):
                if kind is not None and kind not in self.html_types:
                    raise StopDownload(fail=False)
                meta[MAXSIZE] = BODY_PREFIX  # a wall's page, maybe: its start only
        elif phase != SITEMAP:
            return  # not a check's body (robots.txt bounds its own)
        # read on: the gate bounds it (bytes_received), not Scrapy's
        # DOWNLOAD_MAXSIZE, which would cancel a page announcing more
        meta["download_maxsize"] = 0
        meta["download_warnsize"] = 0

    def bytes_received(self, data: bytes, request: Request, spider: Any) -> None:
        """Cut a page at LINKAUDIT_PAGE_MAXSIZE bytes: what was read is
        scanned and the report says the page was truncated.  (Only near HTML
        pages get this far; everything else stopped at the headers.)"""
        meta = request.meta
        read = meta.get(READ, 0) + len(data)
        meta[READ] = read
        phase = meta.get(PHASE)
        if phase is None:
            return
        if MAXSIZE in meta:  # the start of an answer that may be a bot wall's
            if read >= meta[MAXSIZE]:
                raise StopDownload(fail=False)
            return
        cap = self.sitemap_maxsize if phase == SITEMAP else self.page_maxsize
        if read > cap:
            meta[TRUNCATED] = True
            raise StopDownload(fail=False)
