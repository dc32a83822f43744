"""robots.txt as RFC 9309 reads it, with failures said in one line.

Scrapy's RobotsTxtMiddleware parses whatever body comes back, so a 503 page
becomes "allow everything", and it logs a robots.txt that got no answer at
ERROR with a traceback.  This subclass keeps its fetching and caching and
changes what an answer means:

- 2xx: parsed (at most ``LINKAUDIT_ROBOTSTXT_MAXSIZE`` bytes, default 500 KiB,
  the RFC's minimum a crawler must read; §2.5 lets it ignore the rest).  The
  download stops there (a 1 GiB or endless robots.txt of a far host costs
  500 KiB, not the process's memory), and a compressed one is inflated to
  that size and no further; what was read is parsed, never an error;
- 429 or 503 with ``Retry-After`` (within ``LINKAUDIT_RETRY_AFTER_MAX``,
  at most ``LINKAUDIT_RETRY_AFTER_TIMES`` times): the host is held
  (``hosts/holds.py``), the requests waiting for its robots.txt go back to
  the scheduler, set aside, and the first one given back asks again.  No
  download place is held meanwhile, and Ctrl-C does not wait for it;
- 4xx: no rules, everything allowed;
- 5xx (after any Retry-After waits): the host counts as disallowed for this
  run (RFC 9309), and each URL there is ``blocked`` with that reason;
- no answer within ``DOWNLOAD_TIMEOUT`` from a server that accepted the
  connection: the host's URLs are not requested and end ``unchecked``, the
  reason naming robots.txt (RFC 9309, 2.3.1.4: an unreachable robots.txt
  means no crawling).  Before, the host failure cache (hosts/failures.py)
  took the timeout for a dead host and failed every URL there ``Timed out``
  without asking it: a verdict on links never requested, of a host that
  may only have a slow robots.txt;
- any other failure to get an HTTP answer, a server that cannot be reached
  at all included (no connection within ``DOWNLOAD_TIMEOUT``: its packets
  dropped, ``network/handler.py`` tells it from a slow answer): one INFO
  line, and the URLs are requested anyway, so that each reports the real
  failure (``DNS lookup failed``, ``Connection refused``, ``Could not
  connect within 15 s``) as ``broken`` rather than hiding it behind
  ``blocked`` or ``unchecked``: a visitor's browser gives up on such a
  server too, so those say that a link is dead.  The host failure cache
  fails them at once, with the robots.txt's words, without asking again.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from scrapy import signals
from scrapy.crawler import Crawler
from scrapy.exceptions import IgnoreRequest, StopDownload
from scrapy.http import Request, Response
from scrapy.http.request import NO_CALLBACK
from scrapy.robotstxt import RobotParser
from scrapy.utils.defer import maybe_deferred_to_future
from scrapy.utils.httpobj import urlparse_cached
from twisted.internet.defer import Deferred

from linkaudit import internals
from linkaudit.config import config_of
from linkaudit.exceptions import HostHeld, RobotsBlocked, RobotsTxtWait, RobotsUnanswered
from linkaudit.meta import HELD_ONCE, MAXSIZE, RETRY_AFTER_TRIES, ROBOTS_TXT, TRUNCATED
from linkaudit.network.failures import (
    describe_failure,
    is_network_failure,
    is_timeout,
    never_connected,
)
from linkaudit.rules.sitemap import robots_sitemaps
from linkaudit.signals import robots_asked
from linkaudit.signals import robots_sitemaps as robots_sitemaps_found

logger = logging.getLogger(__name__)

DISALLOW_ALL = b"User-agent: *\nDisallow: /\n"
_READ = "la_robots_read"  # bytes of a robots.txt body received so far


class RobotsMiddleware(internals.robots_middleware_class()):  # type: ignore[misc]
    def __init__(self, crawler: Crawler):
        super().__init__(crawler)
        self.maxsize = config_of(crawler)["LINKAUDIT_ROBOTSTXT_MAXSIZE"]
        self.reasons: dict[str, str] = {}  # netloc -> why everything is disallowed
        self.unanswered: dict[str, str] = {}  # netloc -> why nothing there is asked
        self.timeout = config_of(crawler)["DOWNLOAD_TIMEOUT"]
        # netloc -> its robots.txt's waits so far, and when the one asked for ends
        self.waits: dict[str, tuple[int, float]] = {}
        self.news: dict[str, Deferred[None]] = {}  # netloc -> fired when a fetch ends
        crawler.signals.connect(self._on_bytes, signal=signals.bytes_received)
        crawler.signals.connect(self.allows, signal=robots_asked)
        settings = crawler.settings
        self.useragent = settings.get("ROBOTSTXT_USER_AGENT") or settings.get("USER_AGENT")

    async def allows(self, url: str) -> bool:
        """robots.txt's verdict for a URL a rendering browser is about to
        request (the ``robots_asked`` signal): fetched as for any request
        of the audit, the first time its host is met.  Only an answer
        allows: a robots.txt that could not be fetched (no parser), for the
        network's fault or ours (out of file descriptors), refuses: the
        browser's request is a page's wish, not a link to report."""
        try:
            request = Request(url, meta={"dont_obey_robotstxt": True})
        except ValueError:
            return False
        try:
            parser = await self.robot_parser(request)
        except HostHeld:  # its robots.txt asked to wait: not known, not allowed
            return False
        netloc = urlparse_cached(request).netloc
        if netloc in self.unanswered or netloc in self.reasons:
            return False
        return parser is not None and parser.allowed(url, self.useragent)

    def _on_bytes(self, data: bytes, request: Request, spider: Any) -> None:
        """Stop a robots.txt download once past its cap: the response keeps
        what was read (``StopDownload(fail=False)``), which is parsed."""
        meta = request.meta
        if MAXSIZE in meta:
            meta[_READ] = read = meta.get(_READ, 0) + len(data)
            if read > meta[MAXSIZE]:
                meta[TRUNCATED] = True
                raise StopDownload(fail=False)

    async def robot_parser(self, request: Request) -> RobotParser | None:
        """The parent's method, but a fetch failure is one line, not a
        traceback, and a robots.txt that asks to wait (429 or 503 with
        ``Retry-After``) holds its host instead of a download place: the
        requests waiting for it leave the downloader (:class:`HostHeld`:
        set aside by the scheduler until the wait is over), and the first
        one given back asks for the robots.txt again."""
        netloc = urlparse_cached(request).netloc
        parsers = internals.robots_parsers(self)
        tries = None
        if netloc not in parsers:
            parsers[netloc] = Deferred()
            tries = 0
        elif netloc in self.waits and self._waited(request, netloc):
            tries, _ = self.waits.pop(netloc)  # the wait is over: asked again
        if tries is not None:
            await self._fetch(request, netloc, tries)
        while isinstance(parsers[netloc], Deferred):
            if netloc in self.waits:  # the host waits, not in a download place
                raise HostHeld(f"robots.txt of {netloc} asked to wait (Retry-After)")
            # Not the parsers' Deferred: turning a Deferred into a Future
            # consumes it (Twisted's asFuture), so with several requests
            # waiting for one robots.txt, Scrapy's version hands the parser
            # to the first and None ("allowed") to the others, which were
            # then sent whatever robots.txt says.  The outcome is in the
            # parsers; this says when to look again.
            news = self.news.setdefault(netloc, Deferred())
            await maybe_deferred_to_future(news)
        parser: RobotParser | None = parsers[netloc]  # (a parser, or None: no rules)
        return parser

    async def _fetch(self, request: Request, netloc: str, tries: int) -> None:
        """Ask ``netloc``'s robots.txt (its ``tries``-th wait behind it) and
        keep the outcome: a parser, no rules, or a wait."""
        robots = Request(
            f"{urlparse_cached(request).scheme}://{netloc}/robots.txt",
            priority=self.DOWNLOAD_PRIORITY,
            # Scrapy's size limits would cancel the download (and then
            # allow everything): ours cut it and keep what was read
            meta={
                "dont_obey_robotstxt": True,
                MAXSIZE: self.maxsize,
                "download_maxsize": 0,
                "download_warnsize": 0,
                RETRY_AFTER_TRIES: tries,
                ROBOTS_TXT: True,
            },
            callback=NO_CALLBACK,
        )
        try:
            response = await self.crawler.engine.download_async(robots)
            await self.parse_robots(response, netloc, request)
        except RobotsTxtWait as wait:  # its host is held (hosts/retryafter.py)
            self.waits[netloc] = (wait.tries, wait.until)
        except Exception as exc:
            self._failed(exc, request, netloc)
        finally:
            self.crawler.stats.inc_value("robotstxt/request_count")
            news = self.news.pop(netloc, None)
            if news is not None:
                news.callback(None)

    def _waited(self, request: Request, netloc: str) -> bool:
        """The wait ``netloc``'s robots.txt asked for is over for
        ``request``: its time has come, or the request is one the host's
        hold gave back (a reactor's timer may fire a little early)."""
        return time.monotonic() >= self.waits[netloc][1] or bool(request.meta.get(HELD_ONCE))

    def _failed(self, exc: Exception, request: Request, netloc: str) -> None:
        """No robots.txt: why, in one line, and what it means for the host."""
        if is_network_failure(exc) and is_timeout(exc) and not never_connected(exc):
            self.unanswered[netloc] = (
                f"robots.txt of {netloc} did not answer within {self.timeout:g} s "
                "(RFC 9309: an unreachable robots.txt means no crawling)"
            )
            logger.info("%s: its URLs are not requested", self.unanswered[netloc])
        elif is_network_failure(exc):
            host = urlparse_cached(request).hostname or netloc
            logger.info(
                "robots.txt of %s could not be fetched (%s): its URLs are "
                "checked and will report the failure",
                netloc,
                describe_failure(exc, host=host, timeout=self.timeout),
            )
        elif not isinstance(exc, IgnoreRequest):  # a fault of ours: say so
            logger.error(
                "Internal error while reading robots.txt of %s (a bug in linkaudit: "
                "please report it with this log); its URLs are checked without it",
                netloc,
                exc_info=(type(exc), exc, exc.__traceback__),
            )
        internals.robots_failed(self, exc, netloc)

    def robots_answer(self, response: Response, netloc: str) -> Response:
        """A robots.txt answer as it is to be parsed (RFC 9309): a server
        error disallows the host, a client error allows it, and it is read
        up to ``LINKAUDIT_ROBOTSTXT_MAXSIZE``."""
        status = response.status
        if status >= 500:
            self.reasons[netloc] = (
                f"Disallowed: robots.txt answered {status} "
                "(RFC 9309: a host whose robots.txt fails counts as disallowed)"
            )
            logger.info("robots.txt of %s answered %s: host treated as disallowed", netloc, status)
            response = response.replace(body=DISALLOW_ALL)
        elif status >= 400:
            response = response.replace(body=b"")
        elif len(response.body) > self.maxsize or response.meta.get(TRUNCATED):
            logger.info(
                "robots.txt of %s is larger than %d bytes (LINKAUDIT_ROBOTSTXT_MAXSIZE): "
                "the rest was not read (RFC 9309, 2.5)",
                netloc,
                self.maxsize,
            )
            response = response.replace(body=response.body[: self.maxsize])
        return response

    def robots_parsed(self, response: Response) -> None:
        """The ``Sitemap:`` lines of a robots.txt read, for the spider."""
        sitemaps = robots_sitemaps(response.body) if response.status < 300 else []
        if sitemaps:  # the spider reads those of the site's own hosts
            self.crawler.signals.send_catch_log(
                signal=robots_sitemaps_found, url=response.url, sitemaps=sitemaps
            )

    def process_request_2(self, rp: RobotParser | None, request: Request) -> None:
        unanswered = self.unanswered.get(urlparse_cached(request).netloc)
        if unanswered is not None:
            self.crawler.stats.inc_value("linkaudit/robots_unanswered")
            raise RobotsUnanswered(unanswered)
        try:
            super().process_request_2(rp, request)
        except IgnoreRequest:
            reason = self.reasons.get(urlparse_cached(request).netloc, "Disallowed by robots.txt")
            raise RobotsBlocked(reason) from None
