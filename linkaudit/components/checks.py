"""A check's answers handed on: the components of a crawl, made once per
crawler by the spider, and the way a Scrapy response goes through them.

A response becomes the components' own value for an answer
(``answers.py``: :func:`reply_of`), which takes the path every route of an
audit shares (``path.py``: the status judged, the decision table read, a
reader or the result); "one more request of the check" becomes its next
Scrapy request (``requests.py``), a page's render among them, whose answer
(the page's own, with what the browser made of it) takes the same path.
A request without an answer goes to the failure judge (``failures.py``);
a render that failed comes back to the path as the page's answer, its
render's error said.  What they yield, the spider yields:
requests to the scheduler, results (``UrlResult``) to the item pipelines.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from typing import Any

from scrapy.crawler import Crawler
from scrapy.http import HtmlResponse, Request, Response, TextResponse
from twisted.python.failure import Failure

from linkaudit.audit import Audit
from linkaudit.components.answers import NETWORK, STORED, Reply
from linkaudit.components.discovery import Discovery
from linkaudit.components.failures import FailureJudge
from linkaudit.components.pages import Pages
from linkaudit.components.path import CheckPath
from linkaudit.components.probes import Probes
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
    RENDERED,
    TRUNCATED,
)
from linkaudit.rules.rendered import PageAnswer, RenderFacts
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
        self.pages = Pages(audit, self.discovery, self.probes, crawler.signals)
        self.sitemaps = Sitemaps(audit, self.discovery)
        self.path = CheckPath(
            audit,
            self.pages,
            self.probes,
            self.sitemaps,
            self.replay,
            self.requests.ask,
            config["LINKAUDIT_RENDER"],
        )
        self.failures = FailureJudge(audit, self.requests, self.replay, self._unrendered)
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
        return self.path.on_reply(reply_of(response))

    def on_error(self, failure: Failure) -> Iterator[Any]:
        return self.failures.on_error(failure)

    def _unrendered(self, request: Request, facts: RenderFacts) -> Iterator[Any]:
        """A render that failed (``facts.error``: why), its page's answer on
        the path as a render's answer: the page read from its HTML."""
        request.meta[RENDERED] = facts
        page: PageAnswer = request.meta[RENDER]
        response = HtmlResponse(
            page.url,
            status=page.status,
            headers=page.headers,
            body=page.body,
            encoding=page.encoding,
            request=request,
        )
        return self.path.on_reply(reply_of(response))


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
        rendered=meta.get(RENDERED),  # a render's answer: what the browser made of the page
    )
