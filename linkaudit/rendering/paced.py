"""The browser's own requests sent by the crawl's downloader, at their
host's pace.

A rendered page's scripts, styles and data requests (those ``reach.py``
admits) are not sent by the browser: each becomes a request of the audit
that Scrapy's downloader sends (``engine.download_async``), and its answer
is given to the browser (``route.fulfill``).  Its redirects are followed
here, each target asked of the page's rules first and counted as a request
of the page: the browser would follow them out of its routes' sight (the
old way let a redirect reach what robots.txt disallows).  So each waits in
its host's download slot as the audit's own requests do, and what
``hosts/`` sets there holds for it:

- the per-host delay and its margin (``hosts/pacing.py``), robots.txt's
  ``Crawl-delay`` (``hosts/crawldelay.py``) and the back-off's slower pace,
  one connection at a time, and pauses (``hosts/backoff.py``): the slot's
  delay and concurrency;
- a host held by ``Retry-After`` (``hosts/holds.py``) is waited for before
  each request is sent; a ``Retry-After`` answered to one of the browser's
  requests holds the host (the audit's own requests wait too) and the
  request is asked again after the wait, at most
  ``LINKAUDIT_RETRY_AFTER_TIMES`` times, as a link check's is.

They pass the downloader middlewares (``--header``/``--auth`` for the
site's hosts, the cookie jar, Web Bot Auth signatures) and are counted as
the audit's requests are, when sent (``summary.requests``; a shared audit's
count in Redis).  A body larger than ``LINKAUDIT_PAGE_MAXSIZE``
(compressed or expanded) is refused, as a failed request: a script cut
short would run wrong.  Whatever the downloader cannot get (refused, timed
out, a host that cannot be reached) is a failed request for the page, never
an error of the audit.

A page's own render request is not in its host's slot
(``components/requests.py``: ``slot_of_render``): it sends nothing to the
host (its document is the crawl's answer), and waiting there it would hold
a place its own scripts need (with one connection a host, they would wait
for it until the render's time cap).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Protocol
from urllib.parse import urljoin, urlsplit

from playwright.async_api import Request as BrowserRequest
from playwright.async_api import Route
from scrapy import Request
from scrapy.crawler import Crawler
from scrapy.http import Response
from twisted.python.failure import Failure

from linkaudit import internals
from linkaudit.config import config_of
from linkaudit.hosts.holds import HostHolds
from linkaudit.meta import BROWSER, HELD_BY_ANSWER, MAXSIZE, TRUNCATED
from linkaudit.rules.rendered import RenderFacts

logger = logging.getLogger(__name__)

REDIRECTS = frozenset({301, 302, 303, 307, 308})
MAX_REDIRECTS = 20  # as Chromium gives up

# request headers the downloader sets itself: the connection's, and the
# encodings (the decompression middleware's, to its caps)
NOT_SENT = frozenset(
    {
        "host",
        "connection",
        "keep-alive",
        "content-length",
        "transfer-encoding",
        "te",
        "trailer",
        "upgrade",
        "proxy-connection",
        "accept-encoding",
    }
)
# answer headers the browser must not be given: the body is the one the
# downloader decoded, whole
NOT_PASSED = frozenset({"content-encoding", "content-length", "transfer-encoding", "connection"})


class PacedFetch:
    """Sends a request the browser makes through the crawl's downloader
    and gives the browser its answer (see the module's doc)."""

    def __init__(self, crawler: Crawler):
        self.crawler = crawler
        config = config_of(crawler)
        self.maxsize: int = config["LINKAUDIT_PAGE_MAXSIZE"]
        self.times: int = config["LINKAUDIT_RETRY_AFTER_TIMES"]
        self.holds = HostHolds.of(crawler)

    async def __call__(self, route: Route, request: BrowserRequest, page: Rendering) -> None:
        """Answer the browser's ``request`` for ``page`` (a request of a
        page that no longer renders is never sent).  Whatever fails, the
        route is aborted, never left to the next handler: scrapy-playwright's
        would have the browser send it itself, out of the host's pace."""
        try:
            await self._answer(route, request, page)
        except Exception as exc:  # noqa: BLE001 (its page closed meanwhile, most often)
            logger.debug("%s asked by a rendered page: %s", request.url, exc)
            await _abort(route)

    async def _answer(self, route: Route, request: BrowserRequest, page: Rendering) -> None:
        if not page.alive():
            await _abort(route)
            return
        headers = {
            name: value
            for name, value in (await request.all_headers()).items()
            if name.lower() not in NOT_SENT and not name.startswith(":")
        }
        kind = request.resource_type
        try:
            origin = request.frame.url
        except Exception:  # noqa: BLE001 (a detached frame: no page to compare with)
            origin = None
        ours = Request(
            request.url,
            method=request.method,
            headers={**fetch_metadata(kind, origin, request.url), **headers},
            dont_filter=True,
            meta={
                BROWSER: True,
                # reach.py asked robots.txt (the crawl's parsers) already
                "dont_obey_robotstxt": True,
                "dont_redirect": True,  # followed below, each hop asked of reach.py
                "dont_retry": True,
                "handle_httpstatus_all": True,
                "download_maxsize": self.maxsize,
                MAXSIZE: self.maxsize,
            },
        )
        response = await self._followed(ours, kind, origin, page)
        if response is None or response.meta.get(TRUNCATED) or not page.alive():
            await _abort(route)
            return
        try:
            await route.fulfill(
                status=response.status, headers=_answer_headers(response), body=response.body
            )
        except Exception:  # noqa: BLE001 (its page closed meanwhile)
            pass

    async def _followed(
        self, request: Request, kind: str, origin: str | None, page: Rendering
    ) -> Response | None:
        """The answer, its redirects followed here: the browser would
        follow them out of its routes' sight, so each target is asked of
        the page's rules (``reach.py``) as a request of its own, and
        counted so; None: its page ended, or a target was refused (a failed
        download raises: ``__call__`` aborts the browser's request)."""
        for _ in range(MAX_REDIRECTS + 1):
            response = await self._download(request, page)
            if response is None:
                return None
            location = response.headers.get(b"Location")
            if response.status not in REDIRECTS or not location:
                return response
            target = urljoin(request.url, location.decode("latin-1").strip())
            method = "GET" if response.status in (301, 302, 303) else request.method
            if not target.startswith(("http:", "https:")) or await page.admit(
                target, method, False
            ):
                page.facts.refused += 1
                return None
            page.facts.requests += 1
            headers = fetch_metadata(kind, origin, target)
            request = request.replace(url=target, method=method)
            request.headers.update(headers)
        return None  # too many redirects, as a browser gives up

    async def _download(self, request: Request, page: Rendering) -> Response | None:
        """The answer, after the host's hold if it has one; asked again
        after a hold its own answer asked for (at most ``times``)."""
        tries = 0
        while True:
            wait = self.holds.remaining(request)
            if wait > 0:
                await asyncio.sleep(wait)
            if not page.alive():
                return None
            attempt = request.replace()
            page.pending.add(attempt)  # (taken back if the page ends first: drop)
            try:
                response = await self.crawler.engine.download_async(attempt)
            finally:
                page.pending.discard(attempt)
            if not response.meta.get(HELD_BY_ANSWER) or tries >= self.times:
                return response
            tries += 1  # its answer held the host: asked again when the hold ends

    def drop(self, page: Rendering) -> int:
        """A page whose render ended: its requests still queued in their
        host's slot are taken back, never sent (a script's burst of a
        thousand requests would otherwise go on at the host's pace long
        after).  Returns how many."""
        pending = set(page.pending)
        if not pending:
            return 0
        downloader = self.crawler.engine.downloader
        dropped = 0
        for key in {downloader.get_slot_key(r) for r in pending}:
            if key not in downloader.slots:
                continue
            for queued, deferred in list(internals.queued_downloads(self.crawler, key)):
                if queued not in pending:
                    downloader.slots[key].queue.append((queued, deferred))
                    continue
                dropped += 1
                deferred.errback(Failure(RenderEnded("its page's render ended")))
        return dropped


class Rendering(Protocol):
    """What the fetch knows of the page a request is for (``page.py``'s
    ``PageSession``)."""

    pending: set[Request]  # its requests handed to the downloader, not answered yet
    facts: RenderFacts  # its requests and refusals counted there
    # why a request (URL, method, with a body) may not be sent, or None: reach.py
    admit: Callable[[str, str, bool], Awaitable[str | None]]

    def alive(self) -> bool: ...


class RenderEnded(Exception):
    """A request of a page whose render ended before it was sent."""


# Fetch Metadata (what Chromium's network stack adds after the route has
# seen the request): Sec-Fetch-Dest and Sec-Fetch-Mode by the resource's
# kind (a classic script or style: no-cors; fetch, XHR, event streams: cors)
_DEST = {"script": "script", "stylesheet": "style"}
_NO_CORS = frozenset({"script", "stylesheet"})


def fetch_metadata(kind: str, origin: str | None, url: str) -> dict[str, str]:
    """The ``Sec-Fetch-*`` headers Chromium would send with a request of
    the resource ``kind`` for ``url`` from a page at ``origin``, which a
    server's resource-isolation policy may read (its site judged by scheme
    and host: the same host on another port is same-site, another host
    cross-site)."""
    page = urlsplit(origin) if origin else None
    target = urlsplit(url)
    if page is None:
        site = "cross-site"
    elif (page.scheme, page.netloc) == (target.scheme, target.netloc):
        site = "same-origin"
    elif (page.scheme, page.hostname) == (target.scheme, target.hostname):
        site = "same-site"
    else:
        site = "cross-site"
    return {
        "Sec-Fetch-Site": site,
        "Sec-Fetch-Mode": "no-cors" if kind in _NO_CORS else "cors",
        "Sec-Fetch-Dest": _DEST.get(kind, "empty"),
    }


def _answer_headers(response: Response) -> dict[str, str]:
    headers: dict[str, str] = {}
    for name, values in response.headers.items():
        key = name.decode("latin-1")
        if key.lower() in NOT_PASSED:
            continue
        joiner = "\n" if key.lower() == "set-cookie" else ", "
        headers[key] = joiner.join(v.decode("latin-1") for v in values)
    return headers


async def _abort(route: Route) -> None:
    try:
        await route.abort("failed")
    except Exception:  # noqa: BLE001 (its page closed meanwhile)
        pass
