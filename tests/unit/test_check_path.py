"""The check path without a crawl: the components that judge and read an
answer (``components/path.py``, ``pages.py``, ``probes.py``) fed the
answer value (``components/answers.py``) directly, as both routes feed it.
Each case runs in milliseconds; the end-to-end crawls test what only a
crawl can (requests, the network, the engine)."""

from __future__ import annotations

from typing import Any

import pytest

from linkaudit.audit import Audit, link_rules
from linkaudit.components.answers import STORED, Reply
from linkaudit.components.discovery import Discovery
from linkaudit.components.pages import Pages
from linkaudit.components.path import CheckPath
from linkaudit.components.probes import Probes
from linkaudit.components.replay import Replay
from linkaudit.components.sitemaps import Sitemaps
from linkaudit.config import Config
from linkaudit.config.plain import PlainSettings
from linkaudit.items import UrlResult
from linkaudit.meta import ANCHORS
from linkaudit.rules.decisions import first_phase
from linkaudit.rules.recheck import History
from linkaudit.rules.rendered import RenderFacts
from linkaudit.state.memory import MemoryState

SITE = "http://site.test/"
HTML = {b"Content-Type": b"text/html; charset=utf-8"}


class Asked:
    """What the path yields for one more request of the check."""

    def __init__(self, reply: Reply, phase: str):
        self.reply, self.phase = reply, phase


def path(**arguments: Any) -> tuple[CheckPath, Audit]:
    config = Config.build(PlainSettings(), {"start": SITE, **arguments})
    state = MemoryState()
    audit = Audit(config, link_rules(config), state, None, None)
    counts: dict[str, int] = {}
    audit.counter = lambda name, n=1: counts.__setitem__(name, counts.get(name, 0) + n)
    audit.open()
    discovery = Discovery(config, audit.rules, state, audit.count, audit.link_faults)
    probes = Probes(audit)
    return (
        CheckPath(
            audit,
            Pages(audit, discovery, probes),
            probes,
            Sitemaps(audit, discovery),
            Replay(audit, discovery),
            Asked,
        ),
        audit,
    )


def reply(url: str, phase: str, status: int = 200, **fields: Any) -> Reply:
    text = fields.pop("text", None)
    headers = fields.pop("headers", HTML)
    body = text.encode() if text is not None else b""
    return Reply(
        url,
        fields.pop("depth", 1),
        phase,
        "HEAD" if phase == "head" else "GET",
        status,
        headers,
        body=body,
        decode=lambda: text,
        **fields,
    )


def results(out: list[Any]) -> list[UrlResult]:
    return [r for r in out if isinstance(r, UrlResult)]


def test_a_near_page_is_asked_with_get_at_once_and_a_far_url_with_head():
    assert first_phase(None, near=True, head_first=False, probe=False) == "get"
    assert first_phase(None, near=False, head_first=False, probe=False) == "head"
    assert first_phase(None, near=True, head_first=True, probe=False) == "head"
    assert first_phase("get", near=False, head_first=True, probe=False) == "get"
    assert first_phase(None, near=True, head_first=False, probe=True) == "probe"


def test_a_near_page_is_scanned_its_links_with_their_lines():
    check, audit = path()
    page = '<p>\n<a href="a.html">a</a>\n<a href="https://far.test/x">x</a>\n'
    out = list(check.on_reply(reply(SITE, "get", text=page)))
    (result,) = [r for r in results(out) if r.url == SITE]
    assert result.outcome == "ok" and result.method == "GET"
    assert result.links == [(SITE + "a.html", 2), ("https://far.test/x", 3)]
    assert result.page is not None and result.page["links"] == 2
    assert audit.state.waiting() == 2  # both queued for their own checks


SHELL = '<div id="root"></div><script src="app.js"></script>'


def test_a_page_is_rendered_as_the_table_says_and_its_render_read_as_its_answer():
    """--render auto: an app shell's GET asks for its render (a page that is
    none is read at once); the render's answer, the page's own with its
    DOM, is read with the DOM's links; a failed render, from its HTML."""
    check, _audit = path()
    check.render = "auto"
    (asked,) = check.on_reply(reply(SITE, "get", text=SHELL))
    assert isinstance(asked, Asked) and asked.phase == "render"
    (result,) = results(list(check.on_reply(reply(SITE + "p", "get", text="<p>words</p>"))))
    assert result.outcome == "ok" and result.render is None
    dom = '<div id="root"><a href="b.html">b</a></div><script src="app.js"></script>'
    facts = RenderFacts(dom=dom, dom_size=len(dom), settled=True)
    out = list(check.on_reply(reply(SITE, "render", text=SHELL, rendered=facts)))
    (result,) = [r for r in results(out) if r.url == SITE]
    assert (result.outcome, result.status, result.method) == ("ok", 200, "GET")
    assert (SITE + "b.html", 0) in result.links  # a link only the DOM has: no line
    assert result.render["added"] == [SITE + "b.html"] and result.app_shell is None
    failed = RenderFacts(error="it did not finish within 5 s")
    (result,) = results(list(check.on_reply(reply(SITE, "render", text=SHELL, rendered=failed))))
    assert result.outcome == "ok" and result.render["error"] == "it did not finish within 5 s"
    assert result.warning == (
        "not rendered (it did not finish within 5 s): its links were read from its HTML"
    )


def test_the_walk_of_a_build_never_renders_and_names_an_app_shell():
    check, _audit = path()  # the walk's path: --render never
    (result,) = results(list(check.on_reply(reply(SITE, "get", text=SHELL))))
    assert result.outcome == "ok" and result.render is None
    assert result.app_shell is not None


def test_a_far_head_that_fails_is_asked_again_with_get_and_only_that_is_the_verdict():
    check, _audit = path()
    url = "https://far.test/gone"
    (asked,) = check.on_reply(reply(url, "head", 405))
    assert isinstance(asked, Asked) and asked.phase == "fallback"
    (result,) = results(list(check.on_reply(reply(url, "fallback", 500))))
    assert (result.outcome, result.status, result.method) == ("broken", 500, "GET")
    assert result.error == "500 Internal Server Error"


def test_a_redirect_is_recorded_as_a_link_of_its_url():
    check, audit = path()
    url = SITE + "old"
    out = list(check.on_reply(reply(url, "get", 301, location=SITE + "new", referrer=SITE)))
    (result,) = [r for r in results(out) if r.url == url]
    assert result.outcome == "redirect" and result.location == SITE + "new"
    assert result.links == [(SITE + "new", None)]
    assert audit.state.waiting() == 1  # the target is checked too


def test_a_redirect_without_a_location_is_broken_in_words():
    check, _audit = path()
    (result,) = results(list(check.on_reply(reply(SITE + "r", "get", 302))))
    assert result.outcome == "broken" and result.error == "302 Found without a Location"


def test_a_far_page_is_read_for_its_anchors_only_when_a_link_wants_one():
    check, audit = path(check_fragments="true")
    url = "https://far.test/page"
    (result,) = results(list(check.on_reply(reply(url, "head"))))
    assert result.outcome == "ok" and result.anchors is None  # nobody wants its anchors
    audit.state.mark(ANCHORS, [url])
    (asked,) = check.on_reply(reply(url, "head"))
    assert asked.phase == "anchors"
    answer = reply(url, "anchors", text='<h2 id="usage">Usage</h2><a name="old"></a>')
    (result,) = results(list(check.on_reply(answer)))
    assert result.anchors == ["old", "usage"] and result.method == "GET"


def test_a_page_whose_title_says_not_found_is_a_soft_404():
    check, _audit = path()
    page = "<title>Page not found</title><h1>Sorry</h1>"
    out = list(check.on_reply(reply(SITE + "missing", "get", text=page)))
    (result,) = results(out)
    assert result.outcome == "ok" and result.soft_404 is True
    assert "not found" in result.warning.lower()


@pytest.mark.parametrize(
    ("status", "headers", "outcome"),
    [
        (403, {b"Content-Type": b"text/html", b"cf-mitigated": b"challenge"}, "unchecked"),
        (429, HTML, "unchecked"),
        (500, HTML, "broken"),
        (410, HTML, "broken"),
    ],
)
def test_a_get_answer_s_verdict(status, headers, outcome):
    check, _audit = path()
    (result,) = results(list(check.on_reply(reply(SITE + "x.pdf", "get", status, headers=headers))))
    assert result.outcome == outcome


def test_an_answer_the_database_held_is_replayed_with_its_stored_links():
    check, _audit = path()
    stored = UrlResult(url=SITE, near=True, outcome="ok", depth=0, status=200, links=[])
    stored.links = [(SITE + "kept.html", 4)]
    history = History(stored, 1.0, 1.0, None, 0, None, None, stored.links)
    out = list(check.on_reply(reply(SITE, "get", history=history, via=STORED, depth=0)))
    (result,) = [r for r in results(out) if r.url == SITE]
    assert result.from_cache is True and result.links == [(SITE + "kept.html", 4)]
