"""The readers of answers that carry links: a near page (or stylesheet)
scanned, a redirect whose target is a link of its URL, and a far HTML page
downloaded for its anchors (--check-fragments)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from scrapy.http import Response, TextResponse
from scrapy.signalmanager import SignalManager

from linkaudit.audit import Audit
from linkaudit.components.discovery import Discovery
from linkaudit.components.probes import Probes
from linkaudit.items import UrlResult, page_stats
from linkaudit.meta import LOCATION, LOCATION_ERROR, REFERRER, TRUNCATED
from linkaudit.rules.html import extract_links
from linkaudit.rules.statuses import (
    BROKEN,
    OK,
    REDIRECT,
    http_date_iso,
    media_type,
    status_text,
)
from linkaudit.signals import page_scanned


class Pages:
    def __init__(
        self, audit: Audit, discovery: Discovery, probes: Probes, signals: SignalManager
    ):
        self.audit = audit
        self.discovery = discovery
        self.probes = probes
        self.signals = signals
        self.maxsize = audit.config["LINKAUDIT_PAGE_MAXSIZE"]

    def page(self, response: Response, url: str, depth: int) -> Iterator[Any]:
        """A near HTML page: scanned, its result with its links, then the
        results of the new links settled on sight."""
        audit = self.audit
        truncated = bool(response.meta.get(TRUNCATED))
        text = response.text if isinstance(response, TextResponse) else None
        kind = media_type(response.headers.get(b"Content-Type"))
        stylesheet = kind in audit.css_types
        links, images, found, anchors, fragments, blocks, dropped = self.discovery.scan(
            text, url, depth, stylesheet, truncated
        )
        stats = None
        if kind in audit.html_types:
            signal = page_scanned  # a stylesheet is no page: not archived, no statistics
            self.signals.send_catch_log(signal, response=response, url=url, depth=depth)
            modified = http_date_iso(response.headers.get(b"Last-Modified"))
            stats = page_stats(len(response.body), modified, len(links), images)
        etag = response.headers.get(b"ETag")
        soft = self.probes.soft_404_fields(response, url, depth) if stats is not None else {}
        yield audit.result(
            response,
            OK,
            links=links,
            truncated=truncated or bool(dropped),
            links_dropped=dropped,
            page=stats,
            etag=etag.decode("latin-1") if etag else None,
            anchors=anchors,
            fragments=fragments,
            blocks=blocks,
            **soft,
        )
        yield from found

    def anchors(self, response: Response) -> UrlResult:
        """A far HTML page downloaded for its anchors: ok, with them."""
        anchors: list[str] = []
        if isinstance(response, TextResponse):
            text = response.text
            if response.meta.get(TRUNCATED):
                text = text[: self.maxsize]
            anchors = sorted(extract_links(text, anchors=True).anchors or ())
        return self.audit.result(response, OK, anchors=anchors)

    def redirect(self, response: Response, url: str, depth: int) -> Iterator[Any]:
        """A 3xx: its target (``Location``, read by our redirect middleware)
        is a link of the redirecting URL (``Discovery.redirect_target``)."""
        result = self.audit.result
        meta = response.meta
        location = meta.get(LOCATION)
        if location is None:
            error = meta.get(LOCATION_ERROR) or f"{status_text(response.status)} without a Location"
            yield result(response, BROKEN, error=error)
            return
        error, location, found = self.discovery.redirect_target(
            url, location, depth, meta.get(REFERRER)
        )
        if error is not None:
            yield result(response, BROKEN, error=error, location=location)
            return
        yield result(
            response,
            REDIRECT,
            error=status_text(response.status),
            location=location,
            links=[(location, None)],
        )
        yield from found
