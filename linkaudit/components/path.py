"""An answer's way through the components, on both routes of an audit.

An answer (:class:`~linkaudit.components.answers.Reply`) is judged by its
status (``rules/statuses.py``), then the decision table
(``rules/decisions.py``) says what follows: one more request of the check,
a reader (a page or a redirect: ``pages.py``, a sitemap: ``sitemaps.py``, a
soft-404 probe: ``probes.py``), what the audit database knew
(``replay.py``), or the URL's result.

The crawl (``checks.py``) hands it Scrapy's responses made replies, and
turns "one more request" into the check's next Scrapy request; the walk of
a build (``localbuild/files.py``) hands it replies made from the build's
files, and answers "one more request" from the files again.  Neither
route judges an answer in its own words.

Scrapy-free at import: the walk of a build never imports Scrapy.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from typing import Any

from linkaudit.audit import Audit
from linkaudit.components.answers import STORED, Reply
from linkaudit.components.pages import Pages
from linkaudit.components.probes import Probes
from linkaudit.components.replay import Replay
from linkaudit.components.sitemaps import Sitemaps
from linkaudit.items import Outcome
from linkaudit.rules.decisions import (
    PROBED,
    READ_ANCHORS,
    READ_SITEMAP,
    REDIRECTED,
    REQUEST,
    RESULT,
    SCAN,
    Answer,
    Phase,
    contradicts,
    decide,
    host_of,
)
from linkaudit.rules.rendered import AUTO, NEVER
from linkaudit.rules.statuses import (
    OK,
    judge_status,
    status_text,
    unchecked_reason,
)

logger = logging.getLogger(__name__)


class CheckPath:
    """The readers of one audit, and an answer's way through them.
    ``ask(reply, phase)``: what the route makes of "one more request of
    this check, in ``phase``" (the crawl: its Scrapy request); ``render``:
    ``--render`` (the walk of a build never renders: a build to render is
    crawled)."""

    def __init__(
        self,
        audit: Audit,
        pages: Pages,
        probes: Probes,
        sitemaps: Sitemaps,
        replay: Replay,
        ask: Callable[[Reply, str], Any],
        render: str = NEVER,
    ):
        self.audit = audit
        self.pages = pages
        self.probes = probes
        self.sitemaps = sitemaps
        self.replay = replay
        self.ask = ask
        self.render = render
        self.accept = audit.config["LINKAUDIT_ACCEPT_STATUS"]
        self.fragments = audit.config["LINKAUDIT_CHECK_FRAGMENTS"]
        # URL -> the status of the HEAD its GET (``fallback``) confirms: the
        # two compared when the GET answers (an entry a GET that got no
        # answer leaves is one int per such URL)
        self.heads: dict[str, int] = {}

    def judge(self, reply: Reply) -> tuple[Answer, str]:
        """What is known of ``reply`` when the table is read, and its
        status's verdict."""
        audit = self.audit
        verdict = judge_status(
            reply.status,
            reply.headers,
            head=reply.phase == Phase.HEAD,
            accept=self.accept,
            body=reply.body,
        )
        kind = reply.kind
        replayed = reply.history is not None and (reply.via == STORED or reply.status == 304)
        near, html, phase = audit.is_near(reply.url), kind in audit.html_types, Phase(reply.phase)
        render, shell = NEVER, None
        # the render's inputs, read only where the table asks them (a page to scan)
        if self.render != NEVER and near and html and phase in (Phase.GET, Phase.FALLBACK):
            if verdict == OK and not replayed and reply.text is not None:  # (no text: none)
                render = self.render
                shell = reply.app_shell if render == AUTO else None
        answer = Answer(
            phase,
            verdict,
            near=near,
            kind=kind,
            scan=kind in audit.scan_types,
            html=html,
            fragments=self.fragments,
            replayed=replayed,
            render=render,
            app_shell=shell,
        )
        return answer, verdict

    def compare(self, reply: Reply) -> None:
        """The GET that confirms a HEAD answered: a host whose GET answers
        contradict its HEAD answers is noted in the state, once (its later
        URLs are asked with one GET, ``rules/decisions.py: first_phase``)."""
        head = self.heads.pop(reply.url, None)
        if head is None or not contradicts(head, reply.status):
            return
        state, host = self.audit.state, host_of(reply.url)
        if state.get_only(host):
            return
        logger.info(
            "%s: HEAD %s answered %s, its GET %s: the host's URLs are checked with GET only",
            host,
            reply.url,
            head,
            reply.status,
        )
        state.note_get_only(
            host,
            {
                "url": reply.url,
                "head": head,
                "get": reply.status,
                "reason": f"HEAD answered {status_text(head)}, GET {status_text(reply.status)}",
            },
        )

    def on_reply(self, reply: Reply) -> Iterator[Any]:
        """The answer of one request of a check, handed on as the decision
        table says."""
        audit, url, status = self.audit, reply.url, reply.status
        answer, verdict = self.judge(reply)
        decision = decide(answer, lambda mark: audit.state.marked(mark, url))
        action = decision.action
        if reply.phase == Phase.FALLBACK:
            self.compare(reply)
        if action == REQUEST:
            if decision.phase == Phase.FALLBACK:
                logger.debug("HEAD %s answered %s: asking again with GET", url, status)
                self.heads[url] = status
            assert decision.phase is not None
            yield self.ask(reply, decision.phase)
        elif action == SCAN:
            yield from self.pages.page(reply)
        elif action == RESULT and decision.outcome == Outcome.BROKEN:
            result = audit.result(reply, Outcome.BROKEN, error=status_text(status))
            yield from self.replay.maybe_ghost(result, reply.history)
        elif action == RESULT and decision.outcome == Outcome.OK:
            yield audit.result(reply, Outcome.OK)
        elif action == RESULT:
            why = unchecked_reason(status, reply.headers, reply.body)
            yield audit.result(reply, Outcome.UNCHECKED, error=why.error, wall=why.wall)
        elif action == READ_ANCHORS:
            yield self.pages.anchors(reply)
        elif action == REDIRECTED:
            yield from self.pages.redirect(reply)
        elif action == READ_SITEMAP:
            yield from self.sitemaps.read(reply)
        elif action == PROBED:
            yield from self.probes.probe_result(reply, verdict)
        else:  # REPLAY
            assert reply.history is not None
            yield from self.replay.replay(reply.history, reply)
