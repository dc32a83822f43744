"""The readers of answers that carry links: a near page (or stylesheet)
scanned, a redirect whose target is a link of its URL, and a far HTML page
downloaded for its anchors (--check-fragments)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from linkaudit.audit import Audit
from linkaudit.components.answers import Reply
from linkaudit.components.discovery import Discovery
from linkaudit.components.probes import Probes
from linkaudit.components.rendered import scan_rendered
from linkaudit.items import Outcome, RenderSection, UrlResult, page_stats
from linkaudit.rules.decisions import Phase
from linkaudit.rules.html import extract_links
from linkaudit.rules.rendered import RenderFacts
from linkaudit.rules.statuses import (
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
        """A near HTML page (or stylesheet): scanned, its result with its
        links, then the results of the new links settled on sight.  A
        render's answer (``reply.rendered``: what the browser made of the
        page) is read from the page's HTML and its DOM; a render that
        failed, from its HTML, with a warning."""
        audit = self.audit
        url, depth, truncated = reply.url, reply.depth, reply.truncated
        kind = reply.kind
        stylesheet = kind in audit.css_types
        facts = reply.rendered
        if facts is None and reply.phase == Phase.RENDER:
            facts = RenderFacts(error="the browser gave no DOM")
        render: RenderSection | None = None
        if facts is not None and facts.error is None:
            text = (reply.text or "")[: self.maxsize] if truncated else reply.text
            scanned, render = scan_rendered(self.discovery, text or "", facts, url, depth)
            if truncated:
                self.discovery.note_truncated(url)
        else:
            vet = self._not_a_page(url) if audit.build is not None else None
            scanned = self.discovery.scan(reply.text, url, depth, stylesheet, truncated, vet)
            if scanned.not_page is not None:  # a build's template: named once, never scanned
                yield audit.result(reply, Outcome.OK)
                return
        links, images, found, anchors, fragments, blocks, dropped, _ = scanned
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
        read = reply
        if render is not None:  # a soft 404 the app shows: by the DOM's title or heading
            read = dataclasses.replace(reply, decode=lambda: facts.dom)  # type: ignore[union-attr]
        soft = self.probes.soft_404_fields(read) if stats is not None else {}
        if soft.get("soft_404") and audit.build is not None and audit.build.not_found_page(url):
            # a build's own 404.html says "not found" by design: read, not a soft 404
            soft = {k: v for k, v in soft.items() if k not in ("soft_404", "warning")}
        if stats is not None and reply.text is not None and facts is None:
            # its links exist only once scripts run: not checked
            soft["app_shell"] = reply.app_shell
        if render is not None:
            soft["render"] = render
            if render.get("dom_truncated"):  # cut in the browser, before it reached us
                truncated = True
                soft["warning"] = _joined(
                    soft.get("warning"),
                    f"its rendered DOM is {render['dom_size']} characters: the first "
                    f"{self.maxsize} were read (LINKAUDIT_PAGE_MAXSIZE)",
                )
        elif facts is not None:  # the render failed: the page as its HTML says
            failed: RenderSection = {"error": str(facts.error), "requests": facts.requests}
            soft["render"] = failed
            warning = f"not rendered ({facts.error}): its links were read from its HTML"
            soft["warning"] = _joined(soft.get("warning"), warning)
        yield audit.result(
            reply,
            Outcome.OK,
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

    def _not_a_page(self, url: str) -> Callable[[str], None]:
        """What a build's HTML file that is no page (an unrendered
        template, ``rules/unrendered.py``) is told to the build's pages by."""
        return lambda why: self.audit.build.not_page(url, why)

    def anchors(self, reply: Reply) -> UrlResult:
        """A far HTML page downloaded for its anchors: ok, with them."""
        anchors: list[str] = []
        if reply.text is not None:
            text = reply.text[: self.maxsize] if reply.truncated else reply.text
            anchors = sorted(extract_links(text, anchors=True).anchors or ())
        return self.audit.result(reply, Outcome.OK, anchors=anchors)

    def redirect(self, reply: Reply) -> Iterator[Any]:
        """A 3xx: its target (``Location``, read by our redirect middleware,
        or the build's own) is a link of the redirecting URL
        (``Discovery.redirect_target``)."""
        result = self.audit.result
        if reply.location is None:
            missing = reply.location_error or f"{status_text(reply.status)} without a Location"
            yield result(reply, Outcome.BROKEN, error=missing)
            return
        error, location, found = self.discovery.redirect_target(
            reply.url, reply.location, reply.depth, reply.referrer
        )
        if error is not None:
            yield result(reply, Outcome.BROKEN, error=error, location=location)
            return
        yield result(
            reply,
            Outcome.REDIRECT,
            error=status_text(reply.status),
            location=location,
            links=[(location, None)],
        )
        yield from found


def _joined(warning: str | None, more: str) -> str:
    """A page's warning with one more said."""
    return f"{warning}; {more}" if warning else more
