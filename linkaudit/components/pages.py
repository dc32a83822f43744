"""The readers of answers that carry links: a near page (or stylesheet)
scanned, a redirect whose target is a link of its URL, and a far HTML page
downloaded for its anchors (--check-fragments)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from linkaudit.audit import Audit
from linkaudit.components.answers import Reply
from linkaudit.components.discovery import Discovery
from linkaudit.components.probes import Probes
from linkaudit.items import UrlResult, page_stats
from linkaudit.rules.appshell import looks_like_app_shell
from linkaudit.rules.html import extract_links
from linkaudit.rules.statuses import (
    BROKEN,
    OK,
    REDIRECT,
    http_date_iso,
    status_text,
)
from linkaudit.signals import page_scanned

if TYPE_CHECKING:
    from scrapy.signalmanager import SignalManager


class Pages:
    """The readers of a page, a far page's anchors and a redirect, on
    either route (``signals``: the crawl's, for the page archive; the walk
    of a build has none)."""

    def __init__(
        self,
        audit: Audit,
        discovery: Discovery,
        probes: Probes,
        signals: SignalManager | None = None,
    ):
        self.audit = audit
        self.discovery = discovery
        self.probes = probes
        self.signals = signals
        self.maxsize = audit.config["LINKAUDIT_PAGE_MAXSIZE"]

    def page(self, reply: Reply) -> Iterator[Any]:
        """A near HTML page: scanned, its result with its links, then the
        results of the new links settled on sight."""
        audit = self.audit
        url, depth, truncated = reply.url, reply.depth, reply.truncated
        kind = reply.kind
        stylesheet = kind in audit.css_types
        links, images, found, anchors, fragments, blocks, dropped = self.discovery.scan(
            reply.text, url, depth, stylesheet, truncated
        )
        stats = None
        if kind in audit.html_types:
            if self.signals is not None and reply.source is not None:
                # a stylesheet is no page: not archived, no statistics
                self.signals.send_catch_log(
                    page_scanned, response=reply.source, url=url, depth=depth
                )
            modified = http_date_iso(reply.headers.get(b"Last-Modified"))
            stats = page_stats(len(reply.body), modified, len(links), images)
        etag = reply.headers.get(b"ETag")
        soft = self.probes.soft_404_fields(reply) if stats is not None else {}
        if stats is not None and reply.text is not None:
            soft["app_shell"] = looks_like_app_shell(reply.text)
        yield audit.result(
            reply,
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

    def anchors(self, reply: Reply) -> UrlResult:
        """A far HTML page downloaded for its anchors: ok, with them."""
        anchors: list[str] = []
        if reply.text is not None:
            text = reply.text[: self.maxsize] if reply.truncated else reply.text
            anchors = sorted(extract_links(text, anchors=True).anchors or ())
        return self.audit.result(reply, OK, anchors=anchors)

    def redirect(self, reply: Reply) -> Iterator[Any]:
        """A 3xx: its target (``Location``, read by our redirect middleware,
        or the build's own) is a link of the redirecting URL
        (``Discovery.redirect_target``)."""
        result = self.audit.result
        if reply.location is None:
            error = reply.location_error or f"{status_text(reply.status)} without a Location"
            yield result(reply, BROKEN, error=error)
            return
        error, location, found = self.discovery.redirect_target(
            reply.url, reply.location, reply.depth, reply.referrer
        )
        if error is not None:
            yield result(reply, BROKEN, error=error, location=location)
            return
        yield result(
            reply,
            REDIRECT,
            error=status_text(reply.status),
            location=location,
            links=[(location, None)],
        )
        yield from found
