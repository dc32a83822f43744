"""Back off a struggling host: slow it down, pause it, give it up.

A host whose recent answers turn to 429, 503, other 5xx or timeouts is
not helped by being asked at the same pace, and its
failures then say more about its state than about its URLs.  Per host (the
downloader's slot key, as Scrapy tells hosts apart for their delays) the
last ``LINKAUDIT_BACKOFF_WINDOW`` answers of link checks are kept; the rules
are in ``linkaudit/rules/backoff.py``.  Over the threshold the host's slot
delay doubles, up to ``LINKAUDIT_BACKOFF_MAX_DELAY``; at the cap the host is
paused for ``LINKAUDIT_BACKOFF_PAUSE`` seconds (its slot's delay holds every
request queued for it; other hosts' slots go on at their own pace); after
``LINKAUDIT_BACKOFF_MAX_PAUSES`` pauses without a recovery it is given up.

A failing answer is asked again rather than judged as long as the host is
struggling (at most ``MAX_TRIES`` times a URL).  A failing answer of a host
not (yet) struggling is held until the host's next few answers tell whether
it starts a spell (see :meth:`BackoffMiddleware._news`): the first 503s of
a burst are asked again too, a lone 500 is judged as before.  Once
the host is given up, its URLs end ``unchecked`` with the reason
(:class:`HostFailing`), never ``broken``: the audit is then incomplete.

A host that throttles (a connection closed without an answer, a 429, 430
or 503) is read at once, not over a window: it is asked one connection at
a time from then on (its slot's concurrency, at least 0.25 s apart), and
the request is asked again, behind what is queued; only a request that
fails again when asked alone, while the host answers others, or on its
URL's third try (or once ``Retry-After`` was waited on), gets its verdict
(``rules/backoff.py``: ``throttle_verdict``).
After a window of calm answers in a row the host gets one more connection,
never more than half as many as when it throttled.  Every request asked
again is counted (``linkaudit/backoff/retries``, in ``summary.retries``).

On a shared audit (Redis) the host's level, pause and give-up are kept in
the state, as its lease is, so that the worker taking over a host goes on
from there.  Stats: ``linkaudit/backoff/backoffs`` and ``.../pauses``
(``summary.backoffs`` and ``summary.pauses``).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Mapping
from typing import Any

from scrapy import Request
from scrapy.crawler import Crawler
from scrapy.exceptions import IgnoreRequest, NotConfigured
from scrapy.http import Response
from scrapy.utils.asyncio import call_later
from twisted.python.failure import Failure

from linkaudit import internals
from linkaudit.audit import audit_of
from linkaudit.config import config_of
from linkaudit.exceptions import HostFailing
from linkaudit.meta import BACKOFF_TRIES, CHECK_URL, RETRY_AFTER_TRIES
from linkaudit.network.failures import is_network_failure, is_timeout, is_unanswered
from linkaudit.rules.backoff import (
    BACKOFF,
    GIVE_UP,
    PAUSE,
    RECOVER,
    THROTTLE_STATUSES,
    THROTTLE_TRIES,
    BackoffPolicy,
    HostBackoff,
    throttle_verdict,
)
from linkaudit.rules.statuses import is_bot_wall

logger = logging.getLogger(__name__)

BACKOFFS, PAUSES = "linkaudit/backoff/backoffs", "linkaudit/backoff/pauses"
RETRIES, THROTTLES = "linkaudit/backoff/retries", "linkaudit/backoff/throttles"
ALONE = "la_alone"  # request.meta: sent while its host was asked one connection at a time
UNANSWERED = "closed connections"  # the label of a connection closed without an answer
# a URL is asked again at most this many times in all (its HEAD's and its
# GET's retries together): the host's own give-up comes first with any sane
# settings, this only bounds a URL the rules keep retrying
MAX_TRIES = 12


def failure_label(status: int) -> str | None:
    """An HTTP status as a host's trouble (None: not the host's trouble)."""
    return str(status) if status in THROTTLE_STATUSES or 500 <= status <= 599 else None


class BackoffMiddleware:
    """Settings: ``LINKAUDIT_BACKOFF`` (True), ``..._WINDOW`` (20),
    ``..._THRESHOLD`` (0.5), ``..._MAX_DELAY`` (8 s), ``..._PAUSE`` (30 s),
    ``..._MAX_PAUSES`` (2); docs/politeness.md says why."""

    def __init__(self, crawler: Crawler):
        config = config_of(crawler)
        if not config["LINKAUDIT_BACKOFF"]:
            raise NotConfigured
        self.crawler = crawler
        self.policy = BackoffPolicy(
            window=config["LINKAUDIT_BACKOFF_WINDOW"],
            threshold=config["LINKAUDIT_BACKOFF_THRESHOLD"],
            max_delay=config["LINKAUDIT_BACKOFF_MAX_DELAY"],
            pause=config["LINKAUDIT_BACKOFF_PAUSE"],
            max_pauses=config["LINKAUDIT_BACKOFF_MAX_PAUSES"],
        )
        self.timeout = config["DOWNLOAD_TIMEOUT"]
        self.concurrency = config["CONCURRENT_REQUESTS_PER_DOMAIN"]
        self.stats = crawler.stats
        self.hosts: dict[str, HostBackoff] = {}  # by the downloader's slot key
        # a URL -> its requests asked again (URLs asked again only): the bounds are a URL's
        self.retried: dict[str, int] = {}
        # a URL a throttling host failed -> the host's fine answers by then
        self.fine_at: dict[str, int] = {}
        self.stats.set_value(BACKOFFS, 0)
        self.stats.set_value(PAUSES, 0)
        self.stats.set_value(RETRIES, 0)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> BackoffMiddleware:
        return cls(crawler)

    def _host(self, request: Request) -> tuple[str, HostBackoff]:
        # the host name, as Scrapy tells hosts apart for their delays
        key = self.crawler.engine.downloader.get_slot_key(request)
        host = self.hosts.get(key)
        if host is None:
            host = self.hosts[key] = HostBackoff(self.policy)
            record = self._state_record(key)
            if record:
                host.restore(record, time.time())
        return key, host

    def _state_record(self, key: str) -> Mapping[str, Any] | None:  # (open: read back)
        audit = audit_of(self.crawler)
        return audit.state.backoff(key) if audit is not None else None

    def _share(self, key: str, host: HostBackoff) -> None:
        audit = audit_of(self.crawler)
        if audit is not None:
            audit.state.save_backoff(key, host.record())

    def process_request(self, request: Request, spider: object = None) -> None:
        if CHECK_URL not in request.meta:
            return
        key, host = self._host(request)
        if host.given_up is not None:
            raise HostFailing(host.given_up)
        request.meta[ALONE] = host.lanes == 1
        slot = internals.download_slot(self.crawler, request)
        if slot is None:
            return
        if host.lanes is not None and slot.concurrency > host.lanes:
            internals.set_slot_concurrency(slot, host.lanes)  # a new slot
        if (host.level or host.lanes) and slot.delay < host.delay:
            slot.delay = host.delay  # a new slot, or another worker's back-off
        remaining = host.paused_until - time.time()
        if remaining > 0 and slot.delay < remaining:
            self._hold(key, slot, host, remaining)

    async def process_response(
        self, request: Request, response: Response, spider: object = None
    ) -> Request | Response:
        if CHECK_URL not in request.meta:
            return response
        if is_bot_wall(response.status, response.headers, response.body):
            return response  # a wall's refusal (rules/walls.py): no trouble of the host's
        label = failure_label(response.status)
        # Scrapy's download_latency: from sending the request to its answer
        sent_at = time.time() - request.meta.get("download_latency", 0.0)
        host = self._note(request, label, sent_at)
        if label is None:
            return response
        if response.status in THROTTLE_STATUSES and not host.struggling(time.time()):
            retry = self._throttled(request, host, label)
            return response if retry is None else retry
        if not host.struggling(time.time()):
            await self._news(request, host)
        retry = self._again(request, host, label)
        return response if retry is None else retry

    def process_exception(
        self, request: Request, exception: BaseException, spider: object = None
    ) -> Request | None:
        if CHECK_URL not in request.meta or isinstance(exception, IgnoreRequest):
            return None
        # timeouts, and connections closed without an answer (a throttling
        # host's): a refused connection or a failed lookup is an unreachable
        # host (hosts/failures.py fails its other requests at once), an
        # answer cut short or garbled that connection's fault
        if not is_network_failure(exception):
            return None
        if is_unanswered(exception):
            # no answer at all: the request was sent now, or nearly
            host = self._note(request, UNANSWERED, time.time())
            if host.struggling(time.time()):
                return self._again(request, host, UNANSWERED)
            return self._throttled(request, host, UNANSWERED)
        if not is_timeout(exception):
            return None
        label = "timeouts"
        sent_at = time.time() - self.timeout
        # not held as a failing answer is: a first timeout is asked again
        # by the failure judge anyway
        return self._again(request, self._note(request, label, sent_at), label)

    def _note(self, request: Request, label: str | None, sent_at: float) -> HostBackoff:
        """Note an answer of ``request``'s host (``label`` its failure),
        and act on the decision it brings."""
        key, host = self._host(request)
        now = time.time()
        slot = internals.download_slot(self.crawler, request)
        if slot is not None and host.level == 0 and not host.struggling(now):
            host.base = slot.delay  # the host's own pace (Crawl-delay included)
        decision = host.observe(label, now, sent_at)
        if decision is not None:
            self._apply(key, request, host, decision)
        if label is not None:
            host.calm = 0
        elif host.calm_answer() is not None and slot is not None:
            internals.set_slot_concurrency(slot, host.lanes or self.concurrency)
            logger.info("%s: %d connections at a time again", key, host.lanes)
        return host

    def _throttled(self, request: Request, host: HostBackoff, label: str) -> Request | None:
        """A request the host throttled (``label``, its failure), the host
        not struggling: the host asked one connection at a time, and the
        request again unless it gets its verdict now (None)."""
        key = self.crawler.engine.downloader.get_slot_key(request)
        slot = internals.download_slot(self.crawler, request)
        if host.throttle(slot.concurrency if slot is not None else self.concurrency):
            self.stats.inc_value(THROTTLES)
            logger.warning(
                "%s throttles (%s): asked one connection at a time, %.2f s apart, "
                "at most %d from now on",
                key,
                label,
                host.delay,
                host.ceiling,
            )
        if slot is not None:
            internals.set_slot_concurrency(slot, 1)
            slot.delay = max(slot.delay, host.delay)
        meta = request.meta
        url = meta[CHECK_URL]
        fine_since = url in self.fine_at and host.fine > self.fine_at[url]
        # Retry-After waited on it already: asked again unhurried, and enough
        tries = THROTTLE_TRIES if meta.get(RETRY_AFTER_TRIES) else self.retried.get(url, 0)
        if throttle_verdict(tries, bool(meta.get(ALONE)), fine_since):
            return None
        self.fine_at[url] = host.fine
        logger.info("%s %s throttled (%s): asked again alone", request.method, request.url, label)
        return self._retry(request)

    async def _news(self, request: Request, host: HostBackoff) -> None:
        """Hold a failing answer of a host that is not struggling until the
        answers after it tell whether it is the start of a spell (the
        host's next ``step`` answers: a decision is taken on them), while
        the host has requests in flight, for at most ``step`` of its
        delays and half a second.  A lone 500 of a healthy host is judged
        after that, and asked no more than before."""
        slot = internals.download_slot(self.crawler, request)
        target = host.seen + self.policy.step
        deadline = time.monotonic() + self.policy.step * host.delay + 0.5
        while (
            slot is not None
            and slot.active
            and host.seen < target
            and not host.struggling(time.time())
            and time.monotonic() < deadline
        ):
            await asyncio.sleep(0.05)

    def _again(self, request: Request, host: HostBackoff, label: str) -> Request | None:
        """The request again when its failure is the host's state, not a
        verdict on its URL (raises :class:`HostFailing` once the host is
        given up); None: the failure is the verdict."""
        if host.given_up is not None:
            raise HostFailing(host.given_up)
        tries = self.retried.get(request.meta[CHECK_URL], 0)
        if tries >= MAX_TRIES or not host.struggling(time.time()):
            return None
        logger.debug("%s %s answered %s: asked again later", request.method, request.url, label)
        return self._retry(request)

    def _retry(self, request: Request) -> Request:
        """``request`` once more, counted, and counted against its URL (its
        HEAD's and its GET's retries together)."""
        url = request.meta[CHECK_URL]
        self.retried[url] = self.retried.get(url, 0) + 1
        retry = request.replace(dont_filter=True)
        retry.meta[BACKOFF_TRIES] = request.meta.get(BACKOFF_TRIES, 0) + 1
        # behind what is queued: by then the host may have recovered
        retry.priority = request.priority - 1
        self.stats.inc_value(RETRIES)
        return retry

    def _apply(self, key: str, request: Request, host: HostBackoff, decision: str) -> None:
        slot = internals.download_slot(self.crawler, request)
        if decision in (BACKOFF, RECOVER):
            if slot is not None:
                slot.delay = host.delay
            if decision == BACKOFF:
                self.stats.inc_value(BACKOFFS)
                logger.warning(
                    "%s is struggling (%s): backing off, %.2f s between requests",
                    key,
                    host.reason().removeprefix("Host failing: ").rpartition(";")[0],
                    host.delay,
                )
            else:
                logger.info("%s is recovering: %.2f s between requests", key, host.delay)
        elif decision == PAUSE:
            self.stats.inc_value(PAUSES)
            logger.warning(
                "%s keeps failing at %.2f s between requests: paused for %g s (pause %d of %d)",
                key,
                host.delay,
                self.policy.pause,
                host.pauses,
                self.policy.max_pauses,
            )
            if slot is not None:
                self._hold(key, slot, host, self.policy.pause)
        elif decision == GIVE_UP:
            logger.warning("%s given up, its URLs left unchecked: %s", key, host.given_up)
            for _request, deferred in list(internals.queued_downloads(self.crawler, key)):
                deferred.errback(Failure(HostFailing(host.given_up)))
        self._share(key, host)

    def _hold(self, key: str, slot: Any, host: HostBackoff, seconds: float) -> None:
        """No request to the host for ``seconds``: its slot's delay covers
        them (Scrapy times a slot's delay from its last request), and
        comes back to the backed-off delay when they are over."""
        slot.delay = max(slot.delay, time.monotonic() - slot.lastseen + seconds)

        def resume() -> None:
            if host.given_up is None:
                slot.delay = host.delay
                logger.info("%s: pause over, asking again", key)

        call_later(seconds, resume)
