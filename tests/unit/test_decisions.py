"""The decision table of a check (linkaudit/rules/decisions.py), read
without a crawl: each row, and the state asked only where a row needs it."""

from __future__ import annotations

import pytest

from linkaudit.rules.decisions import (
    ANCHORS,
    GET,
    HEAD,
    PROBE,
    PROBED,
    READ_ANCHORS,
    READ_SITEMAP,
    REDIRECTED,
    REPLAY,
    REQUEST,
    RESULT,
    SCAN,
    SITEMAP,
    Answer,
    Decision,
    Phase,
    contradicts,
    decide,
    first_phase,
    host_of,
)

HTML, PNG, XML, CSS = "text/html", "image/png", "application/xml", "text/css"
RENDER = Phase.RENDER
SHELL = "an empty mount element"  # why a page looks like an app shell (rules/appshell.py)


def answer(phase=HEAD, verdict="ok", near=True, kind=HTML, **fields):
    html = kind == HTML
    scan = fields.pop("scan", html)
    return Answer(phase, verdict, near=near, kind=kind, scan=scan, html=html, **fields)


def never(mark: str) -> bool:
    raise AssertionError(f"the state was asked about {mark!r}")


def marks(*marked: str):
    return lambda mark: mark in marked


ROWS = [
    # (answer, marks of the URL, what follows)
    (answer(replayed=True), (), Decision(REPLAY)),
    (answer(PROBE, "broken", kind=HTML), (), Decision(PROBED)),
    (answer(verdict="redirect"), (), Decision(REDIRECTED)),
    (answer(verdict="fallback"), (), Decision(REQUEST, "fallback")),
    (answer(verdict="broken"), (), Decision(RESULT, outcome="broken")),
    (answer(verdict="unchecked"), (), Decision(RESULT, outcome="unchecked")),
    # a near page: HEAD, then GET, then scanned
    (answer(HEAD), (), Decision(REQUEST, GET)),
    (answer(GET), (), Decision(SCAN)),
    (answer("fallback"), (), Decision(SCAN)),
    # a near image, a far page: ok on the HEAD
    (answer(HEAD, kind=PNG), (), Decision(RESULT, outcome="ok")),
    (answer(HEAD, near=False, scan=True), (), Decision(RESULT, outcome="ok")),
    # a sitemap: asked again to be read, then read
    (answer(HEAD, kind=XML), (SITEMAP,), Decision(REQUEST, SITEMAP)),
    (answer(GET, kind=None), (SITEMAP,), Decision(REQUEST, SITEMAP)),
    (answer(SITEMAP, kind=XML), (SITEMAP,), Decision(READ_SITEMAP)),
    (answer(HEAD, kind=XML), (), Decision(RESULT, outcome="ok")),
    # a far page whose fragments are linked, with --check-fragments
    (
        answer(HEAD, near=False, fragments=True),
        (ANCHORS,),
        Decision(REQUEST, ANCHORS),
    ),
    (answer(ANCHORS, near=False, fragments=True), (ANCHORS,), Decision(READ_ANCHORS)),
    (answer(HEAD, near=False, fragments=True), (), Decision(RESULT, outcome="ok")),
    (answer(HEAD, near=False, fragments=False), (ANCHORS,), Decision(RESULT, outcome="ok")),
    (answer(ANCHORS, near=False, kind=PNG), (ANCHORS,), Decision(RESULT, outcome="ok")),
    # a far page asked with GET at once (a host checked with GET only)
    (answer(GET, near=False, fragments=True), (ANCHORS,), Decision(REQUEST, ANCHORS)),
    (answer(GET, near=False, fragments=True), (), Decision(RESULT, outcome="ok")),
    # --render: a near HTML page's GET asks for its render, whose answer is scanned
    (answer(GET, render="always"), (), Decision(REQUEST, RENDER)),
    (answer("fallback", render="always"), (), Decision(REQUEST, RENDER)),
    (answer(GET, render="auto", app_shell=SHELL), (), Decision(REQUEST, RENDER)),
    (answer("fallback", render="auto", app_shell=SHELL), (), Decision(REQUEST, RENDER)),
    (answer(GET, render="auto"), (), Decision(SCAN)),  # no app shell: read as it is
    (answer(GET, render="never", app_shell=SHELL), (), Decision(SCAN)),  # (the walk's)
    (answer(HEAD, render="always"), (), Decision(REQUEST, GET)),  # its body first
    (answer(RENDER, render="always"), (), Decision(SCAN)),  # never rendered twice
    (answer(RENDER, render="auto", app_shell=SHELL), (), Decision(SCAN)),
    (answer(RENDER), (), Decision(SCAN)),  # a render's answer: the page, read
    # not pages to render: a stylesheet, a far page, a page that failed or moved
    (answer(GET, kind=CSS, scan=True, render="always"), (), Decision(SCAN)),
    (answer(GET, near=False, render="always"), (), Decision(RESULT, outcome="ok")),
    (answer(GET, "broken", render="always"), (), Decision(RESULT, outcome="broken")),
    (answer(GET, "redirect", render="always"), (), Decision(REDIRECTED)),
    (answer(GET, render="always", replayed=True), (), Decision(REPLAY)),
]


@pytest.mark.parametrize(("given", "marked", "expected"), ROWS)
def test_each_row_of_the_table(given: Answer, marked: tuple[str, ...], expected: Decision):
    assert decide(given, marks(*marked)) == expected


@pytest.mark.parametrize(
    "given",
    [
        answer(replayed=True),
        answer(PROBE),
        answer(verdict="redirect", kind=XML),
        answer(verdict="broken", kind=XML),
        answer(verdict="fallback", kind=XML),
        answer(SITEMAP, kind=XML),
        answer(HEAD, kind=PNG),  # not a type a sitemap is served as
        answer(HEAD, near=False, fragments=False),
        answer(GET, near=True),
        answer(GET, render="always"),
        answer(RENDER, render="always"),
    ],
)
def test_the_state_is_asked_only_where_a_row_needs_it(given: Answer):
    """A shared audit's marks are in Redis: a round trip per question."""
    decide(given, never)


@pytest.mark.parametrize(
    ("owed", "near", "head_first", "probe", "get_only", "phase"),
    [
        (None, True, True, False, False, HEAD),
        (None, False, True, False, False, HEAD),
        (None, True, False, False, False, GET),  # fast mode: a near URL
        (None, False, False, False, False, HEAD),
        (None, False, True, False, True, GET),  # a host whose HEAD is no hint
        (None, True, True, False, True, GET),
        ("fallback", True, True, False, True, "fallback"),  # a check resumed
        (None, True, True, True, True, PROBE),
    ],
)
def test_first_phase(owed, near, head_first, probe, get_only, phase):
    assert first_phase(owed, near, head_first, probe, get_only) == phase


@pytest.mark.parametrize(
    ("head", "get", "contradiction"),
    [
        (404, 200, True),
        (410, 200, True),
        (403, 200, True),
        (405, 204, True),
        (302, 200, True),  # a HEAD sent to an error page, a GET that answers
        (404, 301, True),
        (404, 404, False),
        (500, 503, False),
        (301, 301, False),
        (301, 404, False),  # both failed, one way or another
        (200, 200, False),
    ],
)
def test_a_get_contradicts_its_head(head, get, contradiction):
    assert contradicts(head, get) is contradiction


def test_a_host_is_its_name_and_port():
    assert host_of("https://Example.org/a") == "example.org"
    assert host_of("http://u:p@127.0.0.1:8080/x") == "127.0.0.1:8080"
