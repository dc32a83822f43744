"""The browser of an audit: scrapy-playwright's download handler, driving
the system's Chromium, made the first time a page is to be rendered.

``HttpDownloadHandler`` (``linkaudit/network/handler.py``) hands it the
requests that carry a render (``meta[RENDER]``); everything else goes to
the network as before.  scrapy-playwright is configured from linkaudit's
settings (:func:`playwright_settings`): Chromium from ``LINKAUDIT_BROWSER``
(``executable_path``: Playwright's own browser download is never used),
``LINKAUDIT_RENDER_PAGES`` pages at once, one context that accepts no
download and runs no service worker; and each render is given a
:class:`~linkaudit.rendering.page.PageSession` (its page init callback and
page method: ``page.py``).

Bounds:

- time: a render has ``LINKAUDIT_RENDER_TIMEOUT`` seconds in all; past it
  the render is cancelled and its page closed (a page whose scripts never
  stop is closed by Chromium, not waited on), and the page is read from
  its HTML, with a warning;
- memory: each renderer may hold its share of ``LINKAUDIT_RENDER_MEMORY``
  (the bound less the idle browser, over ``LINKAUDIT_RENDER_PAGES``), held
  by the kernel (``RLIMIT_DATA``: memory.py), its JavaScript heap by V8
  (``--max-old-space-size``); and while renders run, the memory (PSS) of
  this process's children (Playwright's driver, Chromium and its
  renderers) is read ten times a second: past the bound, or about to pass
  it at the pace it grows, the renderers are killed (their memory freed at
  once) and the renders in flight cancelled;
- the browser starts only when a page needs it, once per audit, and is
  closed with the download handlers (the end of the crawl, Ctrl-C,
  SIGTERM: Scrapy closes its handlers on every way out).  An early close
  (Ctrl-C, SIGTERM, a limit) stops the renders in flight, their pages read
  from their HTML: Scrapy waits for the downloads in progress before it
  closes the handlers, and a render would run on to its time cap, the
  browser still requesting, after the user asked to stop.  Its driver is
  told not to act on signals itself (``handle_sigint``...): Ctrl-C reaches
  the driver too, and the crawl, not the driver, decides when to close.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from functools import partial
from typing import Any

from scrapy import Request
from scrapy.crawler import Crawler
from scrapy.http import HtmlResponse, Response
from scrapy.settings import Settings
from scrapy_playwright.page import PageMethod

from linkaudit import internals
from linkaudit.config import config_of
from linkaudit.meta import RENDER, RENDERED
from linkaudit.rendering.memory import Renderers, descendants, shared_bytes, tree_bytes
from linkaudit.rendering.page import PageRead, PageSession, close_page
from linkaudit.rendering.reach import Reach
from linkaudit.signals import request_sent

logger = logging.getLogger(__name__)

CONTEXT = "linkaudit-render"
MEMORY_INTERVAL = 0.25  # seconds between two readings of the browser's memory
MEMORY_INTERVAL_RENDERING = 0.1  # the same, while pages render (they grow fast)
MIN_SHARE = 64  # MiB a renderer may hold at least, whatever the bound leaves
HEADROOM = 64  # MiB of the bound left to the browser's other processes' growth
MiB = 1024 * 1024


class RenderTimeout(Exception):
    """A render that did not finish in ``LINKAUDIT_RENDER_TIMEOUT``."""


class RenderFailed(Exception):
    """A render that cannot be done: the browser did not start."""


class RenderInterrupted(Exception):
    """A render stopped: the audit closes early (Ctrl-C, SIGTERM, a limit)."""


class RenderMemory(Exception):
    """A render cancelled: the browser grew past ``LINKAUDIT_RENDER_MEMORY``."""


def playwright_settings(config: Any, user_agent: str) -> dict[str, Any]:
    """scrapy-playwright's settings, from linkaudit's."""
    memory = config["LINKAUDIT_RENDER_MEMORY"]
    pages = config["LINKAUDIT_RENDER_PAGES"]
    heap = max(32, memory // (2 * pages))  # MiB of JavaScript heap a renderer may hold
    return {
        "PLAYWRIGHT_BROWSER_TYPE": "chromium",
        "PLAYWRIGHT_LAUNCH_OPTIONS": {
            "executable_path": config["LINKAUDIT_BROWSER"],
            "headless": True,
            "handle_sigint": False,
            "handle_sigterm": False,
            "handle_sighup": False,
            "args": [
                f"--js-flags=--max-old-space-size={heap}",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--disable-background-networking",
                "--disable-component-update",
                "--mute-audio",
                # the document is given (route.fulfill), from no address:
                # Chromium takes it for the public internet and refuses its
                # requests to other local hosts (Local Network Access), which
                # a visitor's browser, the page loaded from its own address,
                # lets through (an intranet's API, a build's other host)
                "--disable-features=LocalNetworkAccessChecks",
                # what page.route does not see: a shared worker is a target of
                # its own, whose requests go out unasked (a page's script read
                # a local service through one); WebTransport and WebRTC's UDP
                # are no HTTP requests at all (rendering/reach.py)
                "--disable-blink-features=SharedWorker,WebTransport",
                "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
            ],
        },
        "PLAYWRIGHT_MAX_PAGES_PER_CONTEXT": pages,
        "PLAYWRIGHT_MAX_CONTEXTS": 1,
        "PLAYWRIGHT_DEFAULT_NAVIGATION_TIMEOUT": config["LINKAUDIT_RENDER_TIMEOUT"] * 1000,
        "PLAYWRIGHT_RESTART_DISCONNECTED_BROWSER": True,
        "PLAYWRIGHT_CONTEXTS": {},
        "USER_AGENT": user_agent,
    }


class _CrawlerView:
    """The crawler as scrapy-playwright's handler sees it: the crawler, its
    settings with scrapy-playwright's added (the crawler's are frozen)."""

    def __init__(self, crawler: Crawler, settings: Settings):
        self.crawler = crawler
        self.settings = settings

    def __getattr__(self, name: str) -> Any:
        return getattr(self.crawler, name)


class Browser:
    """The audit's browser, started on the first render."""

    def __init__(self, crawler: Crawler):
        self.crawler = crawler
        config = config_of(crawler)
        self.timeout = config["LINKAUDIT_RENDER_TIMEOUT"]
        self.settle = config["LINKAUDIT_RENDER_SETTLE"]
        self.maxsize = config["LINKAUDIT_PAGE_MAXSIZE"]
        self.memory = config["LINKAUDIT_RENDER_MEMORY"] * MiB
        self.user_agent = crawler.settings.get("USER_AGENT")
        self.settings = playwright_settings(config, self.user_agent)
        self.reach = Reach(crawler)  # what the browser's requests may reach
        self.handler: Any = None
        self.lock = asyncio.Lock()
        self.slots = asyncio.Semaphore(config["LINKAUDIT_RENDER_PAGES"])  # pages at once
        self.inflight: dict[asyncio.Task, PageSession] = {}
        self.stopped: set[PageSession] = set()  # renders the memory bound cancelled
        self.interrupted: set[PageSession] = set()  # renders the audit's early close cancelled
        self.watch: asyncio.Task | None = None
        self.peak = 0
        self.last = (0.0, 0)  # the last reading: (when, bytes)
        self.renderers = Renderers(MIN_SHARE * MiB)  # (their share set once started)
        self.closed = False
        self.broken: str | None = None  # why the browser did not start

    async def start(self) -> Any:
        """scrapy-playwright's handler, made and started once."""
        async with self.lock:
            if self.handler is None:
                from scrapy_playwright.handler import ScrapyPlaywrightDownloadHandler

                settings = self.crawler.settings.copy()
                settings.frozen = False  # a copy of the crawler's: its own to add to
                settings.setdict(self.settings, priority="spider")
                handler = ScrapyPlaywrightDownloadHandler(_CrawlerView(self.crawler, settings))
                await internals.start_playwright(handler)
                self.handler = handler
                try:
                    await internals.launch_browser(handler)
                except Exception as exc:  # once: the pages are read from their HTML
                    lines = str(exc).strip().splitlines()
                    self.broken = (
                        f"the browser did not start ({lines[0][:200] if lines else exc!r})"
                    )
                    logger.error("%s: pages are read from their HTML", self.broken)
                idle = tree_bytes(os.getpid())  # the browser, no page yet
                pages = config_of(self.crawler)["LINKAUDIT_RENDER_PAGES"]
                # (the browser's other processes grow too as pages open: HEADROOM)
                share = max(MIN_SHARE * MiB, (self.memory - idle - HEADROOM * MiB) // pages)
                self.renderers = Renderers(share)
                self.watch = asyncio.ensure_future(self._watch_memory())
                logger.info(
                    "Browser started for rendering: %s",
                    settings["PLAYWRIGHT_LAUNCH_OPTIONS"]["executable_path"],
                )
        return self.handler

    async def download(self, request: Request) -> Response:
        """The render ``request`` asks for, by the browser.  Its time starts
        when a page is free (``LINKAUDIT_RENDER_PAGES``): a render waiting
        for its turn is not cut by the time cap of the one before it."""
        async with self.slots:
            return await self._download(request)

    async def _download(self, request: Request) -> Response:
        if self.closed or internals.engine_closing(self.crawler):
            raise RenderInterrupted("the audit is closing")
        handler = await self.start()
        if self.broken is not None:
            raise RenderFailed(self.broken)
        answer: Response = request.meta[RENDER]
        session = PageSession(
            answer.url,
            answer.status,
            {
                k.decode("latin-1"): b", ".join(v).decode("latin-1")
                for k, v in answer.headers.items()
            },
            answer.body,
            partial(self.reach.admit, hosts=set()),  # (the hosts of this render)
            self.settle,
            self.maxsize,
            # counted as sent, as the handler counts its own (Redis's count of a shared audit)
            lambda: self.crawler.signals.send_catch_log(request_sent, request=request),
        )
        request.meta[RENDERED] = session.facts
        request.meta.update(
            playwright=True,
            playwright_context=CONTEXT,
            playwright_context_kwargs={
                "accept_downloads": False,
                "service_workers": "block",
                "user_agent": self.user_agent,
            },
            playwright_page_init_callback=partial(self._prepare, session),
            # the document committed: the rest is waited for by PageSession.read
            playwright_page_goto_kwargs={"wait_until": "commit", "timeout": self.timeout * 1000},
            playwright_include_page=True,
            # read (and closed) as a page method: before scrapy-playwright
            # serialises the whole DOM for its response (page.py: read)
            playwright_page_methods=[PageMethod(session.read)],
        )
        session.started = time.monotonic()  # (the browser's start is not the page's time)
        return await self._bounded(handler, request, session)

    async def _prepare(self, session: PageSession, page: Any, request: Any) -> None:
        """The page's init callback: its session's, then its renderer held
        to its share of the memory, before its document is given."""
        await session.prepare(page, request)
        self.renderers.hold(descendants(os.getpid()))

    async def _bounded(self, handler: Any, request: Request, session: PageSession) -> Response:
        """The render, within the time cap and the memory bound."""
        task = asyncio.ensure_future(self._render(handler, request, session))
        self.inflight[task] = session
        try:
            return await asyncio.wait_for(asyncio.shield(task), self.timeout)
        except TimeoutError:
            task.cancel()
            await close_page(session.page)
            raise RenderTimeout(f"it did not finish within {self.timeout:g} s") from None
        except asyncio.CancelledError:
            task.cancel()
            await close_page(session.page)
            if session in self.stopped:  # by the memory bound, not by the crawl
                raise RenderMemory(
                    f"the browser used more than {self.memory // MiB} MiB (LINKAUDIT_RENDER_MEMORY)"
                ) from None
            if session in self.interrupted or self.closed:  # Ctrl-C, SIGTERM, a limit
                raise RenderInterrupted("the audit is closing") from None
            raise
        except Exception:
            if session.crashed:  # its renderer died: of its memory share, most likely
                share = self.renderers.share // MiB
                raise RenderMemory(
                    f"its renderer ended, crashed or stopped at its share of "
                    f"LINKAUDIT_RENDER_MEMORY ({share} MiB)"
                ) from None
            raise
        finally:
            self.inflight.pop(task, None)
            self.stopped.discard(session)
            self.interrupted.discard(session)
            # the browser's requests are requests of the audit (summary.requests)
            self.crawler.stats.inc_value("downloader/request_count", session.facts.requests)
            self.crawler.stats.inc_value("linkaudit/renders")
            session.facts.seconds = session.facts.seconds or time.monotonic() - session.started

    async def _render(self, handler: Any, request: Request, session: PageSession) -> Response:
        """The page opened by scrapy-playwright (its document given, not
        requested), read by ``session`` (a page method, which closes the
        page: scrapy-playwright's next step on it then fails, as meant);
        closed whatever happens.  The response is the page's own answer,
        without a body: the crawl reads ``meta[RENDERED]``."""
        try:
            await handler.download_request(request)
        except PageRead:
            pass
        finally:
            await close_page(session.page)
        if not session.done:  # (scrapy-playwright gave an answer without running the read)
            raise RenderFailed("the browser gave no DOM")
        answer: Response = request.meta[RENDER]
        return HtmlResponse(
            answer.url,
            status=answer.status,
            headers=session.headers,
            body=b"",
            encoding="utf-8",
            request=request,
            flags=["rendered"],
        )

    async def _watch_memory(self) -> None:
        """The whole browser's resident memory, read four times a second: past
        the bound, the renders in flight are cancelled (their pages closed);
        so are they when the audit closes early (as queued requests are
        dropped: ``extensions/drain.py``)."""
        me = os.getpid()
        stats = self.crawler.stats
        faulted = False
        while not self.closed:
            try:
                self._look(me, stats)
            except Exception:  # a fault of ours (said once): the renders keep their time cap
                if not faulted:
                    logger.exception("Internal error while reading the browser's memory")
                faulted = True
            await asyncio.sleep(MEMORY_INTERVAL_RENDERING if self.inflight else MEMORY_INTERVAL)

    def _look(self, me: int, stats: Any) -> None:
        """One reading of the browser's memory and of the audit's state.
        The bound is passed, or will be before the next reading at the pace
        the memory grew since the last one: the renderers are killed (their
        memory freed now, not once each page has closed) and the renders in
        flight stopped."""
        pids = descendants(me)
        self.renderers.hold(pids)
        if self.inflight and (full := self.renderers.stop_full()):
            logger.warning(
                "%d renderers reached their share of LINKAUDIT_RENDER_MEMORY (%d MiB): stopped",
                full,
                self.renderers.share // MiB,
            )
        used = shared_bytes(pids)
        now = time.monotonic()
        then, before = self.last
        self.last = (now, used)
        growth = max(0.0, (used - before) / (now - then)) if now > then else 0.0
        if used > self.peak:
            self.peak = used
            stats.set_value("linkaudit/render_memory_peak", used)
        ahead = used + growth * MEMORY_INTERVAL_RENDERING
        if self.inflight and (used > self.memory or ahead > self.memory):
            killed = self.renderers.kill(pids)
            logger.warning(
                "The browser uses %d MiB%s, LINKAUDIT_RENDER_MEMORY is %d MiB: "
                "%d renders stopped (%d renderers killed)",
                used // MiB,
                "" if used > self.memory else f" and grows {growth / MiB:.0f} MiB/s",
                self.memory // MiB,
                len(self.inflight),
                killed,
            )
            for task, session in list(self.inflight.items()):
                self.stopped.add(session)
                task.cancel()
        if self.inflight and internals.engine_closing(self.crawler):
            for task, session in list(self.inflight.items()):
                self.interrupted.add(session)
                task.cancel()

    async def close(self) -> None:
        """Close the browser (and Playwright's driver) if it was started."""
        self.closed = True
        for task in list(self.inflight):
            task.cancel()
        if self.watch is not None:
            self.watch.cancel()
        if self.handler is not None:
            handler, self.handler = self.handler, None
            try:
                await asyncio.wait_for(handler.close(), 30)
            except Exception:
                logger.warning("Closing the browser failed", exc_info=True)
            logger.info("Browser closed")
