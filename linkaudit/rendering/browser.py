"""The browser of an audit: scrapy-playwright's download handler, driving
the system's Chromium, made the first time a page is to be rendered.

``HttpDownloadHandler`` (``linkaudit/network/handler.py``) hands it the
requests that carry a render (``meta[RENDER]``: the page's own answer, as
plain data, ``rules/rendered.py``); everything else goes to
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
- memory: while the browser runs, the memory (PSS: memory.py) of this
  process's children (Playwright's driver, Chromium and its renderers) is
  read by a thread of its own, twenty times a second while pages render;
  past ``LINKAUDIT_RENDER_MEMORY`` MiB, or about to pass it at the pace it
  grows, the renderers are killed (their memory freed at once) and the
  renders in flight cancelled.  Each renderer's JavaScript heap is also
  capped (V8's ``--max-old-space-size``): a page that allocates without
  end there crashes its own renderer first;
- reach: each request of a page's scripts is asked of the audit's scope
  and rules before it is sent (``reach.py``: GET or HEAD, ``--exclude``,
  ``--skip-far``, no local address that is not the site's, a bounded
  number of hosts, robots.txt); what ``page.route`` cannot see is off in
  the browser (shared workers, WebTransport, WebRTC's UDP);
- size: at most ``LINKAUDIT_PAGE_MAXSIZE`` characters of the DOM leave the
  browser, cut there (``page.py``: ``read_dom``);
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
from linkaudit.rendering.memory import Watchdog
from linkaudit.rendering.paced import PacedFetch
from linkaudit.rendering.page import PageRead, PageSession
from linkaudit.rendering.reach import Reach
from linkaudit.rules.rendered import PageAnswer
from linkaudit.signals import request_sent

logger = logging.getLogger(__name__)

CONTEXT = "linkaudit-render"
WATCH_INTERVAL = 0.25  # seconds between two looks at the audit's state (closing)
MEMORY_INTERVAL = 0.05  # seconds between two readings of the memory while pages render
# readings looked ahead at the pace the memory grows: a renderer killed
# between two readings frees its memory a reading or two later
MEMORY_AHEAD = 4
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
        self.paced = PacedFetch(crawler)  # and how they are sent: at their host's pace
        self.handler: Any = None
        self.lock = asyncio.Lock()
        self.slots = asyncio.Semaphore(config["LINKAUDIT_RENDER_PAGES"])  # pages at once
        self.inflight: dict[asyncio.Task, PageSession] = {}
        self.stopped: set[PageSession] = set()  # renders the memory bound cancelled
        self.interrupted: set[PageSession] = set()  # renders the audit's early close cancelled
        self.watch: asyncio.Task | None = None
        self.memory_watch: Watchdog | None = None  # its own thread, once started
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
                loop = asyncio.get_running_loop()
                self.memory_watch = Watchdog(
                    self.memory,
                    lambda *over: loop.call_soon_threadsafe(self._over, *over),
                    MEMORY_INTERVAL,
                    MEMORY_AHEAD,
                )
                self.memory_watch.start()
                self.watch = asyncio.ensure_future(self._watch())
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
        answer: PageAnswer = request.meta[RENDER]
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
            fetch=self.paced,
            timeout=self.timeout,
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
            playwright_page_init_callback=session.prepare,
            # the document committed: the rest is waited for by PageSession.read
            playwright_page_goto_kwargs={"wait_until": "commit", "timeout": self.timeout * 1000},
            playwright_include_page=True,
            # read (and closed) as a page method: before scrapy-playwright
            # serialises the whole DOM for its response (page.py: read)
            playwright_page_methods=[PageMethod(session.read)],
        )
        session.started = time.monotonic()  # (the browser's start is not the page's time)
        return await self._bounded(handler, request, session)

    async def _bounded(self, handler: Any, request: Request, session: PageSession) -> Response:
        """The render, within the time cap and the memory bound."""
        task = asyncio.ensure_future(self._render(handler, request, session))
        self.inflight[task] = session
        if self.memory_watch is not None:
            self.memory_watch.rendering.set()
        try:
            return await asyncio.wait_for(asyncio.shield(task), self.timeout)
        except TimeoutError:
            task.cancel()
            await session.close()
            raise RenderTimeout(f"it did not finish within {self.timeout:g} s") from None
        except asyncio.CancelledError:
            task.cancel()
            await session.close()
            if session in self.stopped:  # by the memory bound, not by the crawl
                raise RenderMemory(
                    f"the browser used more than {self.memory // MiB} MiB (LINKAUDIT_RENDER_MEMORY)"
                ) from None
            if session in self.interrupted or self.closed:  # Ctrl-C, SIGTERM, a limit
                raise RenderInterrupted("the audit is closing") from None
            raise
        except Exception:
            if session in self.stopped:  # its renderer killed by the memory bound
                raise RenderMemory(
                    f"the browser used more than {self.memory // MiB} MiB (LINKAUDIT_RENDER_MEMORY)"
                ) from None
            if session.crashed:
                raise RenderFailed("its renderer crashed") from None
            raise
        finally:
            self.inflight.pop(task, None)
            # what its scripts asked for and the downloader has not sent: never sent now
            dropped = self.paced.drop(session)
            if dropped:
                self.crawler.stats.inc_value("linkaudit/render_requests_dropped", dropped)
            if not self.inflight and self.memory_watch is not None:
                self.memory_watch.rendering.clear()
            self.stopped.discard(session)
            self.interrupted.discard(session)
            # the browser's requests are requests of the audit (summary.requests):
            # those the downloader sent are counted as it sent them (paced.py)
            self.crawler.stats.inc_value("downloader/request_count", session.direct)
            self.crawler.stats.inc_value("linkaudit/renders")
            session.facts.seconds = session.facts.seconds or time.monotonic() - session.started

    async def _render(self, handler: Any, request: Request, session: PageSession) -> Response:
        """The page opened by scrapy-playwright (its document given, not
        requested), read by ``session`` (a page method, which closes the
        page: scrapy-playwright's next step on it then fails, as meant);
        closed whatever happens.  The response is the page's own answer
        again (a render's answer, phase ``render``), with what the browser
        made of it in ``meta[RENDERED]``."""
        try:
            await handler.download_request(request)
        except PageRead:
            pass
        finally:
            await session.close()
        if not session.done:  # (scrapy-playwright gave an answer without running the read)
            raise RenderFailed("the browser gave no DOM")
        answer: PageAnswer = request.meta[RENDER]
        return HtmlResponse(
            answer.url,
            status=answer.status,
            headers=answer.headers,
            body=answer.body,
            encoding=answer.encoding,
            request=request,
            flags=["rendered"],
        )

    async def _watch(self) -> None:
        """The audit's state, four times a second: when it closes early, the
        renders in flight are cancelled (as queued requests are dropped:
        ``extensions/drain.py``); the memory watchdog's peak, and a fault
        of its own, said once."""
        stats, said = self.crawler.stats, False
        while not self.closed:
            watch = self.memory_watch
            if watch is not None:
                if watch.peak:
                    stats.set_value("linkaudit/render_memory_peak", watch.peak)
                if watch.fault is not None and not said:
                    said = True
                    logger.error(
                        "Internal error while reading the browser's memory",
                        exc_info=watch.fault,
                    )
            if self.inflight and internals.engine_closing(self.crawler):
                for task, session in list(self.inflight.items()):
                    self.interrupted.add(session)
                    task.cancel()
            await asyncio.sleep(WATCH_INTERVAL)

    def _over(self, used: int, growth: float, killed: int) -> None:
        """The memory watchdog found the browser past its bound, or about to
        pass it, and killed its renderers: the renders in flight stopped."""
        if not self.inflight:
            return
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

    async def close(self) -> None:
        """Close the browser (and Playwright's driver) if it was started."""
        self.closed = True
        for task in list(self.inflight):
            task.cancel()
        if self.watch is not None:
            self.watch.cancel()
        if self.memory_watch is not None:
            self.memory_watch.stopped.set()
            if self.memory_watch.peak:
                self.crawler.stats.set_value("linkaudit/render_memory_peak", self.memory_watch.peak)
        if self.handler is not None:
            handler, self.handler = self.handler, None
            try:
                await asyncio.wait_for(handler.close(), 30)
            except Exception:
                logger.warning("Closing the browser failed", exc_info=True)
            logger.info("Browser closed")
