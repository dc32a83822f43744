"""The linkaudit spider: HEAD every URL, GET and scan near HTML pages.

The crawl is breadth-first by levels: the links found while checking depth d
are held in the state's frontier and released, all of depth d+1 at once,
when the engine is idle.  So every URL is first seen at its shortest depth,
which the report promises and ``-a depth=N`` relies on.

The spider only crawls: discover (``discovery.py``), request, judge the
answer, yield results; failures are ``failures.py``'s, what is known before a
request is replayed by ``history.py``.  Configuration: ``linkaudit.config``.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import AsyncIterator, Iterator
from typing import Any

import scrapy
from scrapy import signals
from scrapy.crawler import Crawler
from scrapy.exceptions import DontCloseSpider
from scrapy.http import Request, Response, TextResponse
from scrapy.utils.misc import build_from_crawler, load_object

from linkaudit.config import Config, ConfigError
from linkaudit.items import UrlResult, page_stats
from linkaudit.meta import (
    ANCHORS,
    CACHED,
    CHECK_URL,
    DEPTH,
    FIRST,
    HISTORY,
    LOCATION,
    LOCATION_ERROR,
    PHASE,
    PROBE,
    REFERRER,
    SITEMAP,
    TRUNCATED,
)
from linkaudit.rules.judge import LinkRules
from linkaudit.rules.recheck import History
from linkaudit.rules.soft404 import is_probe
from linkaudit.rules.statuses import (
    BROKEN,
    FALLBACK,
    OK,
    REDIRECT,
    http_date_iso,
    judge_status,
    media_type,
    status_text,
    unchecked_reason,
)
from linkaudit.signals import page_scanned, robots_sitemaps
from linkaudit.spiders.discovery import Discovery
from linkaudit.spiders.downloads import Downloads
from linkaudit.spiders.failures import Failures
from linkaudit.spiders.frontier import Frontier
from linkaudit.spiders.history import Replay
from linkaudit.spiders.probes import Probes
from linkaudit.spiders.requests import check_request
from linkaudit.spiders.sharing import Sharing
from linkaudit.spiders.sitemaps import Sitemaps
from linkaudit.state.base import NEW_RUN, AuditState, Pending
from linkaudit.walk.audit import Walked

logger = logging.getLogger(__name__)


class LinkAuditSpider(
    Discovery, Downloads, Sitemaps, Probes, Replay, Failures, Frontier, Sharing, scrapy.Spider
):
    name = "linkaudit"

    # ``start`` is taken explicitly and never stored under that name: since
    # Scrapy 2.13, Spider.start() is the method that yields the first requests.
    def __init__(self, start: str | None = None, **kwargs: Any):
        self.arguments = {k: v for k, v in kwargs.items() if not k.startswith("_")}
        if start is not None:
            self.arguments["start"] = start
        # the linkaudit command checks its configuration before the crawl
        # and hands it over (in-process only)
        self.given_config: Config | None = kwargs.pop("_config", None)
        self.walked: Walked | None = kwargs.pop("_walked", None)  # a local build, walked
        # Scrapyd passes _job and friends; keep them as Scrapy would.
        super().__init__(**{k: v for k, v in kwargs.items() if k.startswith("_")})

    @classmethod
    def from_crawler(cls, crawler: Crawler, *args: Any, **kwargs: Any) -> LinkAuditSpider:
        spider = super().from_crawler(crawler, *args, **kwargs)
        try:
            config = spider.given_config or Config.build(crawler.settings, spider.arguments)
            spider.config = config
            crawler.spider = spider  # components built now read spider.config
            walked, cls = spider.walked, load_object(config.state)  # a walk's state goes on
            state = walked.state if walked else build_from_crawler(cls, crawler)
        except ConfigError as exc:
            # One line on stderr (whatever the log settings) and exit code 2,
            # before the engine exists: no request, no report, no traceback.
            print(f"linkaudit: error: {exc}", file=sys.stderr)
            raise SystemExit(2) from None
        spider._setup(crawler, config, state)
        return spider

    def _setup(self, crawler: Crawler, config: Config, state: AuditState) -> None:
        self.config = config
        self.start_urls = list(config.start_urls)
        self.near_prefixes = config.near_prefixes
        self.max_depth = config.max_depth
        # the baseline: a report file, or (opening the audit) the database's
        self.baseline, self.baseline_source = config.baseline, config.baseline_source
        self.rules = LinkRules(
            config.near_prefixes, config.guards, config["URLLENGTH_LIMIT"], config.root_mapping
        )
        self.policy = config.policy
        self.html_types = frozenset(t.lower() for t in config["LINKAUDIT_HTML_TYPES"])
        self.css = config["LINKAUDIT_CSS"]
        self.css_types = frozenset(t.lower() for t in config["LINKAUDIT_CSS_TYPES"] if self.css)
        self.scan_types = self.html_types | self.css_types  # near and these: scanned
        self.check_fragments = config["LINKAUDIT_CHECK_FRAGMENTS"]
        self.templates = config["LINKAUDIT_TEMPLATES"]
        self.soft_404 = config["LINKAUDIT_SOFT_404"]
        self.soft_404_probes = self.soft_404 != "off" and config["LINKAUDIT_SOFT_404_PROBES"]
        self.release_batch = config["LINKAUDIT_RELEASE_BATCH"] or None
        self.state = state
        state.max_urls = config["LINKAUDIT_MAX_URLS"]
        self.link_faults: set[str] = set()  # links an exception of ours hit (logged once)
        self.run = NEW_RUN  # until start() opens the audit
        crawler.signals.connect(self._on_idle, signal=signals.spider_idle)
        crawler.signals.connect(self._on_headers, signal=signals.headers_received)
        crawler.signals.connect(self._on_bytes, signal=signals.bytes_received)
        if config["LINKAUDIT_ROBOTS_SITEMAPS"]:
            crawler.signals.connect(self._on_robots_sitemaps, signal=robots_sitemaps)

    def is_near(self, url: str) -> bool:
        return self.rules.is_near(url)

    def _count(self, name: str, count: int = 1) -> None:
        self.crawler.stats.inc_value(name, count)

    def _redirect(self, response: Response, url: str, depth: int) -> Iterator[Any]:
        """A 3xx: its target (``Location``, read by our redirect middleware)
        is a link of the redirecting URL (``Discovery._redirect_target``)."""
        meta = response.meta
        location = meta.get(LOCATION)
        if location is None:
            error = meta.get(LOCATION_ERROR) or f"{status_text(response.status)} without a Location"
            yield self._result(response, BROKEN, error=error)
            return
        error, found = self._redirect_target(url, location, depth, meta.get(REFERRER))
        if error is not None:
            yield self._result(response, BROKEN, error=error, location=location)
            return
        yield self._result(
            response,
            REDIRECT,
            error=status_text(response.status),
            location=location,
            links=[(location, None)],
        )
        yield from found

    # -- requests ------------------------------------------------------------
    async def start(self) -> AsyncIterator[Any]:
        self.run = run = self.state.open_run(self.start_urls, self.near_prefixes)
        if run.resumed:
            logger.info(
                "Resuming the interrupted audit: %d URLs checked, %d to go",
                run.checked,
                self.state.waiting(),
            )
        if self.baseline is None and run.baseline is not None:
            self.baseline, self.baseline_source = run.baseline, run.baseline_source
        for result in self._walk_results():
            yield result
        for url in self.start_urls:
            for thing in self._discover(url, 0, None):
                yield thing
        for thing in self._given_sitemaps():
            yield thing
        for thing in self._release(self.state.next_level(self._batch())):
            yield thing
        if self.state.shared:
            self._start_feeding()

    def _first_request(self, pending: Pending) -> Request:
        """HEAD first; with LINKAUDIT_HEAD_FIRST = False, a near URL is
        asked with GET at once (its body stops at the headers unless it is an
        HTML page, see _on_headers): one request per page instead of two."""
        head_first = self.config["LINKAUDIT_HEAD_FIRST"] or not self.is_near(pending.url)
        phase = pending.phase or ("head" if head_first else "get")
        if is_probe(pending.url):  # its body is what is compared: GET
            phase = PROBE
        request = self._request(pending.url, pending.depth, pending.referer, phase)
        request.meta[FIRST] = True  # the recheck middleware looks up its history
        return request

    def _request(
        self,
        url: str,
        depth: int,
        referer: str | None,
        phase: str = "head",
        history: History | None = None,
    ) -> Request:
        return check_request(url, depth, referer, phase, history, self.on_response, self.on_error)

    def _next_request(self, request: Request, phase: str) -> Request:
        """The GET that continues a check (after a HEAD), noted in the state
        so that a resumed audit sends that GET and not the HEAD again."""
        meta = request.meta
        url = meta[CHECK_URL]
        self.state.owe(url, phase)
        return self._request(url, meta[DEPTH], meta.get(REFERRER), phase, meta.get(HISTORY))

    def _on_idle(self) -> None:
        """Release the next level of the frontier, breadth-first, at most
        LINKAUDIT_RELEASE_BATCH URLs at a time: a level of a large site is
        tens of thousands of URLs, and Scrapy's scheduler would hold a
        Request object for each (the next batch of the same depth comes at
        the next idle, so depths stay exact)."""
        level = self.state.next_level(self._batch())
        if level:
            logger.debug("Releasing %d URLs at depth %d", len(level), level[0].depth)
            self._crawl(level)
            raise DontCloseSpider
        if self.state.shared:
            self._idle_while_shared()

    # -- outcomes ----------------------------------------------------------------
    def _result(self, response: Response, outcome: str, **fields: Any) -> UrlResult:
        meta = response.meta
        url = meta[CHECK_URL]
        return UrlResult(
            url=url,
            near=self.is_near(url),
            outcome=outcome,
            depth=meta[DEPTH],
            status=response.status,
            method=response.request.method,
            content_type=media_type(response.headers.get(b"Content-Type")),
            **fields,
        )

    def on_response(self, response: Response) -> Iterator[Any]:
        meta = response.meta
        url, depth, phase = meta[CHECK_URL], meta[DEPTH], meta[PHASE]
        status = response.status
        history = meta.get(HISTORY)
        if history is not None and (CACHED in response.flags or status == 304):
            yield from self._replay(history, response, url, depth)
            return
        accept = self.config["LINKAUDIT_ACCEPT_STATUS"]
        verdict = judge_status(status, response.headers, head=phase == "head", accept=accept)
        if phase == PROBE:
            yield from self._probe_result(response, verdict)
            return
        if verdict == REDIRECT:
            yield from self._redirect(response, url, depth)
        elif verdict == FALLBACK:
            logger.debug("HEAD %s answered %s: asking again with GET", url, status)
            yield self._next_request(response.request, "fallback")
        elif verdict == OK:
            kind = media_type(response.headers.get(b"Content-Type"))
            scanned = self.is_near(url) and kind in self.scan_types
            if phase in ("head", "get") and self._is_sitemap(url, kind):
                yield self._next_request(response.request, SITEMAP)
            elif phase == SITEMAP:
                yield from self._sitemap(response, url, depth)
            elif scanned and phase == "head":
                yield self._next_request(response.request, "get")
            elif scanned:
                yield from self._page(response, url, depth)
            elif phase == "head" and self._wants_anchors(url, kind):
                yield self._next_request(response.request, ANCHORS)
            else:
                yield self._result(response, OK, anchors=self._anchors(response, kind))
        elif verdict == BROKEN:
            result = self._result(response, BROKEN, error=status_text(status))
            yield from self._maybe_ghost(result, history)
        else:
            yield self._result(
                response, "unchecked", error=unchecked_reason(status, response.headers)
            )

    def _page(self, response: Response, url: str, depth: int) -> Iterator[Any]:
        """A near HTML page: scanned, its result with its links, then the
        results of the new links settled on sight."""
        truncated = bool(response.meta.get(TRUNCATED))
        text = response.text if isinstance(response, TextResponse) else None
        stylesheet = media_type(response.headers.get(b"Content-Type")) in self.css_types
        links, images, found, anchors, fragments, blocks, dropped = self._scan(
            text, url, depth, stylesheet, truncated
        )
        stats = None
        if media_type(response.headers.get(b"Content-Type")) in self.html_types:
            signal = page_scanned  # a stylesheet is no page: not archived, no statistics
            self.crawler.signals.send_catch_log(signal, response=response, url=url, depth=depth)
            modified = http_date_iso(response.headers.get(b"Last-Modified"))
            stats = page_stats(len(response.body), modified, len(links), images)
        etag = response.headers.get(b"ETag")
        soft = self._soft_404_fields(response, url, depth) if stats is not None else {}
        yield self._result(
            response,
            OK,
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
