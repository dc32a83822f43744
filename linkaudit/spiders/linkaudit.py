"""The linkaudit spider: HEAD every URL, GET and scan near HTML pages.

The crawl is breadth-first by levels: the links found while checking depth d
are held in the state's frontier and released, all of depth d+1 at once,
when the engine is idle.  So every URL is first seen at its shortest depth,
which the report promises and ``-a depth=N`` relies on.
"""

from __future__ import annotations

import logging
import os
import re
import sys
import time
from collections.abc import AsyncIterator, Iterable, Iterator
from dataclasses import replace
from typing import Any

import scrapy
from scrapy import signals
from scrapy.crawler import Crawler
from scrapy.exceptions import DontCloseSpider, IgnoreRequest, StopDownload
from scrapy.http import Request, Response, TextResponse
from scrapy.utils.httpobj import urlparse_cached
from scrapy.utils.log import failure_to_exc_info
from scrapy.utils.misc import build_from_crawler, load_object
from twisted.python.failure import Failure

from linkaudit import args as spider_args
from linkaudit.extensions.drain import Interrupted
from linkaudit.items import UrlResult, page_stats
from linkaudit.middlewares.decompress import TRUNCATED
from linkaudit.middlewares.recheck import CACHED, FIRST, HISTORY
from linkaudit.middlewares.redirects import CHECK_URL, LOCATION, LOCATION_ERROR
from linkaudit.middlewares.robots import RobotsBlocked
from linkaudit.network.failures import describe_failure, is_network_failure, is_timeout
from linkaudit.rules.guards import TrapGuards
from linkaudit.rules.html import extract_links
from linkaudit.rules.statuses import (
    BROKEN,
    FALLBACK,
    HTML_TYPES,
    OK,
    REDIRECT,
    http_date_iso,
    internal_error,
    judge_status,
    media_type,
    status_text,
    unchecked_reason,
)
from linkaudit.rules.urls import HTTP_SCHEMES, InvalidURL, canonicalize, clean, is_near, scheme_of
from linkaudit.signals import page_scanned
from linkaudit.state import NEW_RUN, AuditState, Pending
from linkaudit.state.baseline import load_baseline
from linkaudit.state.database import check_db_path
from linkaudit.state.recheck import History, RecheckPolicy, iso

logger = logging.getLogger(__name__)

# request.meta keys of ours (CHECK_URL marks a link check)
DEPTH = "la_depth"
PHASE = "la_phase"  # "head", "get" (a page to scan) or "fallback" (after a HEAD failed)

KNOWN_ARGS = frozenset(
    {"start", "report", "journal", "near", "depth", "contact", "pagedir", "db", "baseline"}
)
_READ = "la_read"  # bytes of the body received so far
_DATA_URL_KEEP = 100  # data: URLs are reported by their first characters only
_HTTP_PREFIXES = ("http://", "https://")  # canonical URLs spell the scheme in lower case


class LinkAuditSpider(scrapy.Spider):
    name = "linkaudit"

    # ``start`` is taken explicitly and never stored under that name: since
    # Scrapy 2.13, Spider.start() is the method that yields the first requests.
    def __init__(self, start: str | None = None, **kwargs: Any):
        unknown = sorted(k for k in kwargs if k not in KNOWN_ARGS and not k.startswith("_"))
        self.arg_error: str | None = None
        try:
            if unknown:
                raise spider_args.ArgumentError(
                    f"{unknown[0]}: unknown argument (known: {', '.join(sorted(KNOWN_ARGS))})"
                )
            self.start_urls = spider_args.parse_start(start)
            near = kwargs.pop("near", None)
            self.near_prefixes = tuple(
                spider_args.parse_near(near) if near is not None else self.start_urls
            )
            self.max_depth = spider_args.parse_depth(kwargs.pop("depth", None))
            contact = kwargs.pop("contact", None)
            self.contact = spider_args.parse_contact(contact) if contact is not None else None
            report = kwargs.pop("report", None)
            self.report_arg = spider_args.check_report_path(report) if report else None
            self.journal_arg = kwargs.pop("journal", None)
            pagedir = kwargs.pop("pagedir", None)
            self.pagedir_arg = spider_args.check_pagedir(pagedir) if pagedir else None
            self.db_arg = kwargs.pop("db", None)
            self.baseline_arg = kwargs.pop("baseline", None)
        except spider_args.ArgumentError as exc:
            self.arg_error = str(exc)
            self.start_urls, self.near_prefixes = [], ()
        # Scrapyd passes _job and friends; keep them as Scrapy would.
        super().__init__(**{k: v for k, v in kwargs.items() if k.startswith("_")})

    @classmethod
    def from_crawler(cls, crawler: Crawler, *args: Any, **kwargs: Any) -> LinkAuditSpider:
        spider = super().from_crawler(crawler, *args, **kwargs)
        spider._configure(crawler)
        if spider.arg_error:
            # One line on stderr (whatever the log settings) and exit code 2,
            # before the engine exists: no request, no report, no traceback.
            print(f"linkaudit: error: {spider.arg_error}", file=sys.stderr)
            raise SystemExit(2)
        return spider

    def _configure(self, crawler: Crawler) -> None:
        """Turn arguments into settings (not frozen yet) and read ours."""
        if self.arg_error is not None:
            return
        settings = crawler.settings
        try:
            spider_args.validate_settings(settings)
            if self.report_arg:
                settings.set("LINKAUDIT_REPORT", self.report_arg, priority="cmdline")
            else:
                spider_args.check_report_path(settings["LINKAUDIT_REPORT"])
            if self.journal_arg is not None:
                settings.set("LINKAUDIT_JOURNAL", self.journal_arg, priority="cmdline")
            spider_args.check_journal_path(settings)
            if self.pagedir_arg:
                settings.set("LINKAUDIT_PAGEDIR", self.pagedir_arg, priority="cmdline")
            elif settings.get("LINKAUDIT_PAGEDIR"):
                spider_args.check_pagedir(settings["LINKAUDIT_PAGEDIR"])
            if self.max_depth is None:
                self.max_depth = spider_args.parse_depth(settings.get("LINKAUDIT_DEPTH"))
            if self.db_arg:
                settings.set("LINKAUDIT_DB", self.db_arg, priority="cmdline")
            if settings.get("LINKAUDIT_DB"):
                check_db_path(settings["LINKAUDIT_DB"])
                settings.set("LINKAUDIT_STATE", "linkaudit.state.sqlite.SQLiteState", "cmdline")
            if self.baseline_arg:
                settings.set("LINKAUDIT_BASELINE", self.baseline_arg, priority="cmdline")
            self.baseline, self.baseline_source = None, None
            if settings.get("LINKAUDIT_BASELINE"):
                self.baseline_source = os.path.abspath(settings["LINKAUDIT_BASELINE"])
                self.baseline = load_baseline(self.baseline_source)
            state_path = settings.get("LINKAUDIT_STATE", "linkaudit.state.memory.MemoryState")
            try:
                state_cls = load_object(state_path)
            except (ImportError, NameError, ValueError, AttributeError) as exc:
                raise spider_args.ArgumentError(
                    f"LINKAUDIT_STATE: cannot load {state_path!r} ({exc})"
                ) from None
        except spider_args.ArgumentError as exc:
            self.arg_error = str(exc)
            return
        contact = self.contact or settings.get("LINKAUDIT_CONTACT")
        if contact:
            headers = dict(settings.getdict("DEFAULT_REQUEST_HEADERS"))
            headers["From"] = contact
            settings.set("DEFAULT_REQUEST_HEADERS", headers, priority="cmdline")
        self.head_first = settings.getbool("LINKAUDIT_HEAD_FIRST", True)
        self.accept = frozenset(int(s) for s in settings.getlist("LINKAUDIT_ACCEPT_STATUS"))
        self.html_types = frozenset(
            t.lower() for t in settings.getlist("LINKAUDIT_HTML_TYPES", sorted(HTML_TYPES))
        )
        self.url_length_limit = settings.getint("URLLENGTH_LIMIT", 65536)
        self.too_long = (
            f"Excluded: URL longer than {self.url_length_limit} characters (URLLENGTH_LIMIT)"
        )
        self.timeout = settings.getfloat("DOWNLOAD_TIMEOUT", 180)
        self.guards = TrapGuards(
            max_path_segments=settings.getint("LINKAUDIT_MAX_PATH_SEGMENTS", 32),
            max_segment_repeat=settings.getint("LINKAUDIT_MAX_SEGMENT_REPEAT", 3),
            exclude_userinfo=settings.getbool("LINKAUDIT_EXCLUDE_USERINFO", True),
            exclude_double_slash=settings.getbool("LINKAUDIT_EXCLUDE_DOUBLE_SLASH", True),
            patterns=tuple(re.compile(p) for p in settings.getlist("LINKAUDIT_EXCLUDE")),
        )
        self.state: AuditState = build_from_crawler(state_cls, crawler)
        self.policy = RecheckPolicy.from_settings(settings)
        self.release_batch = settings.getint("LINKAUDIT_RELEASE_BATCH", 2000) or None
        self.run = NEW_RUN  # until start() opens the audit
        crawler.signals.connect(self._on_idle, signal=signals.spider_idle)
        crawler.signals.connect(self._on_headers, signal=signals.headers_received)
        self.page_maxsize = settings.getint("LINKAUDIT_PAGE_MAXSIZE")
        crawler.signals.connect(self._on_bytes, signal=signals.bytes_received)

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
        for url in self.start_urls:
            for thing in self._discover(url, 0, None):
                yield thing
        for pending in self.state.next_level(self.release_batch):
            yield self._first_request(pending)

    def _first_request(self, pending: Pending) -> Request:
        """HEAD first; with LINKAUDIT_HEAD_FIRST = False, a near URL is
        asked with GET at once (its body stops at the headers unless it is an
        HTML page, see _on_headers): one request per page instead of two."""
        phase = "head" if self.head_first or not self.is_near(pending.url) else "get"
        request = self._request(pending.url, pending.depth, pending.referer, pending.phase or phase)
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
        # A fresh Request each time (never request.replace()): copying the
        # HEAD's meta into the GET would carry Scrapy's internal keys along.
        # verbatim_url: the canonical URL is what a browser requests; Scrapy's
        # safe_url_string would escape it again ("%2z" into "%252z", "|")
        meta = {
            CHECK_URL: url,
            DEPTH: depth,
            PHASE: phase,
            "handle_httpstatus_all": True,
            "verbatim_url": True,
        }
        if history is not None:
            meta[HISTORY] = history
        return Request(
            url,
            method="HEAD" if phase == "head" else "GET",
            headers={"Referer": referer} if referer else None,
            meta=meta,
            callback=self.on_response,
            errback=self.on_error,
            dont_filter=True,  # the state dedupes; no fingerprinting needed
        )

    def _next_request(self, response_or_request: Any, phase: str) -> Request:
        """The GET that continues a check (after a HEAD), noted in the state
        so that a resumed audit sends that GET and not the HEAD again."""
        request = (
            response_or_request.request
            if isinstance(response_or_request, Response)
            else response_or_request
        )
        meta = request.meta
        url = meta[CHECK_URL]
        self.state.owe(url, phase)
        return self._request(
            url, meta[DEPTH], request.headers.get("Referer"), phase, meta.get(HISTORY)
        )

    def _on_idle(self) -> None:
        """Release the next level of the frontier, breadth-first, at most
        LINKAUDIT_RELEASE_BATCH URLs at a time: a level of a large site is
        tens of thousands of URLs, and Scrapy's scheduler would hold a
        Request object for each (the next batch of the same depth comes at
        the next idle, so depths stay exact)."""
        level = self.state.next_level(self.release_batch)
        if not level:
            return
        logger.debug("Releasing %d URLs at depth %d", len(level), level[0].depth)
        for pending in level:
            self.crawler.engine.crawl(self._first_request(pending))
        raise DontCloseSpider

    def _on_headers(self, headers: Any, body_length: int, request: Request, spider: Any) -> None:
        """Stop a GET at the headers unless it is a near HTML page to scan:
        far pages and binaries are never downloaded, whatever their name."""
        if request.meta.get(PHASE) in ("get", "fallback") and not (
            self.is_near(request.meta[CHECK_URL])
            and media_type(headers.get(b"Content-Type")) in self.html_types
        ):
            raise StopDownload(fail=False)

    def _on_bytes(self, data: bytes, request: Request, spider: Any) -> None:
        """Cut a page at LINKAUDIT_PAGE_MAXSIZE bytes: what was read is
        scanned and the report says the page was truncated.  (Only near HTML
        pages get this far; everything else stopped at the headers.)"""
        meta = request.meta
        read = meta.get(_READ, 0) + len(data)
        meta[_READ] = read
        if read > self.page_maxsize and PHASE in meta:
            meta[TRUNCATED] = True
            raise StopDownload(fail=False)

    def is_near(self, url: str) -> bool:
        return is_near(url, self.near_prefixes)

    # -- discovery -------------------------------------------------------------
    def _resolve(self, value: str, base: str) -> tuple[str, str | None, str | None]:
        """(key, outcome, error) of a link value: outcome None means "check
        it, once _judge() agrees" (http(s) URLs are judged when first
        discovered, not at each of their many occurrences)."""
        try:
            url = canonicalize(value, base)
        except InvalidURL as exc:  # reported as written, as the parser read it
            return clean(value), BROKEN, f"Invalid URL: {exc}"
        if url.startswith(_HTTP_PREFIXES):
            return url, None, None
        return self._judge(url)

    def _judge(self, url: str) -> tuple[str, str | None, str | None]:
        """(key, outcome, error) of a canonical URL: settled now, or to check."""
        scheme = scheme_of(url)
        if scheme not in HTTP_SCHEMES:
            if scheme == "data" and len(url) > _DATA_URL_KEEP:
                url = url[:_DATA_URL_KEEP] + "..."
            return url, "excluded", f"Excluded: {scheme}: link"
        if len(url) > self.url_length_limit:
            # a sanity bound of ours, far above what browsers follow: not a
            # verdict (under it, the server's answer decides: 414 or not)
            return url, "excluded", self.too_long
        reason = self.guards.reason(url, self.is_near(url))
        if reason:
            return url, "excluded", reason
        return url, None, None

    def _discover(
        self,
        url: str,
        depth: int,
        referer: str | None,
        outcome: str | None = None,
        error: str | None = None,
        judge: bool = False,
    ) -> Iterator[UrlResult]:
        """Note a URL; the first time, settle it now or put it in the frontier.

        ``judge``: the URL has not been through _judge() yet (a link found on
        a page); it is judged here, only the first time it is seen."""
        if not self.state.discover(url, depth):
            return
        if judge:
            _key, outcome, error = self._judge(url)  # http(s): the key is the URL
        if outcome is not None:
            yield UrlResult(
                url=url, near=self.is_near(url), outcome=outcome, depth=depth, error=error
            )
        elif self.max_depth is None or depth <= self.max_depth:
            self.state.enqueue(url, depth, referer)
        # else: beyond the depth limit, reported as unchecked

    def _scan(
        self, response: Response, url: str, depth: int, truncated: bool = False
    ) -> tuple[list[tuple[str, int | None]], int, list[UrlResult]]:
        """The page's links, its number of images, and the results of new
        links settled on sight.

        A body that is not text (a PNG sent as text/html) has no links."""
        if truncated:
            self.crawler.stats.inc_value("linkaudit/pages_truncated")
            logger.info("%s is larger than %d bytes: the rest was not read", url, self.page_maxsize)
        if not isinstance(response, TextResponse):
            return [], 0, []
        text = response.text
        if truncated:  # the last chunk may reach past the cap; only cut pages are copied
            text = text[: self.page_maxsize]
        raw_links, base, images = extract_links(text)
        base_url = url
        if base:
            try:
                base_url = canonicalize(base, url)
            except InvalidURL:
                pass
        links: list[tuple[str, int | None]] = []
        found: list[UrlResult] = []
        resolved: dict[str, tuple[str, str | None, str | None]] = {}
        for value, line, _tag in raw_links:
            target = resolved.get(value)
            if target is None:
                target = resolved[value] = self._resolve(value, base_url)
            key, outcome, error = target
            links.append((key, line))
            found.extend(self._discover(key, depth + 1, url, outcome, error, outcome is None))
        self.crawler.stats.inc_value("linkaudit/pages")
        logger.debug("Scanned %s: %d links", url, len(links))
        return links, images, found

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
        verdict = judge_status(status, response.headers, head=phase == "head", accept=self.accept)
        if verdict == REDIRECT:
            yield from self._redirect(response, url, depth)
        elif verdict == FALLBACK:
            logger.debug("HEAD %s answered %s: asking again with GET", url, status)
            yield self._next_request(response, "fallback")
        elif verdict == OK:
            ctype = media_type(response.headers.get(b"Content-Type"))
            html = ctype in self.html_types and self.is_near(url)
            if phase == "head" and html:
                yield self._next_request(response, "get")
            elif phase != "head" and html:
                truncated = bool(meta.get(TRUNCATED))
                links, images, found = self._scan(response, url, depth, truncated)
                self.crawler.signals.send_catch_log(
                    page_scanned, response=response, url=url, depth=depth
                )
                page = page_stats(
                    len(response.body),
                    http_date_iso(response.headers.get(b"Last-Modified")),
                    len(links),
                    images,
                )
                etag = response.headers.get(b"ETag")
                yield self._result(
                    response,
                    OK,
                    links=links,
                    truncated=truncated,
                    page=page,
                    etag=etag.decode("latin-1") if etag else None,
                )
                yield from found
            else:
                yield self._result(response, OK)
        elif verdict == BROKEN:
            result = self._result(response, BROKEN, error=status_text(status))
            yield from self._maybe_ghost(result, history)
        else:
            yield self._result(
                response, "unchecked", error=unchecked_reason(status, response.headers)
            )

    def _redirect(self, response: Response, url: str, depth: int) -> Iterator[Any]:
        meta = response.meta
        location = meta.get(LOCATION)
        if location is None:
            error = meta.get(LOCATION_ERROR) or f"{status_text(response.status)} without a Location"
            yield self._result(response, BROKEN, error=error)
            return
        yield self._result(
            response,
            REDIRECT,
            error=status_text(response.status),
            location=location,
            links=[(location, None)],
        )
        key, outcome, error = self._judge(location)  # already canonical
        yield from self._discover(key, depth + 1, url, outcome, error)

    def on_error(self, failure: Failure) -> Iterator[Any]:
        # Scrapy hands an exception raised in an errback to its own error
        # log, and the URL would silently stay unchecked: say why instead.
        try:
            yield from self._on_error(failure)
        except Exception:
            yield self.internal_error(failure.request, sys.exc_info())

    def _on_error(self, failure: Failure) -> Iterator[Any]:
        request = failure.request
        meta = request.meta
        url, depth, phase = meta[CHECK_URL], meta[DEPTH], meta[PHASE]
        exc = failure.value
        if isinstance(exc, Interrupted):
            return  # never sent: the report lists it unchecked
        if isinstance(exc, IgnoreRequest):
            outcome = "blocked"
            error = str(exc) if isinstance(exc, RobotsBlocked) else "Disallowed by robots.txt"
            logger.info("%s %s not requested: %s", request.method, url, error)
        elif not is_network_failure(exc):
            yield self.internal_error(request, failure_to_exc_info(failure))
            return
        elif phase == "head" and is_timeout(exc):
            logger.info("HEAD %s timed out: asking again with GET", url)
            yield self._next_request(request, "fallback")
            return
        else:
            outcome = BROKEN
            host = urlparse_cached(request).hostname or url
            error = describe_failure(exc, host=host, timeout=self.timeout)
            logger.info("%s %s failed: %s", request.method, url, error)
        result = UrlResult(
            url=url,
            near=self.is_near(url),
            outcome=outcome,
            depth=depth,
            method=None if outcome == "blocked" else request.method,
            error=error,
        )
        if outcome == BROKEN:
            yield from self._maybe_ghost(result, meta.get(HISTORY))
        else:
            yield result

    def internal_error(self, request: Request, exc_info: Any) -> UrlResult:
        """The check of ``request``'s URL was stopped by an exception of ours
        (``exc_info``, as ``sys.exc_info()`` gives it): an ERROR with the
        traceback in the log, and the URL ``unchecked``, never ``broken``."""
        meta = request.meta
        url = meta[CHECK_URL]
        logger.error(
            "Internal error while checking %s %s (a bug in linkaudit: please report it "
            "with this log)",
            request.method,
            url,
            exc_info=exc_info,
        )
        self.crawler.stats.inc_value("linkaudit/internal_errors")
        return UrlResult(
            url=url,
            near=self.is_near(url),
            outcome="unchecked",
            depth=meta[DEPTH],
            error=internal_error(exc_info[1]),
        )

    # -- what earlier audits knew (the audit database) ----------------------------
    def _replay(self, history: History, response: Response, url: str, depth: int) -> Iterator[Any]:
        """A URL not requested (checked recently: ``from_cache``) or a page
        that answered 304: its stored outcome and links, as if checked now."""
        cached = CACHED in response.flags
        fields: dict[str, Any] = {
            "url": url,
            "near": self.is_near(url),
            "depth": depth,
            "links": list(history.links or ()),
            "stored_links": True,
            "from_cache": cached,
            "not_modified": not cached,
            "checked_at": iso(history.checked_at) if cached else None,
            "referrers": [],
            "referrer_count": 0,
            "warning": None,
            "new": False,
        }
        if not cached:
            etag = response.headers.get(b"ETag")
            fields["method"] = response.request.method
            fields["etag"] = etag.decode("latin-1") if etag else history.etag
            self.crawler.stats.inc_value("linkaudit/not_modified")
        else:
            self.crawler.stats.inc_value("linkaudit/from_cache")
        result = replace(history.result, **fields)
        yield result
        yield from self._follow_stored(result.links, url, depth)

    def _maybe_ghost(self, result: UrlResult, history: History | None) -> Iterator[Any]:
        """A near page that fails now still has its last known links followed
        for LINKAUDIT_FOLLOW_GHOST seconds after it last answered."""
        links = self.policy.ghost_links(history, time.time()) if self.is_near(result.url) else []
        if not links:
            yield result
            return
        assert history is not None and history.last_ok_at is not None
        logger.info(
            "%s failed (%s): following its %d links from %s",
            result.url,
            result.error,
            len(links),
            iso(history.last_ok_at),
        )
        self.crawler.stats.inc_value("linkaudit/ghost_pages")
        yield replace(result, links=list(links), stored_links=True)
        yield from self._follow_stored(links, result.url, result.depth)

    def _follow_stored(
        self, links: Iterable[tuple[str, int | None]], url: str, depth: int
    ) -> Iterator[UrlResult]:
        """Discover stored link targets, as _scan() does with a page's links.
        Targets are stored canonical, so they are only judged again (the
        rules may have changed since), except a link that never was a URL:
        it is broken again, with the words it had."""
        for key in dict.fromkeys(target for target, _line in links):
            try:
                valid = canonicalize(key) == key
            except InvalidURL:
                valid = False
            if valid:
                outcome, error, judge = None, None, True
            else:
                before = self.state.history(key)
                outcome, judge = BROKEN, False
                error = before.result.error if before else "Invalid URL"
            yield from self._discover(key, depth + 1, url, outcome, error, judge)
