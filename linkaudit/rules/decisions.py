"""What happens after an answer: the decision table of a check.

A URL's check is a few requests, each asked in a *phase*: ``head`` first
(``get`` at once for a near page in fast mode, and for any URL of a host
whose HEAD answers proved no hint), then maybe ``get`` (a near page to
scan), ``fallback`` (the GET of the same URL after a HEAD answered with
anything but 2xx: HEAD is a hint, a GET's answer is the verdict),
``anchors`` (a far HTML page downloaded for its ids, --check-fragments),
``sitemap`` (a sitemap downloaded to read), ``probe`` (a soft-404
probe's GET) or ``render`` (a near HTML page given to the browser,
``--render``: always, or ``auto`` when its HTML looks like an app shell;
its answer is the page's own, with what the browser made of it).  An
answer, its phase, whether the URL is near and what it was served as (and,
for a page to render, ``--render`` and whether it looks like an app shell)
decide the next step: one more request (in which phase), read the body
(scan a page, read a sitemap or a far page's anchors), or the result (ok,
a redirect, broken, unchecked).

:func:`decide` is that table, and nothing else: no request, no state.  Two
questions need the audit's state (is the URL a sitemap to read; are its
anchors wanted): ``marked(mark)`` asks them, and only in the rows that need
the answer (a shared audit asks Redis).
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from typing import NamedTuple
from urllib.parse import urlsplit

from linkaudit.items import Outcome
from linkaudit.rules.rendered import NEVER, should_render
from linkaudit.rules.statuses import BROKEN, FALLBACK, OK, REDIRECT, StatusVerdict


class Phase(StrEnum):
    """The phase a check's request is asked in (the state and
    ``request.meta`` keep the words)."""

    HEAD = "head"
    GET = "get"
    FALLBACK = "fallback"  # the GET after a HEAD whose answer a GET must confirm
    ANCHORS = "anchors"  # a far HTML page's GET for its anchors (also the state's mark)
    PROBE = "probe"  # a soft-404 probe's GET
    SITEMAP = "sitemap"  # a sitemap's GET (also the state's mark for sitemaps)
    RENDER = "render"  # a near HTML page's render by the browser (--render); never owed


class Act(StrEnum):
    """What follows an answer (``Decision.action``)."""

    REQUEST = "request"  # one more request, in ``Decision.phase``
    SCAN = "scan"  # a near page (or stylesheet): scan it, its links are the audit's
    READ_SITEMAP = "read_sitemap"  # a sitemap downloaded: its <loc> are its links
    READ_ANCHORS = "read_anchors"  # a far HTML page downloaded for its anchors: ok, with them
    RESULT = "result"  # the result, ``Decision.outcome`` (ok, broken, unchecked)
    REPLAY = "replay"  # the audit database answered (fresh, or a 304): its stored result
    PROBED = "probed"  # a soft-404 probe's answer: its status and fingerprint
    REDIRECTED = "redirected"  # a redirect: its target is a link of the URL


HEAD, GET, ANCHORS, PROBE, SITEMAP = (
    Phase.HEAD,
    Phase.GET,
    Phase.ANCHORS,
    Phase.PROBE,
    Phase.SITEMAP,
)
REPLAY, PROBED, REDIRECTED = Act.REPLAY, Act.PROBED, Act.REDIRECTED
REQUEST, SCAN, RESULT = Act.REQUEST, Act.SCAN, Act.RESULT
READ_SITEMAP, READ_ANCHORS = Act.READ_SITEMAP, Act.READ_ANCHORS

# what a sitemap is served as (only URLs of these types are asked whether
# they are sitemaps: a shared audit asks Redis)
SITEMAP_TYPES = frozenset(
    {
        "application/xml",
        "text/xml",
        "application/gzip",
        "application/x-gzip",
        "application/octet-stream",
        "text/plain",
        None,
    }
)


def first_phase(
    owed: str | None, near: bool, head_first: bool, probe: bool, get_only: bool = False
) -> str:
    """The phase of a check's first request: the one the state says it
    owes (a resumed check), else HEAD first, except that a near URL is
    asked with GET at once with LINKAUDIT_HEAD_FIRST = False, and any URL
    of a host whose GET answers contradicted its HEAD answers
    (``get_only``, see :func:`contradicts`): one GET, its body stopped at
    the headers unless it is a page to scan.  A soft-404 probe is a GET
    (its body is what is compared)."""
    if probe:
        return PROBE
    if owed:
        return owed
    return GET if get_only or (near and not head_first) else HEAD


def contradicts(head_status: int, get_status: int) -> bool:
    """A HEAD's answer and the GET's of the same URL disagree, success
    against failure: the HEAD failed (not 2xx or 3xx) or redirected while
    the GET answered 2xx, or the HEAD failed while the GET redirected.  Such
    a host's HEAD answers are no hint: its later URLs are asked with GET."""

    def success(status: int) -> bool:
        return 200 <= status < 300

    def moved(status: int) -> bool:
        return 300 <= status < 400

    if success(get_status):
        return not success(head_status)
    return moved(get_status) and not (success(head_status) or moved(head_status))


def host_of(url: str) -> str:
    """The host a URL is asked of, with its port when it has one
    (``example.org``, ``127.0.0.1:8080``): what a host's remembered
    behaviour is kept under."""
    return urlsplit(url).netloc.rpartition("@")[2].lower()


class Answer(NamedTuple):
    """What is known of an answer when the table is read."""

    phase: Phase
    verdict: (
        StatusVerdict  # the status's, rules/statuses.py:judge_status (ok, redirect, fallback...)
    )
    near: bool
    kind: str | None  # its media type (Content-Type without parameters)
    scan: bool  # the kind is one a near URL is scanned as (HTML, CSS)
    html: bool  # the kind is HTML's
    fragments: bool = False  # --check-fragments
    replayed: bool = False  # answered from the audit database (fresh, or a 304)
    render: str = NEVER  # --render: never, auto, always (the walk of a build: never)
    # why the page's HTML looks like an app shell (rules/appshell.py), None:
    # it does not; asked only of a near HTML page's text with --render auto
    app_shell: str | None = None


class Decision(NamedTuple):
    action: Act
    phase: Phase | None = None  # REQUEST: the next request's phase
    outcome: Outcome | None = None  # RESULT: ok, broken or unchecked


def decide(answer: Answer, marked: Callable[[str], bool]) -> Decision:
    """The next step of a check after ``answer``; ``marked(mark)``: does
    the state mark the URL (SITEMAP, ANCHORS)."""
    phase, verdict = answer.phase, answer.verdict
    if answer.replayed:
        return Decision(REPLAY)
    if phase == PROBE:
        return Decision(PROBED)
    if verdict == REDIRECT:
        return Decision(REDIRECTED)
    if verdict == FALLBACK:
        return Decision(REQUEST, Phase.FALLBACK)
    if verdict == BROKEN:
        return Decision(RESULT, outcome=Outcome.BROKEN)
    if verdict != OK:
        return Decision(RESULT, outcome=Outcome.UNCHECKED)
    scanned = answer.near and answer.scan
    if phase in (HEAD, GET) and answer.kind in SITEMAP_TYPES and marked(SITEMAP):
        return Decision(REQUEST, SITEMAP)
    if phase == SITEMAP:
        return Decision(READ_SITEMAP)
    if scanned:
        if phase == HEAD:
            return Decision(REQUEST, GET)
        if phase in (GET, Phase.FALLBACK) and answer.html:
            if should_render(answer.render, answer.app_shell):
                return Decision(REQUEST, Phase.RENDER)
        return Decision(SCAN)  # a page (or stylesheet), or its render's answer
    if phase in (HEAD, GET) and answer.fragments and answer.html and not answer.near:
        if marked(ANCHORS):
            return Decision(REQUEST, ANCHORS)
    if phase == ANCHORS and answer.html:
        return Decision(READ_ANCHORS)
    return Decision(RESULT, outcome=Outcome.OK)
