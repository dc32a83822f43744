"""--check-fragments: links to page#name where the page has no such anchor,
near and far, through a redirect, with name=, in every output format; far
pages are downloaded for their anchors only when fragments are checked and
some link points at one (asserted on the far server's log)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from tests.conftest import run_crawl
from tests.helpers.command import run
from tests.server import Route


@pytest.fixture
def site(server, far_server):
    far = far_server.url
    server.add(
        "/",
        "\n".join(
            [
                "<title>home</title>",
                '<a href="/doc#present">present</a>',
                '<a href="/doc#missing">missing</a>',
                '<a href="/doc#named">a name=</a>',
                '<a href="#top">top</a> <a href="#nowhere">self</a>',
                '<a href="/old#present">moved</a> <a href="/old#gone">moved, gone</a>',
                f'<a href="{far}/page#there">far</a> <a href="{far}/page#nothere">far, gone</a>',
                f'<a href="{far}/file.pdf#page=2">pdf</a>',
                '<a href="/doc#:~:text=hello">text fragment</a>',
                '<a href="/doc#caf%C3%A9">encoded</a>',
                '<a href="/doc#missing">again</a>',
            ]
        ),
    )
    server.add("/doc", '<h2 id="present">P</h2>\n<a name="named"></a><p id="café">c</p>')
    server.add("/old", Route(301, "", headers={"Location": "/doc"}))
    far_server.add("/page", '<p id="there">far</p>')
    far_server.add("/file.pdf", Route(200, b"%PDF-1.4", content_type="application/pdf"))
    return server, far_server


def _gaps(report: dict) -> dict[str, list[tuple[str, list]]]:
    return {
        u["url"]: [(g["fragment"], [(r["url"], r["line"]) for r in g["referrers"]]) for g in gaps]
        for u in report["urls"]
        if (gaps := u.get("missing_fragments"))
    }


def test_missing_fragments_near_far_redirected_and_every_format(tmp_path, site):
    near, far = site
    home = f"{near.url}/"
    out = run(tmp_path, home, "--delay", "0", "--check-fragments")
    assert out.returncode == 1, out.stdout + out.stderr  # fails like a broken link
    report = json.loads((tmp_path / "linkaudit-report.json").read_text())
    assert report["summary"]["broken"] == 0
    assert report["summary"]["missing_fragments"] == 4
    assert _gaps(report) == {
        home: [("nowhere", [(home, 5)])],
        f"{near.url}/doc": [("missing", [(home, 3), (home, 11)])],
        f"{near.url}/old": [("gone", [(home, 6)])],  # the redirect's entry, its target's anchors
        f"{far.url}/page": [("nothere", [(home, 7)])],
    }
    urls = {u["url"]: u for u in report["urls"]}
    assert urls[f"{near.url}/doc"]["outcome"] == "ok"  # the HTTP outcome stays
    assert urls[f"{near.url}/old"]["outcome"] == "redirect"
    # the far page: HEAD, then a GET for its anchors; the PDF is never downloaded
    assert sorted((h.method, h.path) for h in far.log if h.path != "/robots.txt") == [
        ("GET", "/page"),
        ("HEAD", "/file.pdf"),
        ("HEAD", "/page"),
    ]
    assert f"{far.url}/page#nothere  [no such anchor on the page]" in out.stdout
    assert f"    {home} line 7" in out.stdout
    sarif = json.loads(
        run(tmp_path, home, "--delay", "0", "--check-fragments", "--format", "sarif", "-q").stdout
    )
    rules = [r["ruleId"] for r in sarif["runs"][0]["results"]]
    assert rules.count("missing-fragment") == 4  # one per missing anchor: #missing twice linked
    (doc,) = [r for r in sarif["runs"][0]["results"] if "/doc#missing" in r["message"]["text"]]
    assert [
        p["physicalLocation"]["region"] for p in doc["locations"] + doc["relatedLocations"]
    ] == [
        {"startLine": 3},
        {"startLine": 11},
    ]
    junit = ET.fromstring(
        run(tmp_path, home, "--delay", "0", "--check-fragments", "--format", "junit", "-q").stdout
    )
    assert junit.get("failures") == "4"
    markdown = run(
        tmp_path,
        home,
        "--delay",
        "0",
        "--check-fragments",
        "--format",
        "markdown",
        "--fail-on",
        "none",
        "-q",
    )
    assert markdown.returncode == 0
    assert f"| `{near.url}/doc#missing` | missing fragment" in markdown.stdout


def test_fragments_are_not_checked_by_default(tmp_path, site):
    near, far = site
    out = run(tmp_path, f"{near.url}/", "--delay", "0")
    assert out.returncode == 0, out.stdout + out.stderr
    report = json.loads((tmp_path / "linkaudit-report.json").read_text())
    assert "missing_fragments" not in report["summary"] and not _gaps(report)
    assert not [h for h in far.log if h.method == "GET" and h.path != "/robots.txt"]


def test_scrapy_crawl_gives_the_same_gaps(tmp_path, site):
    near, _far = site
    crawl = run_crawl(tmp_path, "-a", f"start={near.url}/", "-a", "check_fragments=true")
    assert crawl.report["summary"]["missing_fragments"] == 4
    assert len(_gaps(crawl.report)) == 4
