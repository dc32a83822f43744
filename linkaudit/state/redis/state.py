"""The audit's state in Redis, shared by every worker of one audit.

Selected by ``--redis URL --audit NAME`` (spider arguments ``redis=`` and
``audit=``; settings ``LINKAUDIT_REDIS`` and ``LINKAUDIT_AUDIT``).  The
first worker creates the audit, the others join it; each claims URLs of
the current level from hosts it owns (a host is owned by one worker for the
whole audit, so one Scrapy slot paces it: delay, concurrency, Crawl-delay,
Retry-After), settles results, and the level advances when no URL of it is
unsettled anywhere.  Claims are leases: a worker that dies (no heartbeat
for LINKAUDIT_REDIS_LEASE seconds) has its claims and hosts taken over.
The operations are Lua scripts (scripts.py); the report is elected
(election.py).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from urllib.parse import urlsplit

from scrapy import signals
from scrapy.crawler import Crawler
from twisted.internet import task

from linkaudit.config import ConfigError, config_of
from linkaudit.items import Outcome, UrlResult
from linkaudit.signals import request_sent
from linkaudit.state.base import NEW_RUN, AuditState, Pending, Run, scanned_page
from linkaudit.state.compact import encode_result
from linkaudit.state.redis.calls import CHUNK
from linkaudit.state.redis.codec import decode_pending
from linkaudit.state.redis.connection import (
    RedisUnavailable,
    TextClient,
    connect,
    delete_audit,
)
from linkaudit.state.redis.counting import RequestCounter
from linkaudit.state.redis.election import Election
from linkaudit.state.redis.marks import Marks
from linkaudit.state.redis.reading import Reading, parse_referrer

logger = logging.getLogger(__name__)
_KNOWN_MAX = 200_000  # URLs this worker remembers as already discovered


class RedisState(Election, Reading, Marks, AuditState):
    durable = True  # the audit is in Redis: a worker started again joins it
    shared = True

    def __init__(self, client: TextClient, audit: str, lease: float, batch: int):
        super().__init__(client, audit)
        self.lease_ms = int(lease * 1000)
        self.batch = batch
        self.delay = 0.0  # seconds a handed-back host waits (DOWNLOAD_DELAY)
        self.max_time = 0.0  # CLOSESPIDER_TIMEOUT, from the audit's start
        self.max_responses = 0  # CLOSESPIDER_PAGECOUNT, over all workers
        self.max_depth: int | None = None  # for `linkaudit report`
        self.expire = 0.0  # seconds a finished audit's keys are kept (0: for ever)
        self.creator = False
        self.status = "missing"
        self.reason = ""
        self._known: set[str] = set()
        self._links: dict[str, list[tuple[str, int | None]]] = {}  # page -> links
        self._loop: task.LoopingCall | None = None
        self._local: Callable[[], tuple[int, int, int]] = lambda: (0, 0, 0)
        # summary.requests: every worker's, counted as they leave (counting.py)
        self.counter = RequestCounter(client, self.key("meta"))

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> RedisState:
        config = config_of(crawler)
        try:
            client = connect(config["LINKAUDIT_REDIS"], crawler.settings.getdict("REDIS_PARAMS"))
        except RedisUnavailable as exc:
            raise ConfigError(f"{config.label('LINKAUDIT_REDIS')}: {exc}") from None
        audit = config["LINKAUDIT_AUDIT"]
        if config["LINKAUDIT_REDIS_RESTART"]:
            delete_audit(client, audit)
        state = cls(
            client,
            audit,
            config["LINKAUDIT_REDIS_LEASE"],
            config["LINKAUDIT_RELEASE_BATCH"] or 2000,
        )
        if config["DOWNLOAD_DELAY"] > 0:  # as the pacing extension spaces them
            state.delay = config["DOWNLOAD_DELAY"] + config["LINKAUDIT_DELAY_MARGIN"]
        state.expire = config["LINKAUDIT_REDIS_EXPIRE"]
        state.max_time = config["CLOSESPIDER_TIMEOUT"]
        state.max_responses = config["CLOSESPIDER_PAGECOUNT"]
        state.max_depth = config.max_depth
        state.check_joinable(config.start_urls, config.near_prefixes)
        state._local = lambda: (
            crawler.stats.get_value("downloader/request_count", 0),
            crawler.stats.get_value("linkaudit/pages", 0),
            crawler.stats.get_value("response_received_count", 0),
        )
        crawler.signals.connect(state._start_heartbeat, signal=signals.engine_started)
        state.counter.open()
        crawler.signals.connect(state.counter.count, signal=request_sent)
        return state

    # -- the audit ------------------------------------------------------------
    def check_joinable(self, start_urls: tuple[str, ...], near: tuple[str, ...]) -> None:
        """An existing audit of that name must audit the same site."""
        starts, nears = self.meta("start", "near")
        want = ("\n".join(start_urls), "\n".join(near))
        if starts is not None and (starts, nears) != want:
            raise ConfigError(
                f"the audit {self.audit!r} in Redis audits {starts.split()} (near "
                f"{(nears or '').split()}): give a new --audit name, or --restart to replace it"
            )

    def open_run(self, start_urls: list[str], near_prefixes: tuple[str, ...]) -> Run:
        meta = self.key("meta")
        self.creator = bool(self._do(lambda: self.client.hsetnx(meta, "status", "starting"), 0))
        if self.creator:
            self._do(
                lambda: self.client.hset(
                    meta,
                    mapping={
                        "start": "\n".join(start_urls),
                        "near": "\n".join(near_prefixes),
                        "level": 0,
                        "depth": "" if self.max_depth is None else self.max_depth,
                        "started_at": time.time(),
                    },
                ),
                None,
            )
        self.heartbeat()
        status, checked, pages = self.meta("status", "checked", "pages")
        self.status = status or "missing"
        if self.creator:
            logger.info("Audit %r created in Redis (worker %s)", self.audit, self.worker)
            return NEW_RUN
        logger.info("Joined the audit %r (%s, worker %s)", self.audit, self.status, self.worker)
        # joining is not resuming: the other workers go on with the audit
        return Run(False, int(checked or 0), int(pages or 0), None, None)

    def _start_heartbeat(self) -> None:
        self._loop = task.LoopingCall(self.heartbeat)
        self._loop.start(min(self.lease_ms / 3000, 1.0), now=False)

    def heartbeat(self) -> None:
        """Alive, leases renewed, counts sent; the audit's limits checked:
        ``--max-requests`` and ``--max-time`` are the audit's, not a worker's."""
        counts = self._local()
        self._do(self.counter.flush, None)
        reply = self._run("HEARTBEAT", [self.worker, self.lease_ms, *counts], None)
        if reply:
            self.status, self.reason = reply
        if self.status != "running":
            return
        started = self.meta("started_at")[0]
        if self.max_time and started and time.time() >= float(started) + self.max_time:
            self.stop("closespider_timeout")
        elif self.max_responses:
            work = self._do(lambda: self.client.hgetall(self.key("work")), {})
            answered = sum(int(v) for k, v in work.items() if k.endswith(":responses"))
            if answered >= self.max_responses:
                self.stop("closespider_pagecount")

    def stop(self, reason: str) -> None:
        """Stop the whole audit (a limit reached): every worker closes."""
        self.reason = self._run("STOP", [reason], reason) or reason
        self.status = "stopping"

    def over(self) -> str | None:
        """Why the audit is over (every worker closes), None while it runs."""
        if self.lost is not None:
            return "redis_lost"
        if self.status in ("finished", "stopping"):
            return self.reason or self.status
        return None

    # -- the spider's side ------------------------------------------------
    def discover(self, url: str, depth: int) -> bool | None:
        return self.discover_many([url], depth)[0]

    def discover_many(self, urls: list[str], depth: int) -> list[bool | None]:
        """Which URLs are new.  URLs known for good are remembered here, not
        asked again; one another live worker discovered and has not queued
        yet is asked again next time (that worker may die before it does)."""
        known = self._known
        ask = [u for u in urls if u not in known]
        new: dict[str, bool | None] = {}
        for i in range(0, len(ask), CHUNK):
            chunk = ask[i : i + CHUNK]
            args = [self.worker, depth, self.max_urls, *chunk]
            flags = self._run("DISCOVER", args, [2] * len(chunk))
            for url, flag in zip(chunk, flags, strict=True):
                new[url] = None if flag == 3 else flag == 1
                if flag in (0, 1):
                    known.add(url)
        if len(known) > _KNOWN_MAX:
            known.clear()
        return [new.get(u, False) for u in urls]

    def urls_dropped(self) -> int:
        """Every worker's (the script counts them in the audit's meta)."""
        value = self._do(lambda: self.client.hget(self.key("meta"), "urls_dropped"), None)
        return int(value or 0)

    def enqueue(self, url: str, depth: int, referer: str | None) -> None:
        self._queue += (url, depth, urlsplit(url).hostname or "", referer or "")

    def next_level(self, limit: int | None = None) -> list[Pending]:
        if self.creator and self.status == "starting":
            self.status = self._run("START", [], self.status)
        # a not-before longer than this worker's delay or lease: not one of ours
        nb_max = max(self.lease_ms, int(self.delay * 1000))
        reply = self._run("CLAIM", [self.worker, self.lease_ms, limit or self.batch, nb_max], None)
        if not reply:
            return []
        self.status, self.reason = reply[0], reply[1]
        return [decode_pending(record) for record in reply[2:]]

    def owe(self, url: str, phase: str) -> None:
        """Sent with the next call: only a worker that dies before then
        loses it (its successor then starts that check from the beginning)."""
        self._owed += (url, phase)

    # -- the pipeline's side ----------------------------------------------
    def add_referrer(self, target: str, page: str, line: int | None) -> None:
        """A referrer that is no page's link (robots.txt naming a sitemap):
        counted now, once (a host's robots.txt is read by its one worker)."""
        self._run("REFER", [target, page, "" if line is None else line], None)

    def add_referrers(self, page: str, links: list[tuple[str, int | None]]) -> None:
        """Kept until the page's result is settled: the links are counted in
        the same script, once, however often the page is checked."""
        self._links[page] = links

    def _settle(
        self, result: UrlResult, now: float
    ) -> tuple[float | None, int, list[tuple[str, int | None]]]:
        """One round trip: the result settled, its page's links counted
        (once, however often the page is checked), the URLs it enqueued
        sent before it (a level never closes while a page's links are still
        on their way), and the referrers known so far read back."""
        failing = now if result.outcome == Outcome.BROKEN else None
        # "@p": a scanned page, counted in summary.pages by the script
        page = "@p" if scanned_page(result) else ""
        state = f"{'o' if result.outcome == 'ok' else 'x'}{result.depth}{page}"
        links = self._links.pop(result.url, ())
        args = [a for target, line in links for a in (target, "" if line is None else line)]
        broken = int(result.outcome == Outcome.BROKEN)
        reply = self._run(
            "SETTLE",
            [self.worker, result.url, state, encode_result(result, failing), broken, *args],
            None,
        )
        self._known.add(result.url)
        if not reply:  # Redis lost: nothing settled, nothing known
            return failing, 0, []
        return failing, int(reply[1]), [parse_referrer(r) for r in reply[2:]]

    # -- leaving ----------------------------------------------------------
    def leave(self, not_before: float = 0.0) -> int:
        """Hand back what this worker claimed and did not settle; its hosts
        wait ``not_before`` seconds before another worker sends to them."""
        self.heartbeat()  # the last counts (and what was waiting to be sent)
        self._do(self.counter.sync, None)  # every request counted, before the report
        return self._run("LEAVE", [self.worker, int(not_before * 1000)], 0)

    def close(self) -> None:
        if self._loop is not None and self._loop.running:
            self._loop.stop()
        self.counter.close()
        self.client.close()
