"""Failures: a request that got no HTTP answer, or that robots.txt kept us
from sending, and a check an exception of ours stopped (an internal error,
never a verdict on the link).

A timeout is a verdict only the second time.  The download timeout is a
timer on the event loop, and our own work runs on that loop: while a large
page is scanned for seconds, the answers of the other requests in flight
sit unread in their sockets and their timers run out as soon as the loop is
free, though the server sent everything in time.  The download handler's
timer does not count those seconds (``linkaudit/network/looplag.py``); and
whatever the cause (a server's hiccup, a loaded machine, a connect timer),
a check that times out is asked once more, at once (ahead of the level
still queued), with a full timeout of its own: only its second timeout is
``Timed out after N s`` (stat ``linkaudit/timeouts_retried``).  A HEAD that
times out is asked again with GET, and that GET is the retry: a URL waits
out at most two timeouts, whichever way it is asked.  A host that never
answered anything and timed out is condemned by the host failure cache
(hosts/failures.py): its retry fails at once with the same words.

A page's render that failed (a timeout, a crash, the memory bound, a
browser that did not start, an audit closing early) is no verdict on the
page, whose answer is already there: it goes back to the check path as
the render's answer, the page's own, with why the render failed
(``RenderFacts.error``), and the page is read from its HTML, with a
warning.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable, Iterator
from typing import Any

from scrapy.exceptions import IgnoreRequest
from scrapy.http import Request
from scrapy.utils.httpobj import urlparse_cached
from scrapy.utils.log import failure_to_exc_info
from twisted.python.failure import Failure

from linkaudit.audit import Audit
from linkaudit.components.replay import Replay
from linkaudit.components.requests import CheckRequests
from linkaudit.exceptions import (
    HostFailing,
    HostHeld,
    Interrupted,
    RobotsBlocked,
    RobotsUnanswered,
)
from linkaudit.items import Method, Outcome, UrlResult
from linkaudit.meta import CHECK_URL, DEPTH, HISTORY, PHASE, RENDERED
from linkaudit.network.failures import (
    describe_failure,
    failed_exception,
    failed_request,
    is_network_failure,
    is_timeout,
)
from linkaudit.rules.decisions import Phase
from linkaudit.rules.rendered import RenderFacts

logger = logging.getLogger(__name__)

TIMED_OUT = "la_timed_out"  # request.meta: the check has timed out once already


class FailureJudge:
    """What a request without an answer means (the spider's errback hands
    each failure here)."""

    def __init__(
        self,
        audit: Audit,
        requests: CheckRequests,
        replay: Replay,
        unrendered: Callable[[Request, RenderFacts], Iterator[Any]],
    ):
        self.audit = audit
        self.requests = requests
        self.replay = replay
        # a failed render's page handed back to the check path (checks.py)
        self.unrendered = unrendered
        self.timeout = audit.config["DOWNLOAD_TIMEOUT"]

    def on_error(self, failure: Failure) -> Iterator[Any]:
        # Scrapy hands an exception raised in an errback to its own error
        # log, and the URL would silently stay unchecked: say why instead.
        try:
            yield from self._on_error(failure)
        except Exception:
            yield self.audit.internal_error(failed_request(failure), sys.exc_info())

    def _on_error(self, failure: Failure) -> Iterator[Any]:
        request = failed_request(failure)
        meta = request.meta
        url = meta[CHECK_URL]
        if meta[PHASE] == Phase.RENDER:  # whatever stopped it: the page is read
            facts = meta.get(RENDERED) or RenderFacts()
            facts.error = facts.error or _render_failure(failure)
            logger.warning("%s could not be rendered (%s): read from its HTML", url, facts.error)
            yield from self.unrendered(request, facts)
            return
        exc = failed_exception(failure)
        if isinstance(exc, Interrupted):
            return  # never sent: the report lists it unchecked
        if isinstance(exc, HostHeld):  # never sent: asked once the host's wait is over
            yield request.replace(dont_filter=True)
            return
        # the host's state, not a verdict on the link: given up, or its
        # robots.txt unanswered
        if isinstance(exc, HostFailing | RobotsUnanswered):
            logger.info("%s %s not checked: %s", request.method, url, exc)
            yield UrlResult(
                url, self.audit.is_near(url), Outcome.UNCHECKED, meta[DEPTH], error=str(exc)
            )
        elif isinstance(exc, IgnoreRequest):
            error = str(exc) if isinstance(exc, RobotsBlocked) else "Disallowed by robots.txt"
            logger.info("%s %s not requested: %s", request.method, url, error)
            yield UrlResult(url, self.audit.is_near(url), Outcome.BLOCKED, meta[DEPTH], error=error)
        elif not is_network_failure(exc):
            yield self.audit.internal_error(request, failure_to_exc_info(failure))
        elif is_timeout(exc) and not meta.get(TIMED_OUT):
            yield self._timeout_retry(request)
        else:
            host = urlparse_cached(request).hostname or url
            error = describe_failure(exc, host=host, timeout=self.timeout)
            logger.info("%s %s failed: %s", request.method, url, error)
            near = self.audit.is_near(url)
            result = UrlResult(
                url, near, Outcome.BROKEN, meta[DEPTH], method=Method(request.method), error=error
            )
            yield from self.replay.maybe_ghost(result, meta.get(HISTORY))

    def _timeout_retry(self, request: Request) -> Request:
        """The check's first timeout: the same request again (a GET for a
        HEAD), marked so that a second timeout is the verdict."""
        meta = request.meta
        url, phase = meta[CHECK_URL], meta[PHASE]
        if phase == Phase.HEAD:
            logger.info("HEAD %s timed out: asking again with GET", url)
            retry = self.requests.next(request, "fallback")
        else:
            logger.info("%s %s timed out: asking once more", request.method, url)
            retry = self.requests.next(request, phase)
        retry.meta[TIMED_OUT] = True
        # not behind the rest of a long level: its first try is already late
        retry.priority = request.priority + 1
        self.audit.count("linkaudit/timeouts_retried")
        return retry


def _render_failure(failure: Failure) -> str:
    """Why a render failed, in one line: our own words as they are; a
    browser's or Playwright's error with its name."""
    text = str(failure.value).strip().splitlines()
    first = text[0][:200] if text else ""
    name = type(failure.value).__name__
    if type(failure.value).__module__.startswith("linkaudit.") and first:
        return first
    return f"{name}: {first}" if first else name
