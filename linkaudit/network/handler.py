"""The download handler for ``http`` and ``https`` (``DOWNLOAD_HANDLERS``):
Scrapy's HTTP/1.1 handler, minus two costs per connection.

- Twisted builds a ``HostnameEndpoint`` for every request, and each one
  encodes its hostname with the ``idna`` package (IDNA 2008 checks, label by
  label): about 3 % of an audit's CPU, for the same few hostnames over and
  over.  The encoding is cached.
- A host with one address is connected to directly
  (``linkaudit/network/endpoint.py``): a refused connection is reported at
  once, not at Twisted's next 0.3 s address-race tick.

Its download timeout counts the server's time, not ours: when the timer
fires, the seconds our own code held the event loop since the download
started (``linkaudit/network/looplag.py``) are waited again, at most one
more timeout in all (stat ``linkaudit/timeouts_extended``).

These are patches of Twisted's module attributes and of Scrapy's download
agent (whose timer is its private ``_timeout_cl``), installed when the
handler is created (``linkaudit/internals.py``).

A download that times out before its connection was made fails with
:class:`~linkaudit.exceptions.ConnectTimedOut` (a ``DownloadTimeoutError``
still): the server never accepted the connection, which says it cannot be
reached, where a server that accepted it and answered too slowly is only
slow (``middlewares/robots.py`` tells the two apart for a robots.txt).
Scrapy's agent reports both as the same ``DownloadTimeoutError``; what its
timer interrupted tells them apart: a connection still being made (or a
name still being resolved) fails with Twisted's
``ConnectingCancelledError``, or with Twisted's own connect ``TimeoutError``
(a backstop, ``network/endpoint.py``), and nothing else does.

It also sends ``request_sent`` (``linkaudit/signals.py``) as each request
goes to the network: later than Scrapy's ``request_reached_downloader``,
which fires while the request may still wait in its slot's queue.

With ``LINKAUDIT_HTTP_CLIENT`` other than ``twisted``, the requests go to
that client's Scrapy handler (``network/clients.py``) instead, without the
cuts and the fair timeout above (none of them is the default: see there).
"""

from __future__ import annotations

from typing import Any

from scrapy import Request
from scrapy.crawler import Crawler
from scrapy.exceptions import DownloadTimeoutError
from scrapy.http import Response
from twisted.internet import error as twisted_error
from twisted.internet.defer import Deferred
from twisted.python.failure import Failure

from linkaudit import internals
from linkaudit.exceptions import ConnectTimedOut
from linkaudit.meta import RENDER
from linkaudit.network.clients import TWISTED, make_client
from linkaudit.network.endpoint import HostnameEndpoint
from linkaudit.network.looplag import INTERVAL, LoopLag
from linkaudit.signals import request_sent

http11 = internals.scrapy_http11()  # Scrapy's own, imported at less cost

# what a download fails with when no connection was made (see above)
CONNECTING = (twisted_error.ConnectingCancelledError, twisted_error.TimeoutError)


class HttpDownloadHandler(http11.HTTP11DownloadHandler):
    """``http`` and ``https`` downloads (see ``DOWNLOAD_HANDLERS``)."""

    def __init__(self, crawler: Crawler):
        super().__init__(crawler)
        # another client than Twisted's: the requests go to its handler, made
        # on the first request (aiohttp's session needs the running loop)
        self._client_name = crawler.settings.get("LINKAUDIT_HTTP_CLIENT", TWISTED)
        self._client: Any = None
        if self._client_name == TWISTED:
            internals.cache_hostname_encoding()
            internals.connect_single_addresses_directly(HostnameEndpoint)
            internals.time_downloads_with(FairAgent)
        self._lag = LoopLag.of(crawler)
        self._lag.start()
        self._browser: Any = None  # --render: made on the first render (rendering/)

    async def download_request(self, request: Request) -> Response:
        if RENDER in request.meta:  # a page's render: the browser's, not a request of ours
            if self._browser is None:
                from linkaudit.rendering.browser import Browser

                self._browser = Browser(self.crawler)
            return await self._browser.download(request)
        self.crawler.signals.send_catch_log(request_sent, request=request)
        if self._client_name != TWISTED:
            if self._client is None:
                self._client = make_client(self._client_name, self.crawler)
                # said in the statistics: the stats dump at the end names it
                self.crawler.stats.set_value("linkaudit/http_client", self._client_name)
            return await self._client.download_request(request)
        return await super().download_request(request)

    async def close(self) -> None:
        self._lag.stop()
        if self._browser is not None:
            await self._browser.close()
        if self._client is not None:
            await self._client.close()
        await super().close()


class FairAgent(internals.download_agent_class()):  # type: ignore[misc]
    """Scrapy's download agent, its timeout replaced by a :class:`FairTimer`."""

    def download_request(self, request: Request) -> Deferred[Response]:
        deferred = super().download_request(request)
        scrapy_timer = internals.agent_timer(self)
        if scrapy_timer is not None and scrapy_timer.active():
            scrapy_timer.cancel()
            timeout = request.meta.get("download_timeout") or internals.agent_connect_timeout(self)
            lag = LoopLag.of(internals.agent_crawler(self))
            FairTimer(self, deferred, timeout, lag).arm(timeout)
        return deferred

    def _cb_timeout(self, result: Any, request: Request, url: str, timeout: float) -> Any:
        """Scrapy's check of the download's timer (a hook: see
        ``linkaudit/internals.py``), and a timeout before any connection
        said as such."""
        connecting = isinstance(result, Failure) and result.check(*CONNECTING) is not None
        try:
            result = super()._cb_timeout(result, request, url, timeout)
        except DownloadTimeoutError:  # our timer fired: what did it interrupt?
            if not connecting:
                raise
        if not connecting:
            return result
        words = f"No connection to {url} within {timeout:g} s"
        raise ConnectTimedOut(words) from result.value


class FairTimer:
    """A download's timeout that does not count the seconds our code held
    the event loop: due, it waits those seconds again (at most one more
    timeout in all, so a silent server is still reported in time), then
    cancels the download, which Scrapy's agent reports as timed out."""

    def __init__(self, agent: Any, deferred: Deferred, timeout: float, lag: LoopLag) -> None:
        self.agent, self.deferred, self.timeout, self.lag = agent, deferred, timeout, lag
        self.started = lag.held()
        self.extended = 0.0

    def arm(self, seconds: float) -> None:
        from twisted.internet import reactor

        # the agent's own check: its timer still active means "answered in time"
        internals.set_agent_timer(self.agent, reactor.callLater(seconds, self.due))

    def due(self) -> None:
        held = self.lag.held() - self.started - self.extended
        more = min(held, self.timeout - self.extended)
        if more < INTERVAL:
            self.deferred.cancel()
            return
        if not self.extended:
            internals.agent_crawler(self.agent).stats.inc_value("linkaudit/timeouts_extended")
        self.extended += more
        self.arm(more)
