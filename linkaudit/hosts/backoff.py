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

On a shared audit (Redis) the host's level, pause and give-up are kept in
the state, as its lease is, so that the worker taking over a host goes on
from there.  Stats: ``linkaudit/backoff/backoffs`` and ``.../pauses``
(``summary.backoffs`` and ``summary.pauses``).
"""

from __future__ import annotations

import asyncio
import logging
import time
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
from linkaudit.meta import BACKOFF_TRIES, CHECK_URL
from linkaudit.network.failures import is_network_failure, is_timeout
from linkaudit.rules.backoff import BACKOFF, GIVE_UP, PAUSE, RECOVER, BackoffPolicy, HostBackoff

logger = logging.getLogger(__name__)

BACKOFFS, PAUSES = "linkaudit/backoff/backoffs", "linkaudit/backoff/pauses"
# a URL is asked at most this many times in all: the host's own give-up comes
# first with any sane settings, this only bounds a URL the rules keep retrying
MAX_TRIES = 12


def failure_label(status: int) -> str | None:
    """An HTTP status as a host's trouble (None: not the host's trouble)."""
    return str(status) if status == 429 or 500 <= status <= 599 else None


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
        self.stats = crawler.stats
        self.hosts: dict[str, HostBackoff] = {}  # by the downloader's slot key
        self.stats.set_value(BACKOFFS, 0)
        self.stats.set_value(PAUSES, 0)

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

    def _state_record(self, key: str) -> dict | None:
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
        slot = internals.download_slot(self.crawler, request)
        if slot is None:
            return
        if host.level and slot.delay < host.delay:
            slot.delay = host.delay  # a new slot, or another worker's back-off
        remaining = host.paused_until - time.time()
        if remaining > 0 and slot.delay < remaining:
            self._hold(key, slot, host, remaining)

    async def process_response(
        self, request: Request, response: Response, spider: object = None
    ) -> Request | Response:
        if CHECK_URL not in request.meta:
            return response
        label = failure_label(response.status)
        # Scrapy's download_latency: from sending the request to its answer
        sent_at = time.time() - request.meta.get("download_latency", 0.0)
        host = self._note(request, label, sent_at)
        if label is None:
            return response
        if not host.struggling(time.time()):
            await self._news(request, host)
        retry = self._again(request, host, label)
        return response if retry is None else retry

    def process_exception(
        self, request: Request, exception: BaseException, spider: object = None
    ) -> Request | None:
        if CHECK_URL not in request.meta or isinstance(exception, IgnoreRequest):
            return None
        # timeouts only, as the "429, 503, 5xx or timeouts": a refused
        # connection or a failed lookup is an unreachable host (hostfailures.py
        # fails its other requests at once), a reset or a garbled answer one
        # connection's fault
        if not is_network_failure(exception) or not is_timeout(exception):
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
        return host

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
        tries = request.meta.get(BACKOFF_TRIES, 0)
        if tries >= MAX_TRIES or not host.struggling(time.time()):
            return None
        logger.debug("%s %s answered %s: asked again later", request.method, request.url, label)
        retry = request.replace(dont_filter=True)
        retry.meta[BACKOFF_TRIES] = tries + 1
        # behind what is queued: by then the host may have recovered
        retry.priority = request.priority - 1
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
