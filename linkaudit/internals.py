"""The Scrapy, Twisted and argparse internals linkaudit depends on, in one
place: no other module names a private ``_attribute`` of theirs.

Checked against Scrapy 2.19.0 and Twisted 26.10.0 (the versions
``requirements.txt`` pins) and Python 3.11's argparse.  Nothing here imports
Scrapy or Twisted until a function needs it (``linkaudit --version`` and a
walked build import neither).  Each function says what it reads or changes; a
new Scrapy or Twisted that moves one of them breaks here, not across the
code.  Where an attribute is missing the functions degrade to doing
nothing rather than failing an audit.

- Scrapy's engine keeps the scheduler and the "closing" state on a private
  slot (``engine._slot``): the progress line counts queued requests, and the
  drain notices an early close (Scrapy has no signal for it).
- The downloader's per-host slots (``downloader.slots``, each with a
  ``queue`` of (request, deferred) and a ``delay``): the drain empties the
  queues, robots.txt ``Crawl-delay`` raises the delay, a throttling host's
  ``concurrency`` is lowered (:func:`set_slot_concurrency`); the delay new slots
  start with (``downloader._delay``, which AutoThrottle sets too) gets the
  pacing margin.
- The scraper's ``_start_itemproc_nowait`` (what the engine does with an
  item ``start()`` yields): a URL of the frontier settled without a request
  (an altered state) is handed to the pipelines from the scheduler
  (``next_request``, or a shared audit's poll).
- Scrapy's HTTP/1.1 handler builds its download agent from the module
  attribute ``http11._ScrapyAgent``, replaced by a subclass that swaps the
  agent's private download timer ``_timeout_cl`` (and reads its
  ``_connectTimeout`` and ``_crawler``: :func:`agent_timer` and the next)
  for one that does not count the seconds our code held the event loop.
- Twisted: ``twisted.internet.endpoints._idnaBytes`` is wrapped in a cache,
  and ``twisted.web.client.HostnameEndpoint`` is replaced by
  ``linkaudit.network.endpoint.HostnameEndpoint``, which asks
  :func:`endpoint_target` and :func:`endpoint_resolver` for what Twisted's
  endpoint keeps privately (``_reactor``, ``_hostText``, ``_port``,
  ``_timeout``, ``_bindAddress``, ``_badHostname``, and its resolver from
  ``_getNameResolverAndMaybeWarn``).
- Scrapy's robots.txt middleware, which ``middlewares/robots.py`` subclasses,
  keeps its parsers per host in ``_parsers`` and forgets a failed robots.txt
  with ``_robots_error`` (:func:`robots_parsers`, :func:`robots_failed`).
- Scrapy's decompression middleware splits a ``Content-Encoding`` into what
  it decodes and what it keeps with ``_split_encodings``
  (:func:`split_encodings`, for ``middlewares/decompress.py``).
- Scrapy's ``scrapy.utils.deprecate`` looks up the module that defines a
  deprecated class with ``inspect.stack()`` (the source lines of every frame
  of the call stack, and a scan of ``sys.modules`` for each); importing its
  HTTP/1.1 handler defines three (TLS context factories), 0.03-0.1 s of every
  start.  :func:`scrapy_http11` imports the handler with that module's
  ``inspect`` replaced, for the import only, by one that finds the same
  frame and module directly.
- Scrapy's private helpers of its HTTP handlers
  (``scrapy.utils._download_handlers``: the ``headers_received`` and
  ``bytes_received`` signals with their ``StopDownload``, the response built
  as they build it, the ``DOWNLOAD_MAXSIZE`` message): the local build's
  handler (``linkaudit/localbuild/handler.py``) answers as they do.
- Scrapy's cookies middleware asks ``scrapy...cookies._split_domain`` (a
  ``tldextract`` instance) for public suffixes: replaced by one that uses
  the list bundled with tldextract (:func:`bundled_public_suffixes`).
- Private hooks overridden where they are: the robots.txt middleware's
  ``_parse_robots`` (``middlewares/robots.py`` bounds a robots.txt first:
  tests/test_politeness.py), the CSV exporter's ``_join_if_needed``
  (``output/exporters.py``: list cells as JSON, tests/test_feeds.py), the
  redirect middleware's ``_engine_started`` (``middlewares/redirects.py``:
  no warning that Scrapy's Referer middleware is off), the download agent's
  ``_cb_timeout`` (``network/handler.py``: a timeout before any connection
  is ``ConnectTimedOut``, tests/test_unreachable.py).
- Twisted's client errors are in its private ``twisted.web._newclient``.
- Scrapy's httpx download handler is in its private module ``_httpx``
  (:func:`scrapy_httpx_handler`, for ``LINKAUDIT_HTTP_CLIENT=httpx``), and
  the base class of the asyncio handlers that logs their warning in
  ``_base_streaming`` (:func:`streaming_handlers_logger`).
- argparse: ``config/file.py`` reads a parser's options and exclusive
  groups, converts a value as the command line does, and knows the classes
  of ``append``, ``count``, ``store_const``; the help overrides two hooks
  (:class:`HelpFormatter`).  Renamed, ``--config`` and ``--help`` break.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import inspect
import sys
from collections.abc import Iterator
from types import FrameType, ModuleType
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.http import Request


def engine_closing(crawler: Crawler) -> bool:
    """The engine is stopping or closing the spider."""
    engine = crawler.engine
    slot = getattr(engine, "_slot", None)
    return not engine.running or (slot is not None and slot.closing is not None)


def scheduler_size(crawler: Crawler) -> int:
    """Requests waiting in Scrapy's scheduler."""
    slot = getattr(crawler.engine, "_slot", None)
    scheduler = getattr(slot, "scheduler", None)
    return len(scheduler) if scheduler is not None else 0


def in_flight(crawler: Crawler) -> int:
    """Requests the downloader holds (queued per host or on the wire)."""
    return len(crawler.engine.downloader.active)


def queued_downloads(crawler: Crawler, key: str | None = None) -> Iterator[tuple[Request, Any]]:
    """Take the (request, deferred) pairs still queued in the downloader's
    per-host slots (or slot ``key``'s alone), not yet sent."""
    slots = crawler.engine.downloader.slots
    for slot in list(slots.values()) if key is None else [slots.get(key)]:
        queue = getattr(slot, "queue", None)
        while queue:
            yield queue.popleft()


def download_slot(crawler: Crawler, request: Request) -> Any | None:
    """The downloader's slot for ``request``'s host (None before one exists);
    its ``delay`` is the seconds between two requests to that host."""
    downloader = crawler.engine.downloader
    return downloader.slots.get(downloader.get_slot_key(request))


def set_slot_concurrency(slot: Any, concurrency: int) -> None:
    """Requests on the wire at a time to a slot's host (a throttling host:
    ``hosts/backoff.py``).  Scrapy reads ``slot.concurrency`` each time it
    sends the slot's next request (``free_transfer_slots``), so lowering it
    holds back the next ones and leaves those on the wire alone; a slot
    Scrapy drops when idle comes back with ``CONCURRENT_REQUESTS_PER_DOMAIN``,
    and the back-off lowers it again at the host's next request.  Without
    the attribute this does nothing (the host keeps its pace)."""
    if hasattr(slot, "concurrency"):
        slot.concurrency = max(1, int(concurrency))


def set_default_delay(crawler: Crawler, delay: float) -> None:
    """The delay of the download slots created from now on (Scrapy's
    AutoThrottle sets the same attribute when the spider opens)."""
    downloader = crawler.engine.downloader
    if hasattr(downloader, "_delay"):
        downloader._delay = delay


def cache_hostname_encoding() -> None:
    """Cache Twisted's IDNA encoding of host names (Scrapy patches the same
    function when its handler is created; ours wraps Scrapy's)."""
    from twisted.internet import endpoints

    current = endpoints._idnaBytes
    if not hasattr(current, "cache_info"):  # not wrapped yet
        endpoints._idnaBytes = functools.lru_cache(maxsize=4096)(current)


def connect_single_addresses_directly(endpoint_class: type) -> None:
    """Twisted's HTTP agent builds ``endpoint_class`` from now on (the
    endpoint of ``linkaudit/network/endpoint.py``)."""
    from twisted.internet import endpoints
    from twisted.web import client

    if client.HostnameEndpoint is endpoints.HostnameEndpoint:
        client.HostnameEndpoint = endpoint_class


class EndpointTarget(NamedTuple):
    """What a Twisted ``HostnameEndpoint`` was built with."""

    reactor: Any
    host: str  # the host name as text (IDNA decoded)
    port: int
    timeout: float  # seconds to connect
    bind_address: Any  # the local address to bind, or None
    bad_hostname: bool  # the name does not encode: Twisted's connect fails it


def endpoint_target(endpoint: Any) -> EndpointTarget:
    """The private attributes of Twisted 26.10.0's ``HostnameEndpoint``
    (``_reactor``, ``_hostText``, ``_port``, ``_timeout``, ``_bindAddress``,
    ``_badHostname``), by name."""
    return EndpointTarget(
        endpoint._reactor,
        endpoint._hostText,
        endpoint._port,
        endpoint._timeout,
        endpoint._bindAddress,
        endpoint._badHostname,
    )


def endpoint_resolver(endpoint: Any) -> Any:
    """The name resolver Twisted 26.10.0's ``HostnameEndpoint`` resolves
    with (its reactor's, ``_getNameResolverAndMaybeWarn``: a resolver of
    the old interface is wrapped, with a deprecation warning)."""
    return endpoint._getNameResolverAndMaybeWarn(endpoint._reactor)


def robots_parsers(middleware: Any) -> dict[str, Any]:
    """Scrapy 2.19.0's ``RobotsTxtMiddleware._parsers``: netloc -> its robots.txt
    parser (None: no rules), or a Deferred while the robots.txt is read; the
    dict itself, so that a subclass's ``robot_parser`` writes where the
    parent reads."""
    return middleware._parsers


def robots_failed(middleware: Any, exc: Exception, netloc: str) -> None:
    """Scrapy 2.19.0's ``RobotsTxtMiddleware._robots_error``: the robots.txt of
    ``netloc`` could not be read (no rules: everything allowed), counted in
    the stats unless ``exc`` is an ``IgnoreRequest``."""
    middleware._robots_error(exc, netloc)


def split_encodings(encodings: list[bytes]) -> tuple[list[bytes], list[bytes]]:
    """Scrapy 2.19.0's ``HttpCompressionMiddleware._split_encodings``: a
    response's ``Content-Encoding`` values as (to decode: the last applied
    first, down to one Scrapy cannot decode; to keep: that one and those
    applied before it)."""
    from scrapy.downloadermiddlewares.httpcompression import HttpCompressionMiddleware

    return HttpCompressionMiddleware._split_encodings(encodings)


def send_item(crawler: Crawler, item: Any) -> None:
    """Hand ``item`` to the item pipelines from outside a callback (the
    scheduler's ``next_request``, a shared audit's poll).  Scrapy's engine
    does the same with the items a spider's ``start()`` yields: the scraper
    counts the item at once, so the spider is not idle (nor closed) before
    the pipelines have run it."""
    scraper = crawler.engine.scraper
    nowait = getattr(scraper, "_start_itemproc_nowait", None)
    if nowait is not None:
        nowait(item)
    else:  # pragma: no cover - a Scrapy without it: the public coroutine
        from scrapy.utils.defer import deferred_from_coro

        deferred_from_coro(scraper.start_itemproc_async(item, response=None))


def time_downloads_with(agent_class: type) -> None:
    """Scrapy's HTTP/1.1 handler builds a ``_ScrapyAgent`` per download
    (a module attribute, replaced here by ``agent_class``, its subclass in
    ``linkaudit/network/handler.py``, which swaps the agent's private
    download timer ``_timeout_cl`` for one of its own)."""
    from scrapy.core.downloader.handlers import http11

    if hasattr(http11, "_ScrapyAgent"):
        http11._ScrapyAgent = agent_class


class _CallerLookup:
    """``inspect`` for ``scrapy.utils.deprecate``: ``stack()[1][0]`` is the
    caller's frame, as with ``inspect.stack()``, without reading the
    source of every frame; ``getmodule(frame)`` is the module that frame
    runs in.  Everything else is ``inspect``'s."""

    def __getattr__(self, name: str) -> Any:
        return getattr(inspect, name)

    @staticmethod
    def stack(context: int = 1) -> list[tuple[FrameType | None]]:
        here = sys._getframe(1)  # the frame that asked for the stack
        return [(here,), (here.f_back,)]

    @staticmethod
    def getmodule(frame: Any, _filename: str | None = None) -> ModuleType | None:
        if isinstance(frame, FrameType):
            return sys.modules.get(frame.f_globals.get("__name__", ""))
        return inspect.getmodule(frame, _filename)


@contextlib.contextmanager
def _cheap_deprecations() -> Iterator[None]:
    from scrapy.utils import deprecate

    if getattr(deprecate, "inspect", None) is not inspect:  # moved: leave it
        yield
        return
    deprecate.inspect = _CallerLookup()  # type: ignore[assignment]
    try:
        yield
    finally:
        deprecate.inspect = inspect


def scrapy_http11() -> ModuleType:
    """Scrapy's HTTP/1.1 download handler module, imported without the
    cost of its deprecated classes' ``inspect.stack()`` (see above)."""
    name = "scrapy.core.downloader.handlers.http11"
    if name not in sys.modules:
        with _cheap_deprecations():
            __import__(name)
    return sys.modules[name]


def scrapy_httpx_handler() -> str:
    """The path of Scrapy's own httpx download handler, in a private module
    (``_httpx``) while Scrapy calls it not ready for production
    (``LINKAUDIT_HTTP_CLIENT=httpx``, ``network/clients.py``)."""
    return "scrapy.core.downloader.handlers._httpx.HttpxDownloadHandler"


def streaming_handlers_logger() -> str:
    """The logger of the base class of Scrapy's asyncio handlers (httpx's,
    the incubator's), which warns that each is experimental."""
    return "scrapy.core.downloader.handlers._base_streaming"


# -- Scrapy's HTTP handlers' helpers, for the local build's handler -------------------
def download_helpers() -> ModuleType:
    """``check_stop_download``, ``get_maxsize_msg``, ``make_response``."""
    from scrapy.utils import _download_handlers

    return _download_handlers


# -- the download agent's timer --------------------------------------------------------
def download_agent_class() -> type:
    """Scrapy's download agent (``http11._ScrapyAgent``), to subclass."""
    return scrapy_http11()._ScrapyAgent


def agent_timer(agent: Any) -> Any | None:
    """The agent's download timeout call (None: Scrapy set none)."""
    return getattr(agent, "_timeout_cl", None)


def set_agent_timer(agent: Any, call: Any) -> None:
    """The agent checks this call is still active to tell "answered in time"."""
    agent._timeout_cl = call


def agent_connect_timeout(agent: Any) -> float:
    return agent._connectTimeout


def agent_crawler(agent: Any) -> Crawler:  # Scrapy's agent keeps the crawler privately
    return agent._crawler


# -- cookies, robots.txt, Twisted's client errors ---------------------------------------
def bundled_public_suffixes() -> None:
    """Scrapy's cookies middleware asks tldextract for public suffixes with
    one that never downloads the list (see ``middlewares/cookiejar.py``)."""
    from scrapy.downloadermiddlewares import cookies
    from tldextract import TLDExtract

    cookies._split_domain = TLDExtract(  # type: ignore[attr-defined]
        cache_dir=None, suffix_list_urls=(), include_psl_private_domains=True
    )


def newclient_errors() -> ModuleType:
    """``twisted.web._newclient``: ParseError, ResponseFailed..."""
    from twisted.web import _newclient as errors

    return errors


# -- argparse ----------------------------------------------------------------------------
AppendAction = argparse._AppendAction
CountAction = argparse._CountAction
StoreConstAction = argparse._StoreConstAction  # store_true and store_false too


def parser_actions(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    """Every option of ``parser``, in the order added."""
    return parser._actions


def exclusive_groups(parser: argparse.ArgumentParser) -> list[list[argparse.Action]]:
    """The options of each mutually exclusive group (the same objects)."""
    return [group._group_actions for group in parser._mutually_exclusive_groups]


def convert_value(parser: argparse.ArgumentParser, action: argparse.Action, text: str) -> Any:
    """``text`` through ``action``'s type, as the command line's (raises
    ``argparse.ArgumentError``)."""
    return parser._get_value(action, text)


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """argparse's formatter with its two hooks named: :meth:`help_text` (an
    option's help, "(default: ...)" added) and :meth:`lines` (a help text
    wrapped)."""

    def help_text(self, action: argparse.Action) -> str:
        return super()._get_help_string(action) or ""

    def lines(self, text: str, width: int) -> list[str]:
        return super()._split_lines(text, width)

    def _get_help_string(self, action: argparse.Action) -> str:
        return self.help_text(action)

    def _split_lines(self, text: str, width: int) -> list[str]:
        return self.lines(text, width)


async def start_playwright(handler: Any) -> None:
    """Start scrapy-playwright's handler made after the engine started: it
    starts Playwright (``_launch``) on ``engine_started``, which has been
    sent by the time a page is rendered; the browser itself is launched by
    its first page."""
    await handler._launch()


async def launch_browser(handler: Any) -> None:
    """Have scrapy-playwright's handler launch its browser now
    (``_maybe_launch_browser``, what its first page would do): a browser
    that does not start is known once, not at every page."""
    await handler._maybe_launch_browser()
