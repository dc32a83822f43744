"""The HTML report over time (issue 26): with ``--db`` the report carries
``history``, ``broken_since``/``audits_broken`` and ``broken_links_since``;
the page draws the trend as an inline SVG whose points are the history's
figures (with JavaScript or without), lists what is broken the longest, says
"broken for 12 days, 5 audits" beside each broken link; and "Grouped
findings" lists only groups that say more than the broken-links list.

The reports are built here, in the agreed shapes (the audit that writes
them is another part of issue 26): opened in headless Chromium as a person
opens the file."""

from __future__ import annotations

import json

import html5lib
import pytest
from selenium.webdriver.common.by import By

from linkaudit.output.formats.html import as_html
from tests.conftest import validate
from tests.helpers import html_report
from tests.helpers.command import run
from tests.helpers.html_report import EVIL, css, load

browser = html_report.browser  # the module's one Chromium (a fixture)

SITE = "https://site.test"
NOW = "2026-11-24T10:00:00+00:00"
# five daily-ish audits, the current one last: (start, broken, new, fixed)
AUDITS = [
    ("2026-11-12T10:00:00+00:00", 3, 3, 0),
    ("2026-11-15T10:00:00+00:00", 5, 3, 1),
    ("2026-11-18T22:30:00+00:00", 5, 1, 1),
    ("2026-11-21T10:00:00+00:00", 2, 0, 3),
    (NOW, 6, 4, 0),
]


def _entry(path: str, outcome: str, referrers: list[tuple[str, int]], **more) -> dict:
    url = f"{SITE}{path}"
    broken = outcome == "broken"
    return {
        "url": url,
        "near": True,
        "outcome": outcome,
        "status": 404 if broken else 200,
        "error": "404 Not Found" if broken else None,
        "method": "GET",
        "content_type": "text/html",
        "location": None,
        "depth": 1,
        "referrer_count": len(referrers),
        "referrers": [{"url": f"{SITE}{p}", "line": line} for p, line in referrers],
    } | more


def _group(entry: dict, kind: str, **more) -> dict:
    return {
        "target": entry["url"],
        "kind": kind,
        "pages": len({r["url"] for r in entry["referrers"]}),
        "outcome": "broken",
        "status": 404,
        "error": "404 Not Found",
        "referrers": entry["referrers"],
    } | more


def watched_report() -> dict:
    """The fifth audit of a site: one link broken since the first audit (in
    two pages' content), one in the footer since the third, three new (one
    on a single page, two in one page each), pages since when they carry
    broken links."""
    gone = _entry("/gone", "broken", [("/", 4), ("/about", 7)])
    gone |= {"broken_since": AUDITS[0][0], "audits_broken": 5}
    terms = _entry("/terms", "broken", [("/", 20), ("/about", 20), ("/blog", 20)])
    terms |= {"broken_since": AUDITS[3][0], "audits_broken": 2}
    one = _entry("/one", "broken", [("/blog", 9)], broken_since=NOW, audits_broken=1)
    new = [
        _entry(f"/new{i}", "broken", [("/about", 10 + i)], broken_since=NOW, audits_broken=1)
        for i in (1, 2, 3)
    ]
    pages = [
        _entry("/", "ok", [], depth=0, broken_links_since=AUDITS[0][0], audits_with_broken_links=5),
        _entry("/about", "ok", [("/", 3)], broken_links_since=AUDITS[0][0])
        | {"audits_with_broken_links": 5},
        _entry("/blog", "ok", [("/", 5)], broken_links_since=AUDITS[2][0])
        | {"audits_with_broken_links": 3},
    ]
    urls = sorted([gone, terms, one, *new, *pages], key=lambda u: u["url"])
    history = [
        {"started_at": start, "finished_at": start.replace(":00+", ":40+"), "seconds": 100.0}
        | {"finish_reason": "finished", "complete": True, "new": n, "fixed": f}
        | {"summary": {"urls": 9, "pages": 3, "requests": 10, "ok": 9 - b, "redirect": 0}}
        for start, b, n, f in AUDITS
    ]
    for record, (_, b, _, _) in zip(history, AUDITS, strict=True):
        record["summary"] |= {"broken": b, "blocked": 0, "excluded": 0, "unchecked": 0}
    groups = [
        _group(gone, "page"),  # two pages' own content: says more
        _group(terms, "template", block="footer"),
        _group(one, "page"),  # one page: its card says it all
        *(_group(u, "page") for u in new),
    ]
    report = {
        "version": 1,
        "start_urls": [f"{SITE}/"],
        "near_prefixes": [f"{SITE}/"],
        "started_at": NOW,
        "finished_at": "2026-11-24T10:01:40+00:00",
        "finish_reason": "finished",
        "complete": True,
        "summary": {"urls": len(urls), "pages": 3, "requests": 10, "ok": 3, "redirect": 0}
        | {"broken": 6, "blocked": 0, "excluded": 0, "unchecked": 0},
        "history": history,
        "groups": groups,
        "urls": urls,
    }
    validate(report)
    return report


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    path = tmp_path_factory.mktemp("trend") / "report.html"
    path.write_text(as_html(watched_report()), encoding="utf-8")
    return path


POINTS = (
    "return [...document.querySelectorAll('#trend-chart g.point')].map(g => [g.dataset.startedAt,"
    " +g.dataset.broken, +g.dataset.new, +g.dataset.fixed, g.getAttribute('aria-label'),"
    " g.querySelector('title').textContent,"
    " [...g.querySelectorAll('circle')].map(c => [c.getAttribute('class'),"
    " c.getBoundingClientRect().top + c.getBoundingClientRect().height / 2])])"
)
WORDS = [
    "12 Nov 2026 10:00: 3 broken, 3 new, 0 fixed",
    "15 Nov 2026 10:00: 5 broken, 3 new, 1 fixed",
    "18 Nov 2026 22:30: 5 broken, 1 new, 1 fixed",
    "21 Nov 2026 10:00: 2 broken, 0 new, 3 fixed",
    "24 Nov 2026 10:00: 6 broken, 4 new, 0 fixed",
]


def _check_chart(driver) -> None:
    """The chart on screen, its points the history's figures, each drawn
    at its height: the marks' centres on one linear scale (0 at the axis)."""
    svg = css(driver, "#trend-chart")
    assert svg.is_displayed() and svg.size["width"] > 400 and svg.size["height"] > 100
    assert svg.get_attribute("role") == "img"
    desc = css(driver, "#trend-desc").get_attribute("textContent")
    assert "5 audits from 12 Nov 2026 10:00 to 24 Nov 2026 10:00" in desc
    points = driver.execute_script(POINTS)
    assert [p[:4] for p in points] == [[s, b, n, f] for s, b, n, f in AUDITS]
    assert [p[4] for p in points] == [p[5] for p in points] == WORDS
    heights = [
        (value, centre)
        for p in points
        for (kind, centre), value in zip(p[6], p[1:4], strict=True)
        if kind.startswith("s-")
    ]
    (v0, y0), (v1, y1) = min(heights), max(heights)
    per = (y0 - y1) / (v1 - v0)  # pixels per link, up the screen
    assert per > 10
    assert all(abs(y0 - (v - v0) * per - y) < 1.5 for v, y in heights), heights
    legend = [t.text for t in driver.find_elements(By.CSS_SELECTOR, "#trend-chart .key text")]
    assert legend == ["broken links", "new", "fixed"]


def test_the_chart_shows_the_history(page, browser):
    browser.get_log("browser")  # what earlier pages logged: not this page's
    load(browser, page)
    _check_chart(browser)
    assert browser.get_log("browser") == []  # no console error
    assert css(browser, '#trend [data-count="audits"]').text == "5"


def test_the_chart_without_javascript(page, browser):
    browser.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": True})
    try:
        browser.get(page.as_uri())
        assert browser.execute_script("return document.documentElement.dataset.table") is None
        _check_chart(browser)
    finally:
        browser.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": False})


def test_broken_the_longest_and_broken_for(page, browser):
    load(browser, page)
    rows = browser.find_elements(By.CSS_SELECTOR, "#longest li")
    assert [r.text for r in rows] == [
        f"{SITE}/gone broken for 12 days, 5 audits, linked 2 times",
        f"{SITE}/terms broken for 3 days, 2 audits, linked 3 times",
    ]  # the new ones are not "broken the longest"
    since = css(browser, "#longest li time")
    assert since.get_attribute("title") == "since 12 Nov 2026 10:00 UTC"
    cards = {
        a.get_attribute("data-url"): a.find_element(By.CSS_SELECTOR, ".since").text
        for a in browser.find_elements(By.CSS_SELECTOR, "#broken article.target")
    }
    assert cards == {
        f"{SITE}/gone": "· broken for 12 days, 5 audits",
        f"{SITE}/terms": "· broken for 3 days, 2 audits",
        f"{SITE}/one": "· new",
        **{f"{SITE}/new{i}": "· new" for i in (1, 2, 3)},
    }
    pages = [r.text for r in browser.find_elements(By.CSS_SELECTOR, "#longest-pages li")]
    assert pages == [
        f"{SITE}/ carries 2 broken links, for 12 days, 5 audits",
        f"{SITE}/about carries 5 broken links, for 12 days, 5 audits",
        f"{SITE}/blog carries 2 broken links, for 5 days, 3 audits",
    ]
    assert css(browser, "#trend-table").get_attribute("textContent").count("finished") == 5


def test_groups_say_more_than_the_list(page, browser):
    """A link on one page is its card, not a group of one: the footer link
    (template) and the link in two pages' content are the groups."""
    load(browser, page)
    groups = [
        tuple(g.get_attribute(f"data-{key}") for key in ("kind", "target", "pages"))
        for g in browser.find_elements(By.CSS_SELECTOR, "#groups li.group")
    ]
    assert groups == [("template", f"{SITE}/terms", "3"), ("page", f"{SITE}/gone", "2")]
    assert css(browser, '#groups-h [data-count="groups"]').text == "2"


def test_no_group_says_more():
    report = watched_report()
    report["groups"] = [g for g in report["groups"] if g["pages"] == 1]
    text = as_html(report)
    assert 'class="group"' not in text
    assert "None: no broken link is in the site template or on several pages." in text


def test_without_history_no_trend():
    """No ``--db``: no section; one audit kept: no chart, a word why."""
    report = watched_report()
    for u in report["urls"]:
        for key in ("broken_since", "audits_broken", "broken_links_since"):
            u.pop(key, None)
    plain = {k: v for k, v in report.items() if k != "history"}
    text = as_html(plain)
    assert 'id="trend"' not in text and 'class="since"' not in text
    first = as_html(report | {"history": report["history"][-1:]})
    assert 'id="trend"' in first and "<svg" not in first
    assert "the trend starts with the next" in first


def test_hostile_text_in_the_chart_and_lists(browser, tmp_path):
    """A URL and stamps that try to leave the SVG or the page stay text."""
    report = watched_report()
    evil = f"{SITE}/{EVIL}"
    gone = next(u for u in report["urls"] if u["url"].endswith("/gone"))
    gone["url"] = evil
    gone["broken_since"] = EVIL
    report["urls"].sort(key=lambda u: u["url"])
    report["urls"][0]["broken_links_since"] = EVIL
    report["history"][1]["started_at"] = EVIL
    report["history"][2]["finish_reason"] = EVIL
    text = as_html(report)
    html5lib.HTMLParser(strict=True).parse(text)
    document = html5lib.parse(text, namespaceHTMLElements=False)
    assert [s.get("type") for s in document.findall(".//script")] == ["application/json", None]
    path = tmp_path / "evil.html"
    path.write_text(text, encoding="utf-8")
    load(browser, path)
    assert browser.execute_script("return window.pwned") is None
    points = browser.execute_script(POINTS)
    assert points[1][0] == EVIL and points[1][4] == f"{EVIL}: 5 broken, 3 new, 1 fixed"
    shown = browser.execute_script(
        "return [...document.querySelectorAll(arguments[0])].filter(e => e.dataset.url =="
        " arguments[1]).map(e => e.querySelector(arguments[2]).textContent)",
        "#broken article, #longest li",
        evil,
        ".since",
    )
    assert shown == [  # in the page's order: the longest list, then the card
        f"broken since {EVIL}, 5 audits, linked 2 times",
        f"· broken since {EVIL}, 5 audits",
    ]


def test_three_audits_with_a_database(tmp_path, server, browser):
    """Three real audits of one database, the site changing between them:
    the third's HTML report (``--html``) charts the three, its points the
    report's history, which holds what happened (one broken link, then a
    second, then the first fixed)."""
    server.add("/", '<a href="/b">b</a>\n<a href="/c">c</a>')
    server.add("/c", "c")
    db = ("--db", "audit.sqlite", "--delay", "0")
    for n in (1, 2, 3):
        if n == 2:
            server.routes.pop("/c")  # /c broken from the second audit on
        if n == 3:
            server.add("/b", "b")  # /b fixed in the third
        out = run(tmp_path, f"{server.url}/", *db, "--report", f"{n}.json", "--html", f"{n}.html")
        assert out.returncode == 1, out.stderr
        report = json.loads((tmp_path / f"{n}.json").read_text())
        validate(report)
        if "history" not in report:
            pytest.skip("no history in the report: written by issue 26's history part")
    assert [r["summary"]["broken"] for r in report["history"]] == [1, 2, 1]
    assert [(r["new"], r["fixed"]) for r in report["history"][1:]] == [(1, 0), (0, 1)]
    load(browser, tmp_path / "3.html")
    points = browser.execute_script(POINTS)
    assert [p[:4] for p in points] == [
        [r["started_at"], r["summary"]["broken"], r["new"], r["fixed"]] for r in report["history"]
    ]
    card = css(browser, f'#broken article[data-url="{server.url}/c"] .since')
    assert card.text == "· broken for under an hour, 2 audits"
    longest = browser.find_elements(By.CSS_SELECTOR, "#longest li")
    assert [li.get_attribute("data-url") for li in longest] == [f"{server.url}/c"]


def test_a_long_history_draws_the_last_audits():
    """Years of audits: the chart draws the last 100 and says so; audits
    hours apart are told apart by the hour under the axis."""
    report = watched_report()
    record = report["history"][-1]
    report["history"] = [
        record | {"started_at": f"2026-11-{1 + i // 24:02d}T{i % 24:02d}:00:00+00:00"}
        for i in range(150)
    ]
    document = html5lib.parse(as_html(report), namespaceHTMLElements=False)
    svg = document.find(".//{http://www.w3.org/2000/svg}svg")
    ns = {"": "http://www.w3.org/2000/svg"}
    points = svg.findall(".//g[@class='point']", ns)
    assert [p.get("data-started-at") for p in points] == [
        r["started_at"] for r in report["history"][-100:]
    ]
    caption = "".join(document.find(".//figcaption").itertext())
    assert caption.endswith("in the last 100 audits (of 150: the JSON report has them all)")
    dates = [t.text for t in svg.findall("text[@class='tick']", ns) if not t.text.isdigit()]
    assert dates[0] == "03 Nov 02:00" and dates[-1] == "07 Nov 05:00" and len(dates) <= 7
    assert len(document.findall(".//table[@id='trend-table']/tbody/tr")) == 100
