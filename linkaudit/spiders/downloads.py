"""What of a response is downloaded: the spider's part that stops a GET at
the headers, cuts a page at its size limit, and decides when a far HTML
page is downloaded for its anchors (--check-fragments)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from scrapy.exceptions import StopDownload
from scrapy.http import Request, Response, TextResponse

from linkaudit.meta import ANCHORS, CHECK_URL, PHASE, READ, SITEMAP, TRUNCATED
from linkaudit.rules.html import extract_links
from linkaudit.rules.statuses import media_type

if TYPE_CHECKING:
    from linkaudit.spiders.linkaudit import LinkAuditSpider


class Downloads:
    """Far pages and binaries are never downloaded, whatever their name,
    except for anchors: a far page is downloaded only when fragments are checked, it is HTML
    (its HEAD says so) and some link points at one of its fragments; the GET
    is capped at LINKAUDIT_PAGE_MAXSIZE like a near page's, and only its ids
    and ``<a name>`` are read (its links are not followed)."""

    def _wants_anchors(self: LinkAuditSpider, url: str, kind: str | None) -> bool:
        return (
            self.check_fragments
            and kind in self.html_types
            and not self.is_near(url)
            and self.state.marked(ANCHORS, url)
        )

    def _anchors(self: LinkAuditSpider, response: Response, kind: str | None) -> list[str] | None:
        """The anchors of a far page downloaded for them, else None."""
        if response.meta.get(PHASE) != ANCHORS or kind not in self.html_types:
            return None
        if not isinstance(response, TextResponse):
            return []
        text = response.text
        if response.meta.get(TRUNCATED):
            text = text[: self.config["LINKAUDIT_PAGE_MAXSIZE"]]
        return sorted(extract_links(text, anchors=True).anchors or ())

    def _on_headers(
        self: LinkAuditSpider, headers: Any, body_length: int, request: Request, spider: Any
    ) -> None:
        """Stop a GET at the headers unless it is a near HTML page (or
        stylesheet) to scan, or a far HTML page whose anchors are wanted:
        other far pages and binaries are never downloaded, whatever their
        name."""
        phase = request.meta.get(PHASE)
        if phase in ("get", "fallback", ANCHORS):  # a SITEMAP GET is read whatever its type
            kind = media_type(headers.get(b"Content-Type"))
            if phase == ANCHORS:
                if kind not in self.html_types:
                    raise StopDownload(fail=False)
            elif not (self.is_near(request.meta[CHECK_URL]) and kind in self.scan_types):
                raise StopDownload(fail=False)

    def _on_bytes(self: LinkAuditSpider, data: bytes, request: Request, spider: Any) -> None:
        """Cut a page at LINKAUDIT_PAGE_MAXSIZE bytes: what was read is
        scanned and the report says the page was truncated.  (Only near HTML
        pages get this far; everything else stopped at the headers.)"""
        meta = request.meta
        read = meta.get(READ, 0) + len(data)
        meta[READ] = read
        phase = meta.get(PHASE)
        cap = self.config[
            "LINKAUDIT_SITEMAP_MAXSIZE" if phase == SITEMAP else "LINKAUDIT_PAGE_MAXSIZE"
        ]
        if read > cap and phase is not None:
            meta[TRUNCATED] = True
            raise StopDownload(fail=False)
