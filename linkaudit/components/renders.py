"""Renders of pages built by JavaScript (``--render``): the crawl's side.

A near HTML page is fetched and read as any other; when it is to be
rendered (``rules/rendered.py``: always, or when its HTML looks like an app
shell), its reader asks for a render instead of scanning it: a request of
the same URL, carrying the page's answer (``meta[RENDER]``), that the
download handler gives to the browser (``linkaudit/rendering/``).  The
browser is handed that answer as its document, so the page is not
requested twice; the request still waits its turn in the host's download
slot (the per-host delay applies to renders).  Its answer comes back with
what the browser made of the page (``meta[RENDERED]``), and the page is
read with both: its HTML's links with their lines, the DOM's own links
without.  A render that fails (a timeout, a crash, the memory bound) leaves
the page read from its HTML, with a warning on it: never a lost page.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import urlsplit

from scrapy.http import Request, Response
from twisted.python.failure import Failure

from linkaudit.components.answers import Reply
from linkaudit.components.pages import Pages
from linkaudit.meta import CHECK_URL, DEPTH, PHASE, REFERRER, RENDER, RENDERED
from linkaudit.network.failures import failed_request
from linkaudit.rules.rendered import RenderFacts

# a render request's download slot, by its host (rendering/paced.py)
RENDER_SLOT = "{} (renders)"


def slot_of_render(host: str) -> str:
    return RENDER_SLOT.format(host)


logger = logging.getLogger(__name__)


class Renders:
    """Asks for a page's render and reads its answer (or its failure)."""

    def __init__(
        self,
        pages: Pages,
        reply_of: Callable[[Response], Reply],
        callback: Callable[..., Any],
        errback: Callable[..., Any],
    ):
        self.pages = pages
        self.reply_of = reply_of
        self.callback = callback  # the spider's: a render's answer comes back through it
        self.errback = errback

    def ask(self, reply: Reply) -> Request:
        """The render of the page ``reply`` answered (a Scrapy response)."""
        response = reply.source
        meta = {
            CHECK_URL: reply.url,
            DEPTH: reply.depth,
            PHASE: reply.phase,
            RENDER: response,
            "handle_httpstatus_all": True,
            "verbatim_url": True,
            # the page's own answer stands for its robots.txt check: asked already
            "dont_obey_robotstxt": True,
            # not its host's slot: the browser's requests wait there (paced.py)
            "download_slot": slot_of_render(urlsplit(response.url).hostname or ""),
        }
        if reply.referrer:
            meta[REFERRER] = reply.referrer
        return Request(
            response.url,
            meta=meta,
            callback=self.callback,
            errback=self.errback,
            dont_filter=True,
            priority=1,  # a page waiting for its render holds its answer in memory
        )

    def rendered(self, response: Response) -> Iterator[Any]:
        """The browser's answer: the page read from its HTML and its DOM."""
        meta = response.meta
        facts = meta.get(RENDERED) or RenderFacts(error="the browser gave no DOM")
        yield from self.pages.page(self.reply_of(meta[RENDER]), facts)

    def failed(self, failure: Failure) -> Iterator[Any]:
        """A render that failed: the page read from its HTML, with a warning."""
        meta = failed_request(failure).meta
        facts = meta.get(RENDERED) or RenderFacts()
        facts.error = facts.error or _failure_text(failure)
        logger.warning(
            "%s could not be rendered (%s): read from its HTML", meta[CHECK_URL], facts.error
        )
        yield from self.pages.page(self.reply_of(meta[RENDER]), facts)


def _failure_text(failure: Failure) -> str:
    """Why a render failed, in one line: our own words as they are; a
    browser's or Playwright's error with its name."""
    text = str(failure.value).strip().splitlines()
    first = text[0][:200] if text else ""
    name = type(failure.value).__name__
    if type(failure.value).__module__.startswith("linkaudit.") and first:
        return first
    return f"{name}: {first}" if first else name
