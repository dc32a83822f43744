"""The audit's scheduler (``SCHEDULER``): Scrapy's own, owning the audit's
frontier and its breadth-first levels.

The crawl is breadth-first by levels: the links found while checking depth d
are held in the state's frontier and released, all of depth d+1 at once,
when everything released before is done (nothing queued, downloading or
being scanned).  So every URL is first seen at its shortest depth, which the
report promises and ``-a depth=N`` relies on.  A level is released at most
LINKAUDIT_RELEASE_BATCH URLs at a time: a level of a large site is tens of
thousands of URLs, and Scrapy's queue would hold a Request object for each
(the next batch of the same depth comes when this one is done, so depths
stay exact).

The frontier reaches Scrapy through the scheduler's own interface, as any
scheduler's queue does: ``has_pending_requests()`` is true while the
frontier holds URLs (the engine does not call the spider idle, nor close
it, before the last level), and ``next_request()``, with nothing queued,
releases the next batch when the engine is idle but for the frontier.  That
is the engine's own test (``ExecutionEngine.spider_is_idle``: the scraper,
the downloader, ``start()``, the scheduler's pending requests), asked with
the frontier left out, so a level ends exactly when Scrapy would have called
the spider idle.  The released requests enter through ``engine.crawl`` like
any other (the ``request_scheduled`` signal, then this scheduler's queues).

A shared audit (a state in Redis): claims are small (twice
CONCURRENT_REQUESTS), so hosts spread over the workers; ``next_request``
claims when this worker is idle, as above.  Two things stay on signals and a
timer, because the scheduler's interface cannot say them:

- waiting and closing.  With nothing to claim, the worker has nothing
  pending, yet must not close while the audit goes on elsewhere (another
  worker may still find URLs), and it closes with the audit's own reason
  (``redis_lost``, another worker's ``shutdown``) when it is over for every
  worker.  ``has_pending_requests()`` can only say "keep going", never why
  to stop; Scrapy's way to keep an idle spider open, or close it with a
  reason, is the ``spider_idle`` signal (``DontCloseSpider``,
  ``CloseSpider``), as scrapy-redis does.  (Redis's count of waiting URLs
  includes the other workers' claims, so it is not this worker's pending
  requests either.)
- the poll.  The queue is topped up every LINKAUDIT_REDIS_POLL seconds
  while this worker is busy, and the audit's end noticed while it is, by a
  timer: the engine asks ``next_request`` only when a download or a scan
  ends (or every 5 s when idle), and asking Redis then would be a round
  trip per response.

Every released URL goes through :meth:`AuditScheduler.release`, the one
door of every state's frontier (memory, the audit database on resume, a
shared audit's Redis queue).  A state is data, not instructions: an audit
database or a Redis record can be altered by anyone who can write it, and
Scrapy would read a ``file:///etc/passwd`` it was handed.  So each released
URL is judged again by the link rules (``LinkRules.judge_stored``: http(s)
only, the canonical form, the length bound, the guards) before it is
requested; one that fails is settled without a request, reported as the
rules say (a ``file:`` URL is ``excluded``), the referer it came with is kept
only if it passes the same rules, and a phase it owes only if it is one
linkaudit writes.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from typing import Any

from scrapy import signals
from scrapy.core.scheduler import Scheduler
from scrapy.crawler import Crawler
from scrapy.exceptions import CloseSpider, DontCloseSpider
from scrapy.http import Request
from scrapy.utils.defer import deferred_from_coro
from twisted.internet import task

from linkaudit import internals
from linkaudit.audit import Audit, audit_of
from linkaudit.components.requests import CheckRequests
from linkaudit.hosts.holds import HostHolds
from linkaudit.items import UrlResult
from linkaudit.meta import ANCHORS, SITEMAP
from linkaudit.rules.decisions import Phase
from linkaudit.state.base import Pending

logger = logging.getLogger(__name__)
# the requests a check may owe after its HEAD (see Pending): anything else a
# state holds starts the check from the beginning
_OWED = frozenset({None, Phase.GET, Phase.FALLBACK, ANCHORS, SITEMAP})


class AuditScheduler(Scheduler):
    """Scrapy's scheduler (its queues, priorities and JOBDIR as they are),
    whose pending requests include the audit's frontier."""

    audit: Audit | None = None  # None: a crawl of another spider, Scrapy's scheduler only
    _feeder: task.LoopingCall | None = None
    requests: CheckRequests | None = None
    holds: HostHolds | None = None
    # True while the engine is asked whether it is idle (see _level_done)
    _asking_engine: bool = False
    claim_size = 0  # URLs a shared audit's worker claims at once
    release_batch: int | None = None  # URLs of a level released at once (None: all)
    poll = 0.0  # seconds between a shared audit's top-ups

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> AuditScheduler:
        scheduler = super().from_crawler(crawler)
        audit = audit_of(crawler)
        if audit is not None:
            scheduler.audit = audit
            config = audit.config
            scheduler.claim_size = 2 * config["CONCURRENT_REQUESTS"]
            scheduler.release_batch = config["LINKAUDIT_RELEASE_BATCH"] or None
            scheduler.poll = config["LINKAUDIT_REDIS_POLL"]
            assert audit.callbacks is not None  # the spider is made before the engine
            head_first = config["LINKAUDIT_HEAD_FIRST"]
            scheduler.requests = CheckRequests(
                audit.state, audit.rules, head_first, *audit.callbacks
            )
            scheduler.holds = HostHolds.of(crawler)
            if audit.state.shared:  # see the module's docstring
                crawler.signals.connect(scheduler._on_idle, signal=signals.spider_idle)
                crawler.signals.connect(scheduler._stop_feeding, signal=signals.spider_closed)
        return scheduler

    # -- Scrapy's interface --------------------------------------------------
    def has_pending_requests(self) -> bool:
        """Requests queued or set aside, or URLs of the frontier not released
        yet: the crawl is not over before its last level is."""
        return super().has_pending_requests() or self._frontier_holds()

    def next_request(self) -> Request | None:
        """The next queued request; with none queued and the level over,
        the frontier's next batch is released first."""
        request = self._next_queued()
        if request is None and self.audit is not None and self._level_done():
            self._release_next()
            request = self._next_queued()
        return request

    def __len__(self) -> int:
        # set-aside requests are pending: the crawl is not idle while a host waits
        return super().__len__() + (self.holds.waiting() if self.holds is not None else 0)

    # -- hosts asked to wait (hosts/holds.py) --------------------------------
    def _next_queued(self) -> Request | None:
        """The next request whose host is not asked to wait; those of a held
        host are set aside (no download place taken) until the wait is over."""
        while True:
            request = super().next_request()
            if request is None or self.holds is None or not self.holds.set_aside(request):
                return request

    @property
    def _crawler(self) -> Crawler:
        """Scrapy's scheduler may be built without a crawler (its type says
        optional); this one is always built by ``from_crawler``."""
        assert self.crawler is not None
        return self.crawler

    # -- the frontier --------------------------------------------------------
    def _batch(self) -> int | None:
        """URLs taken from the frontier at once."""
        assert self.audit is not None
        return self.claim_size if self.audit.state.shared else self.release_batch

    def _frontier_holds(self) -> bool:
        """This process's frontier holds URLs (a shared audit's is in
        Redis: see the module's docstring)."""
        audit = self.audit
        if audit is None or self._asking_engine or audit.state.shared:
            return False
        return audit.state.waiting() > 0

    def _level_done(self) -> bool:
        """Everything released so far is downloaded and scanned: Scrapy's
        own test of an idle spider (nothing queued or set aside, downloading,
        in the scraper or the item pipelines, ``start()`` done), the frontier
        left out of the pending requests while it is asked."""
        self._asking_engine = True
        try:
            return self._crawler.engine.spider_is_idle()
        finally:
            self._asking_engine = False

    def _release_next(self) -> None:
        """Release the next level (or batch of it) of the frontier."""
        audit = self.audit
        assert audit is not None
        state = audit.state
        if state.shared and self._feeder is None:
            self._start_feeding()
        level = state.next_level(self._batch())
        build = audit.build  # a build: its pages no link reached, when none is left
        if not level and build is not None and not state.shared:
            if build.feed(state, audit.rules.judge, self._closing):
                level = state.next_level(self._batch())
        if level:
            logger.debug("Releasing %d URLs at depth %d", len(level), level[0].depth)
            self._crawl(level)

    def _closing(self) -> bool:
        return internals.engine_closing(self._crawler)

    def release(self, level: Iterable[Pending]) -> Iterator[Request | UrlResult]:
        """Each pending URL's first request, or its result when the link
        rules settle it without one (the state was altered)."""
        audit = self.audit
        assert audit is not None
        rules, stats = audit.rules, self._crawler.stats
        assert self.requests is not None
        refused = 0
        given = frozenset(audit.config.start_urls)  # the user's, not the state's: always asked
        for pending in level:
            url = pending.url
            outcome, error = (None, None) if url in given else rules.judge_stored(url)[1:]
            if outcome is not None:
                refused += 1
                if refused == 1:
                    logger.warning(
                        "A URL read back from the audit's state is not requested: %r (%s)",
                        url[:200],
                        error,
                    )
                stats.inc_value("linkaudit/stored_urls_refused")
                near, depth = rules.is_near(url), pending.depth
                yield UrlResult(url=url, near=near, outcome=outcome, depth=depth, error=error)
                continue
            referer = pending.referer
            if referer and rules.judge_stored(referer).outcome is not None:
                pending = pending._replace(referer=None)
            if pending.phase not in _OWED:
                pending = pending._replace(phase=None)
            yield self.requests.first(pending)
        if refused > 1:
            logger.warning("%d URLs read back from the audit's state were not requested", refused)

    def _crawl(self, level: Iterable[Pending]) -> None:
        """Release ``level``: requests to the engine (which queues them
        here, after its ``request_scheduled`` signal, as any request), results
        to the item pipelines."""
        crawler = self._crawler
        for thing in self.release(level):
            if isinstance(thing, Request):
                crawler.engine.crawl(thing)
            else:
                internals.send_item(crawler, thing)

    # -- a shared audit ------------------------------------------------------
    def _start_feeding(self) -> None:
        self._feeder = task.LoopingCall(self._feed)
        self._feeder.start(self.poll, now=False)

    def _stop_feeding(self, **_kwargs: Any) -> None:
        if self._feeder is not None and self._feeder.running:
            self._feeder.stop()

    def _feed(self) -> None:
        """Keep this worker supplied with claims, and close when the audit
        is over."""
        crawler = self._crawler
        audit = self.audit
        assert audit is not None
        if internals.engine_closing(crawler):
            return
        reason = audit.state.over()
        if reason is not None:
            self._stop_feeding()
            deferred_from_coro(crawler.engine.close_spider_async(reason=reason))
            return
        size = self.claim_size
        # a held host's requests set aside do not keep the other hosts' work away
        waiting = self.holds.waiting() if self.holds is not None else 0
        if len(self) - waiting + internals.in_flight(crawler) >= size // 2:
            return
        self._crawl(audit.state.next_level(size))

    def _on_idle(self) -> None:
        """Nothing to claim (``next_request`` found none): wait while the
        audit goes on elsewhere, close when it is over."""
        assert self.audit is not None
        reason = self.audit.state.over()
        if reason is None:
            raise DontCloseSpider
        if reason != "finished":
            raise CloseSpider(reason)
