"""The requests of checks: a URL, the phase it is asked in (``head``,
``get``, ``fallback``...), and what the answer's reader needs in ``meta``.

A page's render (phase ``render``, ``--render``) is a request of the same
URL that carries the page's own answer as plain data (``meta[RENDER]``:
``rules/rendered.py``, ``PageAnswer``): the download handler gives it to
the browser (``linkaudit/rendering/``) as its document, so the page is not
requested twice; it waits its turn in a download slot of its own
(``slot_of_render``), not its host's, where the page's scripts' requests
wait theirs (``rendering/paced.py``).  Its answer is the page's
own again, with what the browser made of it (``meta[RENDERED]``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from scrapy.http import Request

from linkaudit.components.answers import Reply
from linkaudit.items import Method
from linkaudit.meta import CHECK_URL, DEPTH, FIRST, HISTORY, PHASE, REFERRER, RENDER, TRUNCATED
from linkaudit.rules.decisions import Phase, first_phase, host_of
from linkaudit.rules.judge import LinkRules
from linkaudit.rules.recheck import History
from linkaudit.rules.referrer import referrer_header
from linkaudit.rules.rendered import PageAnswer
from linkaudit.rules.soft404 import is_probe
from linkaudit.state.base import AuditState, Pending

# a render request's download slot, by its host (rendering/paced.py)
RENDER_SLOT = "{} (renders)"


def slot_of_render(host: str) -> str:
    return RENDER_SLOT.format(host)


def check_request(
    url: str,
    depth: int,
    referer: str | None,
    phase: str,
    history: History | None,
    callback: Callable[..., Any],
    errback: Callable[..., Any],
) -> Request:
    """A fresh Request each time (never ``request.replace()``): copying the
    HEAD's meta into the GET would carry Scrapy's internal keys along."""
    # verbatim_url: the canonical URL is what a browser requests; Scrapy's
    # safe_url_string would escape it again ("%2z" into "%252z", "|")
    meta: dict[str, Any] = {
        CHECK_URL: url,
        DEPTH: depth,
        PHASE: phase,
        "handle_httpstatus_all": True,
        "verbatim_url": True,
    }
    if history is not None:
        meta[HISTORY] = history
    if referer:
        meta[REFERRER] = referer
    # what a browser would tell: the full URL to the same origin, only
    # the origin to another, nothing from https to http
    sent = referrer_header(referer, url)
    return Request(
        url,
        method=Method.HEAD if phase == Phase.HEAD else Method.GET,
        headers={"Referer": sent} if sent else None,
        meta=meta,
        callback=callback,
        errback=errback,
        dont_filter=True,  # the state dedupes; no fingerprinting needed
    )


class CheckRequests:
    """The requests of checks, all answered by the spider's two callbacks:
    a URL's first request (from the frontier) and those that continue its
    check (a GET after a HEAD), noted in the state."""

    def __init__(
        self,
        state: AuditState,
        rules: LinkRules,
        head_first: bool,
        callback: Callable[..., Any],
        errback: Callable[..., Any],
    ):
        self.state = state
        self.rules = rules
        self.head_first = head_first
        self.callback = callback
        self.errback = errback

    def first(self, pending: Pending) -> Request:
        """HEAD first; with LINKAUDIT_HEAD_FIRST = False, a near URL is
        asked with GET at once (its body stops at the headers unless it is an
        HTML page, see components/gate.py): one request per page instead of
        two; so is any URL of a host whose GET answers contradicted its HEAD
        answers (the state's ``get_only``)."""
        url = pending.url
        near = self.rules.is_near(url)
        get_only = self.state.get_only(host_of(url))
        phase = first_phase(pending.phase, near, self.head_first, is_probe(url), get_only)
        request = self.request(url, pending.depth, pending.referer, phase)
        request.meta[FIRST] = True  # the recheck middleware looks up its history
        return request

    def request(
        self,
        url: str,
        depth: int,
        referer: str | None,
        phase: str = Phase.HEAD,
        history: History | None = None,
    ) -> Request:
        return check_request(url, depth, referer, phase, history, self.callback, self.errback)

    def ask(self, reply: Reply, phase: str) -> Request:
        """The request that continues the check ``reply`` answered, in
        ``phase`` (``components/path.py``: the decision table's)."""
        if phase == Phase.RENDER:
            return self.render(reply)
        return self.next(reply.source.request, phase)

    def render(self, reply: Reply) -> Request:
        """The render of the page ``reply`` answered.  Not noted in the
        state: a resumed audit asks the page again, then its render."""
        page = PageAnswer(
            reply.url,
            reply.status,
            {name: list(values) for name, values in reply.headers.items()},
            reply.body,
            # what the crawl decoded the page with (a TextResponse's: renders are of text)
            getattr(reply.source, "encoding", None),
        )
        meta: dict[str, Any] = {
            CHECK_URL: reply.url,
            DEPTH: reply.depth,
            PHASE: Phase.RENDER,
            RENDER: page,
            "handle_httpstatus_all": True,
            "verbatim_url": True,
            # the page's own answer stands for its robots.txt check: asked already
            "dont_obey_robotstxt": True,
            # not its host's slot: the browser's requests wait there (paced.py)
            "download_slot": slot_of_render(urlsplit(reply.url).hostname or ""),
        }
        if reply.referrer:
            meta[REFERRER] = reply.referrer
        if reply.truncated:
            meta[TRUNCATED] = True
        return Request(
            reply.url,
            meta=meta,
            callback=self.callback,
            errback=self.errback,
            dont_filter=True,
            priority=1,  # a page waiting for its render holds its answer in memory
        )

    def next(self, request: Request, phase: str) -> Request:
        """The GET that continues a check (after a HEAD), noted in the state
        so that a resumed audit sends that GET and not the HEAD again."""
        meta = request.meta
        url = meta[CHECK_URL]
        self.state.owe(url, phase)
        return self.request(url, meta[DEPTH], meta.get(REFERRER), phase, meta.get(HISTORY))
