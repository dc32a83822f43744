"""The redirect fix-list (issue 17, part): for every link to a redirect,
the chain resolved to its end and the edit, permanent and temporary apart,
chains of several hops, chains ending broken and loops called out."""

from __future__ import annotations

import json

from tests.conftest import run_crawl
from tests.server import Route
from tests.test_cli import run


def _site(server):
    server.add(
        "/",
        "\n".join(
            [
                '<a href="/a">301 then 302</a>',
                '<a href="/d">301 to a 404</a>',
                '<a href="/loop1">a loop</a>',
                '<a href="/p">308</a>',
                '<a href="/c">no redirect</a>',
            ]
        ),
    )
    for path, status, to in [
        ("/a", 301, "/b"),
        ("/b", 302, "/c"),
        ("/d", 301, "/gone"),
        ("/loop1", 301, "/loop2"),
        ("/loop2", 301, "/loop1"),
        ("/p", 308, "/c"),
    ]:
        server.add(path, Route(status, "", headers={"Location": to}))
    server.add("/c", "final")


def test_redirect_fixes(tmp_path, server):
    _site(server)
    n, home = server.url, f"{server.url}/"
    out = run(tmp_path, home, "--delay", "0")
    fixes = json.loads((tmp_path / "linkaudit-report.json").read_text())["redirect_fixes"]
    short = [
        (
            f["line"],
            f["from"][len(n) :],
            f["to"][len(n) :],
            f["kind"],
            f["statuses"],
            f["final_outcome"],
            f["final_status"],
            f["loop"],
        )
        for f in fixes
    ]
    assert short == [
        (1, "/a", "/c", "temporary", [301, 302], "ok", 200, False),
        (2, "/d", "/gone", "permanent", [301], "broken", 404, False),
        (3, "/loop1", "/loop2", "permanent", [301, 301], "redirect", None, True),
        (4, "/p", "/c", "permanent", [308], "ok", 200, False),
    ]
    assert all(f["page"] == home for f in fixes)
    assert f"{home} line 4: replace {n}/p with {n}/c (308, permanent)" in out.stdout
    assert f"{home} line 1: replace {n}/a with {n}/c (301 -> 302, temporary; 2 hops)" in out.stdout
    assert "the chain ends broken (404)" in out.stdout and "a redirect loop" in out.stdout
    crawl = run_crawl(tmp_path, "-a", f"start={home}")  # the same through scrapy crawl
    assert crawl.report["redirect_fixes"] == fixes


def test_no_redirects_no_fix_list(tmp_path, server):
    server.add("/", '<a href="/x">x</a>')
    server.add("/x", "x")
    run(tmp_path, f"{server.url}/", "--delay", "0")
    assert "redirect_fixes" not in json.loads((tmp_path / "linkaudit-report.json").read_text())
