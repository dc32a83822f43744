"""Hosts asked to wait (``Retry-After``): the wait is the host's, not a
download place's.

A 429 with ``Retry-After: 30`` used to be waited for inside the middleware
that read it, and a request waiting there holds one of the downloader's
``CONCURRENT_REQUESTS`` places (Scrapy counts a request from the moment the
engine hands it over until the middlewares are done with its answer).  One
far host asking every request to wait took all the places; the other hosts'
URLs waited with it (52 URLs of such a host took 382 s, and a healthy
host's last URLs waited 30 s).

Now the wait is a hold of the host (Scrapy's download slot, by its key, as
hosts are told apart for their delays), until a time:

- its requests still in the scheduler, and the request asked again, are set
  aside by the scheduler (``components/scheduler.py``) when it would hand
  them over, and given back to the engine when the hold ends, in their
  order: they take no download place while they wait;
- its link checks already queued in its download slot (not yet sent) are
  taken back, as the back-off takes back those of a host given up: failed
  with :class:`HostHeld`, which the failure judge turns into the same
  request again, set aside with the others;
- the other hosts' requests go on at their own pace.

A set-aside request still counts as pending (the scheduler's length), so
the crawl is not idle and the next breadth-first level is not released
while a host waits.

A robots.txt that answers 429 (or 503) with ``Retry-After`` holds its
host too (``robots=True``): the link checks waiting for it leave the
downloader (``middlewares/robots.py`` fails them with :class:`HostHeld`),
are set aside with the host's others, and the first one given back asks
for the robots.txt again.  Waiting inside the robots.txt's download held
one download place per host (and each request waiting for it held one
more): twenty such hosts took every place for a minute, and Ctrl-C waited
for them.  Nothing of the host can be sent before its robots.txt is read,
so a robots.txt's hold sets aside every request of the host, even one
given back before; it is bounded as the others are
(``LINKAUDIT_RETRY_AFTER_MAX`` a wait, ``LINKAUDIT_RETRY_AFTER_TIMES``
waits).

A request is set aside (or taken back) once: given back, it is sent at the
host's pace even if a new 429 holds the host again, and only the requests
that come after (a retry, a new URL) wait for the new hold.  A limiter per
client (the usual kind) answers them after one wait; a server that answers
429 to the first request of every URL, or to everything, would otherwise be
asked one URL per wait (52 URLs, 26 minutes), never done with its waits.
"""

from __future__ import annotations

import logging
import time
import weakref
from typing import Any

from scrapy.http import Request
from scrapy.utils.asyncio import call_later
from twisted.python.failure import Failure

from linkaudit import internals
from linkaudit.exceptions import HostHeld
from linkaudit.meta import CHECK_URL, HELD_ONCE

logger = logging.getLogger(__name__)


class HostHolds:
    """The crawl's held hosts: slot key -> until when (``time.monotonic``),
    and the requests set aside for each."""

    _of: weakref.WeakKeyDictionary[Any, HostHolds] = weakref.WeakKeyDictionary()

    def __init__(self, crawler: Any) -> None:
        self.crawler = crawler
        self.until: dict[str, float] = {}
        self.aside: dict[str, list[Request]] = {}
        self.robots: set[str] = set()  # held for their robots.txt: everything set aside
        self._waiting = 0

    @classmethod
    def of(cls, crawler: Any) -> HostHolds:
        """The crawler's one registry (the middleware and the scheduler share it)."""
        if crawler not in cls._of:
            cls._of[crawler] = cls(crawler)
        return cls._of[crawler]

    def hold(self, request: Request, seconds: float, robots: bool = False) -> float:
        """No request to ``request``'s host for ``seconds`` (a longer hold
        already there stays); ``robots``: the host's robots.txt asked for
        the wait, and none of its requests is sent before it is over.
        Returns when the host's wait ends (``time.monotonic``)."""
        now = time.monotonic()
        if seconds <= 0:  # no wait: nothing to take back
            return now
        downloader = self.crawler.engine.downloader
        key = downloader.get_slot_key(request)
        if robots:
            self.robots.add(key)
        until = now + seconds
        if until <= self.until.get(key, 0.0):
            return self.until[key]
        self.until[key] = until
        # the timer names its hold: a timer that fires a little early (the
        # reactor's clock) still releases it, one of a hold extended since does not
        call_later(seconds, self._release, key, until)
        # robots.txt (fetched outside the scheduler) stays where it is
        stats = self.crawler.stats
        for queued, deferred in list(internals.queued_downloads(self.crawler, key)):
            if CHECK_URL not in queued.meta or queued.meta.get(HELD_ONCE):
                downloader.slots[key].queue.append((queued, deferred))
                continue
            # never sent, so not counted (middlewares/stats.py counts requests sent)
            stats.inc_value("linkaudit/retry_after_taken_back")
            deferred.errback(Failure(HostHeld(f"{key} asked to wait {seconds:g} s")))
        return until

    def set_aside(self, request: Request) -> bool:
        """Keep ``request`` here if its host is held (True)."""
        if not self.until:
            return False
        key = self.crawler.engine.downloader.get_slot_key(request)
        if key not in self.until or (request.meta.get(HELD_ONCE) and key not in self.robots):
            return False
        request.meta[HELD_ONCE] = True
        self.aside.setdefault(key, []).append(request)
        self._waiting += 1
        return True

    def remaining(self, request: Request) -> float:
        """Seconds left of the hold of ``request``'s host (0: not held): what
        a rendered page's own request waits before it is sent
        (``rendering/paced.py``; it is not in the scheduler to be set aside)."""
        if not self.until:
            return 0.0
        key = self.crawler.engine.downloader.get_slot_key(request)
        return max(0.0, self.until.get(key, 0.0) - time.monotonic())

    def waiting(self) -> int:
        """Requests set aside, in all."""
        return self._waiting

    def _release(self, key: str, until: float) -> None:
        if self.until.get(key) != until:
            return  # extended since: the later timer releases it
        del self.until[key]
        self.robots.discard(key)
        requests = self.aside.pop(key, [])
        self._waiting -= len(requests)
        if internals.engine_closing(self.crawler):
            return  # the report lists them unchecked
        if requests:
            logger.debug("%s: wait over, %d requests given back", key, len(requests))
        for request in requests:
            try:
                self.crawler.engine.crawl(request)
            except Exception:  # one request's fault is not its host's: the others go on
                logger.exception("%s: could not give back %s", key, request.url)
