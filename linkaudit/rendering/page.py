"""One page in the browser: what it is given, what it may fetch, and what
is read back.

- Its document is the page's own answer, already downloaded by the crawl
  (``route.fulfill``): the page is not requested twice.
- It fetches what a page needs to run, and nothing else: scripts, styles
  and data requests (``fetch``, XHR, event streams, WebSockets) go out if
  the audit's scope and rules allow them (``reach.py``: ``GET`` or ``HEAD``
  without a body, ``--exclude``, ``--skip-far``, no local address that is
  not the site's, a bounded number of hosts, and the host's robots.txt,
  the crawl's own parsers); images, media, fonts, frames, objects,
  beacons and everything else are refused before a byte is read (the
  links that name them are checked by linkaudit's own ``HEAD``).
- A navigation of the page's own frame after its document (``location``
  set by the script, a timed redirect, a form sent by script) is refused
  and noted: it is a redirect link of the page.  Downloads are refused by
  the context (``accept_downloads``) and a script's click of a download
  link does nothing (:data:`NO_DOWNLOADS`); new windows are closed as they open,
  before their first request (the context refuses every request of a page
  that is not the one rendered); dialogs are dismissed.
- It has settled once loaded and the network has been quiet for 0.5 s (as
  Playwright's ``networkidle``, but counting the requests a route holds
  while robots.txt is asked: those are in flight too), or after
  ``LINKAUDIT_RENDER_SETTLE`` seconds of waiting: then its DOM is read
  (:func:`read_dom`), at most ``LINKAUDIT_PAGE_MAXSIZE`` characters of it.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
import weakref
from collections.abc import Awaitable, Callable
from typing import Any

from playwright.async_api import Page, Route, WebSocketRoute
from playwright.async_api import Request as BrowserRequest

from linkaudit.rules.rendered import RenderFacts

logger = logging.getLogger(__name__)

# what a page needs to run: its scripts, styles and data (Playwright's
# resource types, as Chromium's DevTools names them)
FETCHED = frozenset({"script", "stylesheet", "xhr", "fetch", "eventsource"})
# an answer's headers the browser must not be given: the body it gets is
# the one the crawl decoded, whole
NOT_PASSED = frozenset({"content-encoding", "content-length", "transfer-encoding"})
_ANY = re.compile("")  # every URL
# sends a request the browser makes and gives its answer (paced.py), for
# the page (the session: whether it still renders, its requests pending)
Fetch = Callable[[Route, BrowserRequest, Any], Awaitable[None]]
MAX_NAVIGATIONS = 20  # a script's navigations kept (each a link; a loop could make thousands)
MAX_URL = 65536  # characters of a navigation's URL kept (URLLENGTH_LIMIT's default)
QUIET = 0.5  # seconds without a request in flight: the network is quiet (as networkidle)
POLL = 0.05  # seconds between two looks at the requests in flight
# the settle wait, paused while the page's requests wait for their host's
# turn, ends by this share of the render's time cap (page.py: _quiet)
READ_BY = 0.8
_GUARDED: weakref.WeakSet[Any] = weakref.WeakSet()  # contexts that refuse other pages' requests
# A link with a ``download`` attribute that a script clicks is fetched by
# Chromium's download manager, out of reach of ``page.route`` (the context's
# ``accept_downloads=False`` cancels it only once its answer came, read in
# full for a small file): its click does nothing, before any page script
# runs.  The link itself stays in the DOM and is checked by linkaudit's HEAD.
NO_DOWNLOADS = """(() => {
  const kinds = [HTMLAnchorElement, HTMLAreaElement];
  const saved = (node) => kinds.some((k) => node instanceof k) && node.hasAttribute("download");
  addEventListener("click", (event) => {
    const node = event.target;
    if (node instanceof Element && node.closest("a[download], area[download]")) {
      event.preventDefault();
    }
  }, true);
  for (const kind of kinds) {
    const click = kind.prototype.click;
    kind.prototype.click = function () { if (!saved(this)) click.call(this); };
  }
  const dispatch = EventTarget.prototype.dispatchEvent;
  EventTarget.prototype.dispatchEvent = function (event) {
    if (event.type === "click" && saved(this)) return false;
    return dispatch.call(this, event);
  };
})();"""


# The DOM as Playwright's page.content() serialises it, measured in the page
# and cut there: only the first ``cap`` characters leave the browser (a page
# whose script builds a 60 MB DOM would otherwise be 60 MB through
# Playwright's driver, then the same again as a Python string, before any
# cap applied).  Run in a world of its own (an isolated world, as
# Playwright's own content() is): the page's scripts cannot redefine what
# it calls (outerHTML, slice) to lie about the size or return more.
READ_DOM = """(cap) => {
  let html = "";
  if (document.doctype) html = new XMLSerializer().serializeToString(document.doctype);
  if (document.documentElement) html += document.documentElement.outerHTML;
  const size = html.length;
  if (size <= cap) return [size, html];
  let end = cap;
  const last = html.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;  // not half a character
  return [size, html.slice(0, end)];
}"""


async def read_dom(page: Page, cap: int) -> tuple[str, int]:
    """The page's DOM, serialised, at most ``cap`` characters of it, and
    its whole length (:data:`READ_DOM`), through Chromium's DevTools
    protocol: an isolated world of the main frame."""
    cdp = await page.context.new_cdp_session(page)
    try:
        tree = await cdp.send("Page.getFrameTree")
        world = await cdp.send(
            "Page.createIsolatedWorld",
            {"frameId": tree["frameTree"]["frame"]["id"], "worldName": "linkaudit"},
        )
        done = await cdp.send(
            "Runtime.evaluate",
            {
                "expression": f"({READ_DOM})({int(cap)})",
                "contextId": world["executionContextId"],
                "returnByValue": True,
            },
        )
    finally:
        try:
            await cdp.detach()
        except Exception:  # the page closed meanwhile
            pass
    if "exceptionDetails" in done:
        raise RuntimeError(f"the DOM could not be read: {done['exceptionDetails'].get('text')}")
    size, html = done["result"]["value"]
    return html, int(size)


class PageRead(Exception):
    """The page was read and closed (:meth:`PageSession.read`): the end of
    scrapy-playwright's download, before it serialises the page itself."""


class PageClosed(Exception):
    """scrapy-playwright asked for the page again: the first one closed
    (crashed, or closed by a bound) and it would render it anew."""


class PageSession:
    """One render: the page's answer, the policy of its requests, and the
    facts read back (``facts``)."""

    def __init__(
        self,
        url: str,
        status: int,
        headers: dict[str, str],
        body: bytes,
        admit: Callable[[str, str, bool], Awaitable[str | None]],
        settle: float,
        maxsize: int,
        sent: Callable[[], object] | None = None,
        fetch: Fetch | None = None,
        timeout: float | None = None,
    ):
        self.url = url
        self.status = status
        self.headers = {k: v for k, v in headers.items() if k.lower() not in NOT_PASSED}
        self.body = body
        # why a request (URL, method, with a body) may not be sent, or None: reach.py
        self.admit = admit
        self.settle = settle
        self.maxsize = maxsize
        self.sent = sent  # told of each request the browser sends (a shared audit counts it)
        # what sends the browser's requests (paced.py: the crawl's downloader,
        # at the host's pace); None: the browser sends them itself
        self.fetch = fetch
        self.timeout = timeout  # the render's time cap (browser.py), s
        self.direct = 0  # requests the browser sent itself (a WebSocket's handshake)
        self.pending: set[Any] = set()  # its requests in the downloader, not answered yet
        self.waiting: set[Route] = set()  # the browser's requests waiting for those answers
        self.ended = False  # closing: nothing more is sent for it
        self.facts = RenderFacts()
        self.page: Page | None = None
        self.started = time.monotonic()
        self.served = False  # the document was given
        self.navigated = asyncio.Event()  # the script navigated away
        self.inflight = 0  # the page's requests in flight
        self.changed = time.monotonic()  # when that last changed
        self.done = False  # the DOM was read (the page then closed: read)
        self.crashed = False  # its renderer crashed (its memory share: browser.py)

    async def prepare(self, page: Page, _request: Any) -> None:
        """scrapy-playwright's page init callback: before the page's
        navigation, its routes and handlers."""
        if self.page is not None:  # scrapy-playwright's retry after a closed page: not again
            raise PageClosed("its renderer crashed" if self.crashed else "the page closed")
        self.page = page
        page.on("crash", self._crash)
        # first, the policy of its requests (registered after scrapy-playwright's
        # own route: tried first); an error below leaves it in place
        await page.route("**", self._route)
        await page.route_web_socket(_ANY, self._socket)  # (page.route does not see them)
        context = page.context
        if context not in _GUARDED:  # a window the script opened asks for nothing
            _GUARDED.add(context)
            await context.route("**", _refuse)
            context.on("page", _close_window)  # closed even once its opener's render ended
        page.on("dialog", self._dialog)
        page.on("popup", self._popup)
        # the requests in flight, those waiting for robots.txt included
        # (Playwright's "networkidle" does not count a request held by a route)
        page.on("request", lambda _request: self._flight(1))
        page.on("requestfinished", lambda _request: self._flight(-1))
        page.on("requestfailed", lambda _request: self._flight(-1))
        await page.add_init_script(script=NO_DOWNLOADS)

    async def _route(self, route: Route, request: BrowserRequest) -> None:
        """The policy of one request; a fault in it (the page closed while
        robots.txt was asked) aborts the request: a route handler that
        raises leaves it to the next one, scrapy-playwright's, which has
        the browser send it, unasked and out of its host's pace."""
        try:
            await self._policy(route, request)
        except Exception as exc:  # noqa: BLE001
            logger.debug("%s asked by a rendered page: %s", request.url, exc)
            try:
                await route.abort("failed")
            except Exception:  # noqa: BLE001 (handled already, or its page closed)
                pass

    async def _policy(self, route: Route, request: BrowserRequest) -> None:
        facts = self.facts
        assert self.page is not None  # routed from prepare(), which has its page
        if request.is_navigation_request() and request.frame == self.page.main_frame:
            if not self.served:
                self.served = True
                await route.fulfill(status=self.status, headers=self.headers, body=self.body)
                return
            if len(facts.navigations) < MAX_NAVIGATIONS:  # the script navigates: a redirect link
                facts.navigations.append(request.url[:MAX_URL])
            self.navigated.set()  # the page is left: its DOM is read as it is now
            await route.abort("aborted")
            return
        if request.resource_type not in FETCHED or not request.url.startswith(("http:", "https:")):
            facts.refused += 1
            await route.abort("blockedbyclient")
            return
        if await self.admit(request.url, request.method, _has_body(request)) is not None:
            facts.refused += 1
            await route.abort("blockedbyclient")
            return
        facts.requests += 1
        if self.fetch is not None:  # sent by the crawl's downloader, at its host's pace
            self.waiting.add(route)
            try:
                await self.fetch(route, request, self)
            finally:
                self.waiting.discard(route)
            return
        self._sent_directly()
        await route.fallback()  # scrapy-playwright's route sends it (its User-Agent ours)

    def alive(self) -> bool:
        """The page still renders (a request of a page that ended is not sent)."""
        if self.ended or self.done or self.crashed:
            return False
        return not (self.page and self.page.is_closed())

    async def close(self) -> None:
        """Close the page, its requests still waiting for an answer aborted
        first: Chromium sends a request that is still held by a route when
        its page closes (its interception ends with the page), so a
        script's request waiting for its host's turn would go out at once."""
        self.ended = True
        waiting, self.waiting = list(self.waiting), set()
        # at once (a hundred in turn took tenths of a second under load);
        # one answered meanwhile fails alone
        await asyncio.gather(*(route.abort("failed") for route in waiting), return_exceptions=True)
        await close_page(self.page)

    def _sent_directly(self) -> None:
        self.direct += 1
        if self.sent is not None:
            self.sent()

    async def _socket(self, socket: WebSocketRoute) -> None:
        """A WebSocket the page opens: its handshake is an HTTP request,
        asked of robots.txt as any other."""
        url = socket.url
        if url.startswith(("ws:", "wss:")):
            url = "http" + url[2:]
        if url.startswith(("http:", "https:")) and await self.admit(url, "GET", False) is None:
            self.facts.requests += 1
            self._sent_directly()  # (a WebSocket cannot go through Scrapy's downloader)
            socket.connect_to_server()
            return
        self.facts.refused += 1
        await socket.close()

    def _crash(self, _page: Any) -> None:
        self.crashed = True

    def _flight(self, change: int) -> None:
        self.inflight += change
        self.changed = time.monotonic()

    async def _quiet(self) -> bool:
        """Wait for the network to be quiet (no request in flight for
        :data:`QUIET` seconds) or the script to navigate, at most ``settle``
        seconds of the page's own time: whether it did.  The time its
        requests wait for an answer from the crawl's downloader (their
        host's turn: the delay, ``Crawl-delay``, a hold; ``paced.py``) is
        not counted: at the polite default a page that asks its host for
        five things would otherwise be read before the fourth came back.
        It is never waited past :data:`READ_BY` of the render's time cap
        (``LINKAUDIT_RENDER_TIMEOUT``), so that a page that keeps asking (a
        script polling its host) is still read, not failed by the cap."""
        deadline = time.monotonic() + self.settle
        last = time.monotonic()
        latest = self.started + READ_BY * self.timeout if self.timeout else None
        while True:
            if self.crashed:  # nothing more will come: the render fails (browser.py)
                raise PageClosed("its renderer crashed")
            now = time.monotonic()
            if self.waiting:  # its requests wait for their host's turn: not the page's time
                extended = deadline + (now - last)
                deadline = extended if latest is None else max(deadline, min(extended, latest))
            last = now
            if self.navigated.is_set() or (self.inflight <= 0 and now - self.changed >= QUIET):
                return True
            if now >= deadline:
                return False
            await asyncio.sleep(min(POLL, deadline - now))

    async def _dialog(self, dialog: Any) -> None:
        self.facts.dialogs += 1
        try:
            await dialog.dismiss()
        except Exception:  # the page closed meanwhile
            pass

    async def _popup(self, popup: Page) -> None:
        self.facts.windows += 1
        try:
            await popup.close()
        except Exception:
            pass

    async def read(self, page: Page) -> None:
        """Once the document is committed: wait for the page's load, then
        for the network to go quiet (at most ``settle`` seconds), then read
        the DOM, at most ``maxsize`` characters of it, and close the page.
        A navigation the script makes ends the wait at once: the page is
        left, its DOM is what it was (an aborted navigation stops the
        document's loading: its load event never comes).

        Run as scrapy-playwright's page method: the page is closed here and
        :class:`PageRead` raised, so that scrapy-playwright's own
        ``page.content()`` after the page methods, the whole DOM uncut,
        never runs (``browser.py`` takes PageRead for the end it is; not
        an error about a closed page, which scrapy-playwright would answer
        by rendering the page again)."""
        facts = self.facts
        if not await _first(page.wait_for_load_state("load", timeout=0), self.navigated):
            facts.settled = False
        elif self.navigated.is_set():
            facts.settled = True
        else:
            facts.settled = await self._quiet()
        facts.dom, facts.dom_size = await read_dom(page, self.maxsize)
        facts.seconds = time.monotonic() - self.started
        self.done = True
        if facts.dom_size > self.maxsize:
            logger.warning(
                "The DOM of %s is %d characters once rendered, more than "
                "LINKAUDIT_PAGE_MAXSIZE (%d): the first %d were read",
                self.url,
                facts.dom_size,
                self.maxsize,
                len(facts.dom),
            )
        await self.close()
        raise PageRead()


def _has_body(request: BrowserRequest) -> bool:
    """The request carries a body (Playwright may not hold a large one's
    bytes: a request that says it has one has one)."""
    try:
        return bool(request.post_data_buffer) or bool(request.headers.get("content-length"))
    except Exception:  # a body Playwright cannot give: there is one
        return True


async def _first(wait: Awaitable[Any], event: asyncio.Event) -> bool:
    """Wait for ``wait`` or ``event``, whichever comes first: True, unless
    ``wait`` failed (its timeout) first."""
    waited = asyncio.ensure_future(wait)
    seen = asyncio.ensure_future(event.wait())
    try:
        done, _ = await asyncio.wait({waited, seen}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in (waited, seen):
            task.cancel()
    if waited in done and not waited.cancelled() and waited.exception() is not None:
        return event.is_set()
    return True


async def _refuse(route: Route) -> None:
    await route.abort("blockedbyclient")


async def _close_window(page: Page) -> None:
    """A page of the context that a page opened (``window.open``): closed.
    The pages scrapy-playwright opens for renders have no opener."""
    try:
        if await page.opener() is not None:
            await page.close()
    except Exception:  # closed meanwhile
        pass


async def close_page(page: Page | None) -> None:
    """Close a page that did not finish (its render timed out, the browser
    grew past its memory bound), whatever its scripts are doing."""
    if page is None or page.is_closed():
        return
    try:
        await asyncio.wait_for(page.close(run_before_unload=False), 10)
    except Exception:
        logger.debug("Closing a page failed", exc_info=True)
