"""A check's answers handed on: the components of a crawl, made once per
crawler by the spider, and the way a Scrapy response goes through them.

A response becomes the components' own value for an answer
(``answers.py``: :func:`reply_of`), which takes the path every route of an
audit shares (``path.py``: the status judged, the decision table read, a
reader or the result); "one more request of the check" becomes its next
Scrapy request (``requests.py``).  A request without an answer goes to the
failure judge (``failures.py``).  What they yield, the spider yields:
requests to the scheduler, results (``UrlResult``) to the item pipelines.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from typing import Any

from scrapy.crawler import Crawler
from scrapy.http import Response, TextResponse
from twisted.python.failure import Failure

from linkaudit.audit import Audit
from linkaudit.components.answers import NETWORK, STORED, Reply
from linkaudit.components.discovery import Discovery
from linkaudit.components.failures import FailureJudge
from linkaudit.components.pages import Pages
from linkaudit.components.path import CheckPath
from linkaudit.components.probes import Probes
from linkaudit.components.renders import Renders
from linkaudit.components.replay import Replay
from linkaudit.components.requests import CheckRequests
from linkaudit.components.sitemaps import Sitemaps
from linkaudit.meta import (
    CACHED,
    CHECK_URL,
    DEPTH,
    HISTORY,
    LOCATION,
    LOCATION_ERROR,
    PHASE,
    REFERRER,
    RENDER,
    TRUNCATED,
)
from linkaudit.network.failures import failed_request
from linkaudit.signals import robots_sitemaps

logger = logging.getLogger(__name__)


class Checks:
    """The components of one crawl's checks, and an answer's way through them."""

    def __init__(
        self,
        crawler: Crawler,
        audit: Audit,
        callback: Callable[..., Any],
        errback: Callable[..., Any],
    ):
        config = audit.config
        self.audit = audit
        head_first = config["LINKAUDIT_HEAD_FIRST"]
        self.requests = CheckRequests(audit.state, audit.rules, head_first, callback, errback)
        audit.callbacks = (callback, errback)  # the scheduler's requests name them too
        self.discovery = Discovery(config, audit.rules, audit.state, audit.count, audit.link_faults)
        self.replay = Replay(audit, self.discovery)
        self.probes = Probes(audit)
        render = self._render if config["LINKAUDIT_RENDER"] != "never" else None
        self.pages = Pages(audit, self.discovery, self.probes, crawler.signals, render)
        self.renders = Renders(self.pages, reply_of, callback, errback)
        self.sitemaps = Sitemaps(audit, self.discovery)
        self.failures = FailureJudge(audit, self.requests, self.replay)
        self.path = CheckPath(audit, self.pages, self.probes, self.sitemaps, self.replay, self._ask)
        if config["LINKAUDIT_ROBOTS_SITEMAPS"]:
            crawler.signals.connect(self.sitemaps.robots_sitemaps, signal=robots_sitemaps)

    def start(self) -> Iterator[Any]:
        """Open the audit; what the walk of a build found; the start URLs
        and the given sitemaps into the frontier (the scheduler releases it)."""
        audit = self.audit
        run = audit.open()
        if run.resumed:
            logger.info(
                "Resuming the interrupted audit: %d URLs checked, %d to go",
                run.checked,
                audit.state.waiting(),
            )
        yield from self.replay.walk_results()
        for url in audit.config.start_urls:
            yield from self.discovery.discover(url, 0, None)
        yield from self.sitemaps.given_sitemaps()

    def on_response(self, response: Response) -> Iterator[Any]:
        """The answer of one request of a check, handed on as the decision
        table says (``CheckPath``)."""
        if RENDER in response.meta:  # a page's render (renders.py)
            return self.renders.rendered(response)
        return self.path.on_reply(reply_of(response))

    def _render(self, reply: Reply) -> Any:
        return self.renders.ask(reply)

    def _ask(self, reply: Reply, phase: str) -> Any:
        """The check's next request, in ``phase``."""
        return self.requests.next(reply.source.request, phase)

    def on_error(self, failure: Failure) -> Iterator[Any]:
        if RENDER in failed_request(failure).meta:
            return self.renders.failed(failure)
        return self.failures.on_error(failure)


def reply_of(response: Response) -> Reply:
    """A Scrapy response as the components read an answer: the check's
    facts from its request's meta, the body decoded when it is text."""
    meta = response.meta
    assert response.request is not None  # a response the spider is handed has its request
    return Reply(
        url=meta[CHECK_URL],
        depth=meta[DEPTH],
        phase=meta[PHASE],
        method=response.request.method,
        status=response.status,
        headers=response.headers,
        body=response.body,
        decode=(lambda: response.text) if isinstance(response, TextResponse) else lambda: None,
        truncated=bool(meta.get(TRUNCATED)),
        location=meta.get(LOCATION),
        location_error=meta.get(LOCATION_ERROR),
        referrer=meta.get(REFERRER),
        via=STORED if CACHED in response.flags else NETWORK,
        history=meta.get(HISTORY),
        source=response,
    )
