"""Bot walls, named: each wall's answer (headers and page as its vendor
sends them) is ``unchecked`` naming the wall, counted per wall, shown apart
from the broken links in every format; a plain 403 stays broken."""

from __future__ import annotations

import json
from xml.etree import ElementTree as ET

import pytest

from linkaudit.output.formats import FORMATS
from linkaudit.output.formats.common import walled
from linkaudit.rules.statuses import judge_status, unchecked_reason
from linkaudit.rules.walls import BODY_PREFIX, HEAD_PREFIX, WALLS, wall_of
from tests.conftest import run_crawl
from tests.helpers.command import run
from tests.helpers.walls import WALLS as ANSWERS
from tests.server import Route


def _headers(headers: dict[str, str]) -> dict[bytes, bytes]:
    return {k.lower().encode(): v.encode() for k, v in headers.items()}


@pytest.mark.parametrize("path", sorted(ANSWERS))
def test_each_walls_answer_is_recognised_and_named(path):
    name, status, headers, page = ANSWERS[path]
    wall = wall_of(status, _headers(headers), page.encode())
    assert wall is not None and wall.name == name
    reason = unchecked_reason(status, _headers(headers), page.encode())
    assert reason.error.startswith(f"could not verify: behind {name}, ") and reason.wall == name
    assert judge_status(status, _headers(headers), head=False, body=page.encode()) == "unchecked"
    # a HEAD's headers may say it too, or hint at it: then the GET decides
    if wall_of(status, _headers(headers), hints=True) is not None:
        assert judge_status(status, _headers(headers), head=True) == "fallback"


def test_every_wall_is_played_and_every_marker_cited():
    assert {w.name for w in WALLS} == {name for name, *_ in ANSWERS.values()}
    for wall in WALLS:
        assert all(m.source for m in wall.markers), wall.name


@pytest.mark.parametrize(
    "status, headers, page",
    [
        (403, {}, "<h1>Forbidden</h1>"),  # the site's own refusal: a verdict
        (404, {"cf-ray": "8ea1c2d3e4f5a6b7-FRA", "Server": "cloudflare"}, ""),  # behind, not walled
        (200, {"X-DataDome": "protected", "X-Iinfo": "1-2-3 NNNN"}, "<p>a page</p>"),
        (200, {}, '<a href="https://github.com/TecharoHQ/anubis">Anubis</a> is a wall'),
        (302, {"Set-Cookie": "techaro.lol-anubis-cookie-verification-1a2b=; Max-Age=0"}, ""),
        (200, {}, "<title>Access Denied</title> errors&#46;edgesuite&#46;net"),  # 200: no wall's
    ],
)
def test_what_is_no_wall(status, headers, page):
    assert wall_of(status, _headers(headers), page.encode()) is None


# a wall's words where the wall never puts them: in a comment, in a page's
# text or a script's, a wall's cookie on an answer whose status is not the
# wall's, or its page at a status it does not use
_ANUBIS_PAGE = ANSWERS["/anubis"][3]
_ANUBIS_COOKIE = {"Set-Cookie": "techaro.lol-anubis-cookie-verification-1a2b=x; Path=/"}


@pytest.mark.parametrize(
    "status, headers, page",
    [
        (200, {}, f"<p>a page</p><!-- {_ANUBIS_PAGE} -->"),
        (200, {}, "<!-- /.within.website/x/cmd/anubis/ --><p>a page</p>"),
        (
            200,
            {},
            '<!-- <script id="anubis_challenge"> --><p>see /.within.website/x/cmd/anubis/</p>',
        ),
        (200, {}, "<script>var s = '<script id=\"anubis_version\">';</script>"),
        (200, _ANUBIS_COOKIE, "<p>a page</p>"),
        (404, _ANUBIS_COOKIE, "<h1>Not Found</h1>"),
        (404, {"Set-Cookie": ".go-away-5f1e-state=abc; Path=/"}, "<h1>Not Found</h1>"),
        (404, {}, ANSWERS["/go-away"][3]),
        (403, {}, "<!-- Incapsula incident ID --><!-- /_Incapsula_Resource --><h1>no</h1>"),
        (403, {}, "<p>we use captcha-delivery.com and perimeterx.com/whywasiblocked</p>"),
        (403, {}, '<!-- <div id="px-captcha"> Sucuri WebSite Firewall --><h1>no</h1>'),
        (429, {}, "<!--<title>Vercel Security Checkpoint</title>-->"),
    ],
)
def test_a_walls_words_out_of_their_place_are_no_wall(status, headers, page):
    assert wall_of(status, _headers(headers), page.encode()) is None
    verdict = judge_status(status, _headers(headers), head=False, body=page.encode())
    assert verdict == ("ok" if status == 200 else "unchecked" if status == 429 else "broken")


def test_a_walls_cookie_is_a_hint_for_a_head():
    """A HEAD has no page: a cookie the wall sets sends it to a GET."""
    assert judge_status(200, _headers(_ANUBIS_COOKIE), head=True) == "fallback"
    assert judge_status(200, _headers(_ANUBIS_COOKIE), head=False, body=b"<p>page</p>") == "ok"


def test_a_page_is_read_to_its_prefix_only():
    far = b"x" * BODY_PREFIX + b'<div id="px-captcha">'
    assert wall_of(403, {}, far) is None
    # Anubis's words are in its page's head: a 200 page is read that far only
    challenge = (
        b'<script id="anubis_challenge" type="application/json">{}</script>'
        b'<img src="/.within.website/x/cmd/anubis/static/img/pensive.webp">'
    )
    assert wall_of(200, {}, b"x" * (HEAD_PREFIX - len(challenge)) + challenge) is not None
    assert wall_of(200, {}, b"x" * HEAD_PREFIX + challenge) is None


def test_walls_are_unchecked_named_counted_and_apart(tmp_path, server, far_server):
    links = [f'<a href="{far_server.url}{path}">{path}</a>' for path in sorted(ANSWERS)]
    links += ['<a href="/cloudflare">near wall</a>', '<a href="/forbidden">forbidden</a>']
    server.add("/", "\n".join(links))
    for path, (_name, status, headers, page) in ANSWERS.items():
        far_server.add(path, Route(status, page, headers=headers))
    near = ANSWERS["/cloudflare"]
    server.add("/cloudflare", Route(near[1], near[3], headers=near[2]))
    server.add("/forbidden", Route(403, "<h1>Forbidden</h1>"))
    # a wall's 429 is not asked again after a Retry-After wait here: this
    # test is about what the answer means (hosts/retryafter.py's tests are
    # about waiting)
    crawl = run_crawl(
        tmp_path, "-a", f"start={server.url}/", settings={"LINKAUDIT_RETRY_AFTER_TIMES": "0"}
    )
    report = crawl.report
    assert report is not None
    counts: dict[str, int] = {}
    for path, (name, status, _headers, _page) in ANSWERS.items():
        entry = crawl.url(far_server.url + path)
        assert (entry["outcome"], entry["status"], entry["method"]) == ("unchecked", status, "GET")
        assert entry["error"].startswith(f"could not verify: behind {name}, "), entry
        # the verdict is the GET's: the HEAD first, then one GET
        assert far_server.methods(path) == ["HEAD", "GET"], path
        counts[name] = counts.get(name, 0) + 1
    # the page alone said it: its first bytes were read, not its 20 MiB
    assert far_server.hits("/perimeterx", "GET")[0].body_bytes < 10 * 1024 * 1024
    near_wall = crawl.url(f"{server.url}/cloudflare")
    assert near_wall["outcome"] == "unchecked" and "behind Cloudflare" in near_wall["error"]
    assert near_wall["wall"] == "Cloudflare"  # the name as data, for the formats to group by
    counts["Cloudflare"] += 1
    forbidden = crawl.url(f"{server.url}/forbidden")
    assert (forbidden["outcome"], forbidden["method"]) == ("broken", "GET")
    assert server.methods("/forbidden") == ["HEAD", "GET"]
    summary = report["summary"]
    assert summary["walls"] == dict(sorted(counts.items()))
    assert summary["broken"] == 1 and summary["unchecked"] == sum(counts.values())
    _shown_apart_in_every_format(report, counts, far_server.url)


def _shown_apart_in_every_format(report: dict, counts: dict[str, int], far: str) -> None:
    walled = far + "/datadome"
    text = FORMATS["text"](report)
    head, _, rest = text.partition("Behind bot walls, not verified (")
    assert "14 URLs behind bot walls (not verified, not broken)" in head
    broken_part = head.split("Broken links (1):")[1]
    assert walled not in broken_part
    for name, n in counts.items():
        assert f"  {name} ({n}):" in rest
    assert f"    {walled}  [could not verify: behind DataDome, " in rest
    markdown = FORMATS["markdown"](report)
    table = markdown.split("#### Behind bot walls, not verified (14)")[1]
    assert f"| `{walled}` | `DataDome` (`403`) |" in table
    assert walled not in markdown.split("#### Behind bot walls")[0]
    assert "Behind bot walls (not verified, not broken): `AWS WAF` 2, `Akamai` 2," in markdown
    junit = ET.fromstring(FORMATS["junit"](report))
    suites = {s.get("name"): s for s in junit.iter("testsuite")}
    walls = suites["behind bot walls"]
    assert walls.get("tests") == "14" and walls.get("skipped") == "14"
    assert walls.get("failures") == "0" and suites["broken"].get("tests") == "1"
    case = next(c for c in walls.iter("testcase") if c.get("name") == walled)
    assert case.find("skipped").get("message") == "could not verify: behind DataDome"
    sarif = json.loads(FORMATS["sarif"](report))
    results = sarif["runs"][0]["results"]
    notes = [r for r in results if r["ruleId"] == "bot-wall"]
    assert len(notes) == 14 and {r["level"] for r in notes} == {"note"}
    assert sorted(r["properties"]["wall"] for r in notes) == sorted(
        name for name, n in counts.items() for _ in range(n)
    )
    assert [r["ruleId"] for r in results if r["level"] == "error"] == ["broken-link"]
    html = FORMATS["html"](report)
    part = html.split('id="walls-list"')[1].split("</table>")[0]
    assert f'data-url="{walled}" data-outcome="unchecked" data-wall="DataDome"' in part
    assert 'data-count="walls-list">14<' in html
    assert '<li data-total="walls"><span class="count" data-count="walls">14</span>' in html
    unchecked = html.split('id="unchecked-list"')[1].split("</section>")[0]
    assert walled not in unchecked and "<p>None.</p>" in unchecked
    broken = html.split('id="broken"')[1].split("</section>")[0]
    assert walled not in broken


def test_a_walls_words_out_of_place_leave_the_verdicts(tmp_path, server):
    """A near page whose comment names Anubis's path and challenge is the
    site's page (scanned: its broken link found), and a 404 that sets a
    cookie named like go-away's or Anubis's is broken: exit 1, not 3."""
    server.add("/", '<a href="/notes">notes</a> <a href="/gone">a</a> <a href="/gone2">b</a>')
    server.add(
        "/notes",
        '<!-- behind /.within.website/x/cmd/anubis/ <script id="anubis_challenge"> -->\n'
        '<a href="/missing">missing</a>',
    )
    go_away = {"Set-Cookie": ".go-away-5f1e2d3c-state=abc; Path=/"}
    server.add("/gone", Route(404, "<h1>Not Found</h1>", headers=go_away))
    server.add("/gone2", Route(404, "<h1>Not Found</h1>", headers=_ANUBIS_COOKIE))
    out = run(tmp_path, f"{server.url}/", "--delay", "0", "--report", "r.json")
    assert out.returncode == 1, out.stdout + out.stderr
    report = json.loads((tmp_path / "r.json").read_text())
    entries = {e["url"]: e for e in report["urls"]}
    assert entries[f"{server.url}/notes"]["outcome"] == "ok"
    assert server.methods("/missing") == ["HEAD", "GET"]
    for path in ("/missing", "/gone", "/gone2"):
        entry = entries[server.url + path]
        assert (entry["outcome"], entry["error"]) == ("broken", "404 Not Found"), entry
    assert "walls" not in report["summary"] or not report["summary"]["walls"]


def test_the_formats_group_by_the_wall_named_as_data_never_by_the_words():
    """A wall's name travels as the entry's ``wall``: an error that merely
    reads like a wall's words (a server's own text, an older report) is
    not grouped as a wall, and a named wall is, whatever its words."""
    words = "could not verify: behind DataDome, which refused automated checking (403 Forbidden)"
    report = {
        "urls": [
            {"url": "https://a.test/", "outcome": "unchecked", "error": words},
            {"url": "https://b.test/", "outcome": "unchecked", "error": "x", "wall": "Akamai"},
            {"url": "https://c.test/", "outcome": "broken", "error": words, "wall": None},
        ]
    }
    assert [(wall, [u["url"] for u in urls]) for wall, urls in walled(report)] == [
        ("Akamai", ["https://b.test/"])
    ]
