"""A check's answers handed on: the components of a crawl, made once per
crawler by the spider, and the way an answer goes through them.

An answer (a response) is judged by its status (``rules/statuses.py``),
then the decision table (``rules/decisions.py``) says what follows: one more
request of the check (``requests.py``), a reader (a page or a redirect:
``pages.py``, a sitemap: ``sitemaps.py``, a soft-404 probe: ``probes.py``),
what the audit database knew (``replay.py``), or the URL's result.  A
request without an answer goes to the failure judge (``failures.py``).
What they yield, the spider yields: requests to the scheduler, results
(``UrlResult``) to the item pipelines.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from typing import Any

from scrapy.crawler import Crawler
from scrapy.http import Response
from twisted.python.failure import Failure

from linkaudit.audit import Audit
from linkaudit.components.discovery import Discovery
from linkaudit.components.failures import FailureJudge
from linkaudit.components.pages import Pages
from linkaudit.components.probes import Probes
from linkaudit.components.replay import Replay
from linkaudit.components.requests import CheckRequests
from linkaudit.components.sitemaps import Sitemaps
from linkaudit.meta import CACHED, CHECK_URL, DEPTH, HISTORY, PHASE
from linkaudit.rules.decisions import (
    PROBED,
    READ_ANCHORS,
    READ_SITEMAP,
    REDIRECTED,
    REQUEST,
    RESULT,
    SCAN,
    Answer,
    decide,
)
from linkaudit.rules.statuses import (
    BROKEN,
    FALLBACK,
    OK,
    judge_status,
    media_type,
    status_text,
    unchecked_reason,
)
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
        self.accept = config["LINKAUDIT_ACCEPT_STATUS"]
        self.fragments = config["LINKAUDIT_CHECK_FRAGMENTS"]
        head_first = config["LINKAUDIT_HEAD_FIRST"]
        self.requests = CheckRequests(audit.state, audit.rules, head_first, callback, errback)
        audit.callbacks = (callback, errback)  # the scheduler's requests name them too
        self.discovery = Discovery(config, audit.rules, audit.state, audit.count, audit.link_faults)
        self.replay = Replay(audit, self.discovery)
        self.probes = Probes(audit)
        self.pages = Pages(audit, self.discovery, self.probes, crawler.signals)
        self.sitemaps = Sitemaps(audit, self.discovery)
        self.failures = FailureJudge(audit, self.requests, self.replay)
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
        table says."""
        audit = self.audit
        meta = response.meta
        url, depth, phase = meta[CHECK_URL], meta[DEPTH], meta[PHASE]
        status = response.status
        history = meta.get(HISTORY)
        verdict = judge_status(status, response.headers, head=phase == "head", accept=self.accept)
        kind = media_type(response.headers.get(b"Content-Type"))
        answer = Answer(
            phase,
            verdict,
            near=audit.is_near(url),
            kind=kind,
            scan=kind in audit.scan_types,
            html=kind in audit.html_types,
            fragments=self.fragments,
            replayed=history is not None and (CACHED in response.flags or status == 304),
        )
        decision = decide(answer, lambda mark: audit.state.marked(mark, url))
        action = decision.action
        if action == REQUEST:
            if decision.phase == FALLBACK:
                logger.debug("HEAD %s answered %s: asking again with GET", url, status)
            assert decision.phase is not None
            yield self.requests.next(response.request, decision.phase)
        elif action == SCAN:
            yield from self.pages.page(response, url, depth)
        elif action == RESULT and decision.outcome == BROKEN:
            result = audit.result(response, BROKEN, error=status_text(status))
            yield from self.replay.maybe_ghost(result, history)
        elif action == RESULT and decision.outcome == OK:
            yield audit.result(response, OK)
        elif action == RESULT:
            error = unchecked_reason(status, response.headers)
            yield audit.result(response, "unchecked", error=error)
        elif action == READ_ANCHORS:
            yield self.pages.anchors(response)
        elif action == REDIRECTED:
            yield from self.pages.redirect(response, url, depth)
        elif action == READ_SITEMAP:
            yield from self.sitemaps.read(response, url, depth)
        elif action == PROBED:
            yield from self.probes.probe_result(response, verdict)
        else:  # REPLAY
            assert history is not None
            yield from self.replay.replay(history, response, url, depth)

    def on_error(self, failure: Failure) -> Iterator[Any]:
        return self.failures.on_error(failure)
