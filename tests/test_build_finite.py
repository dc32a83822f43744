"""A build directory is finite (issue 40): every path under it is a file
that is there or not, so a ``//`` in a link is checked, not taken for a
crawler trap, and an empty query never makes two findings of one file; on every
route of ``linkaudit DIR`` (the walk, the crawl reading the files, the
build served over HTTP).  An empty query is no query on a live site too;
``--skip-far`` with ``--root-url`` counts the links to the site's own host
it left out."""

from __future__ import annotations

import json

import pytest

from tests.helpers.command import run
from tests.server import Route, TestServer

FONTS = """@font-face {
  src: url(fonts/x.eot);
  src: url(fonts/x.eot?#iefix) format('embedded-opentype'), url(fonts/x.woff?v=3);
}
p { background: url(img/bg.png?v=1) } div { background: url(img/bg.png?v=2) }
"""

FILES = {
    "index.html": "\n".join(
        [
            '<link rel="stylesheet" href="fonts.css">',
            '<a href="https;//example.com/x">a typo of https://</a>',
            '<a href="guide//install.html">two slashes, the file is there</a>',
            '<a href="guide/">guide</a> <a href="page.html?lang=fr">a query</a>',
        ]
    ),
    "page.html": "<p>page</p>",
    "guide/index.html": '<a href="./">self</a> <a href=".//">a page that links .// (a trap)</a>',
    "guide/install.html": "<p>install</p>",
    "fonts.css": FONTS,
    "fonts/x.woff": "WOFF",
}

ROUTES = {
    "walk": (),
    "crawl reading the files": ("--max-requests", "1000"),
    "served": ("-s", "LINKAUDIT_LOCAL_READ=false"),
}


@pytest.fixture
def build(tmp_path):
    for name, text in FILES.items():
        path = tmp_path / "site" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path


@pytest.mark.parametrize("route", ROUTES.values(), ids=ROUTES.keys())
def test_a_build_s_paths_are_files_on_every_route(build, route):
    out = run(build, "site", "--report", "r.json", *route)
    assert out.returncode == 1, out.stdout + out.stderr[-3000:]
    report = json.loads((build / "r.json").read_text())
    origin = report["start_urls"][0]
    entries = {e["url"][len(origin) :]: e for e in report["urls"] if e["url"].startswith(origin)}
    outcome = {path: e["outcome"] for path, e in entries.items()}
    # a // is checked: a missing file is broken, a file that is there is ok
    assert outcome["https;//example.com/x"] == "broken", outcome
    assert entries["https;//example.com/x"]["status"] == 404
    assert outcome["guide//install.html"] == "ok"
    # one missing file, one finding: the empty query (?#iefix) names no
    # parameter; a query that is not empty is the URL the page wrote
    assert outcome["fonts/x.eot"] == "broken"
    assert "fonts/x.eot?" not in entries
    assert outcome["img/bg.png?v=1"] == outcome["img/bg.png?v=2"] == "broken"
    assert outcome["fonts/x.woff?v=3"] == "ok"
    assert outcome["page.html?lang=fr"] == "ok"
    lines = sorted(r["line"] for r in entries["fonts/x.eot"]["referrers"])
    assert lines == [2, 3]
    assert report["summary"]["broken"] == 4, outcome
    # a page that links .// makes /guide//, /guide///...: the empty
    # segments count among the repeated ones, and the audit ends
    trapped = [path for path, e in entries.items() if path.startswith("guide//")]
    assert [outcome[f"guide/{'/' * n}"] for n in (1, 2, 3)] == ["ok"] * 3, trapped
    assert "guide//////" not in entries
    assert outcome["guide/////"] == "excluded", trapped
    assert "'//' more than 3 times" in entries["guide/////"]["error"]
    assert "https;//example.com/x  [404 Not Found]" in out.stdout


def test_a_live_site_keeps_its_trap_guard_and_drops_an_empty_query(tmp_path):
    """On a live site a ``//`` near path stays ``excluded`` (a server can
    make such paths without end); an empty query is no query: one request,
    one finding."""
    pages = {
        "/": Route(body='<link rel="stylesheet" href="/f.css">\n<a href="/a//b">a//b</a>'),
        "/f.css": Route(body=FONTS, content_type="text/css"),
    }
    with TestServer(pages) as site:
        out = run(tmp_path, f"{site.url}/", "--delay", "0", "--report", "r.json")
        report = json.loads((tmp_path / "r.json").read_text())
        requested = {hit.path for hit in site.hits()}
    assert out.returncode == 1, out.stdout + out.stderr
    entries = {e["url"][len(site.url) :]: e for e in report["urls"]}
    assert entries["/a//b"]["outcome"] == "excluded"
    assert "crawler trap guard" in entries["/a//b"]["error"]
    assert entries["/fonts/x.eot"]["outcome"] == "broken"
    assert "/fonts/x.eot?" not in entries and "/fonts/x.eot?" not in requested
    # a query that is not empty is the server's to read: two URLs
    assert {"/img/bg.png?v=1", "/img/bg.png?v=2"} <= set(entries)
    assert "/fonts/x.woff?v=3" in requested


def test_skip_far_with_root_url_counts_the_site_s_own_links_left_out(tmp_path):
    """A build of https://example.com/docs/ that links the rest of
    example.com: with --skip-far those links are not requested, and the
    summary says how many there were (they are the site's own pages, not
    another site's)."""
    site = tmp_path / "docs"
    site.mkdir()
    (site / "index.html").write_text(
        "\n".join(
            [
                '<a href="https://example.com/blog/x">the blog</a>',
                '<a href="/blog/y">the blog, root-relative</a>',
                '<a href="https://example.com/docs/page.html">this build</a>',
                '<a href="https://elsewhere.example/">another site</a>',
                '<a href="https://example.com/blog/x#top">the blog again</a>',
            ]
        )
    )
    (site / "page.html").write_text("page")
    out = run(tmp_path, "docs", "--root-url", "https://example.com/docs/", "--skip-far")
    assert out.returncode == 0, out.stdout + out.stderr
    report = json.loads((tmp_path / "linkaudit-report.json").read_text())
    excluded = {e["url"]: e["error"] for e in report["urls"] if e["outcome"] == "excluded"}
    origin = report["start_urls"][0][: -len("docs/")]
    own = ["https://example.com/blog/x", f"{origin}blog/y"]  # (root-relative: the build's host)
    assert set(excluded) == {*own, "https://elsewhere.example/"}, excluded
    for url in own:
        assert excluded[url].startswith(
            "Excluded: outside --root-url https://example.com/docs/, on its host"
        ), excluded[url]
    second = out.stdout.splitlines()[2]  # (a build's line first, then the headline)
    assert "excluded 3 (2 on the site's host outside --root-url, --skip-far)" in second, out.stdout
    # without --root-url, or without --skip-far, nothing of the kind
    plain = run(tmp_path, "docs", "--skip-far")
    assert "outside --root-url" not in plain.stdout + plain.stderr
