"""The redirect fix-list (issue 17, part): for every link to a redirect,
the chain resolved to its end and the edit, permanent and temporary apart,
chains of several hops, chains ending broken called out; a loop is a broken
link (tests/test_redirect_targets.py), with no fix."""

from __future__ import annotations

import csv
import json

from tests.conftest import run_crawl
from tests.helpers.command import run
from tests.server import Route


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
        (4, "/p", "/c", "permanent", [308], "ok", 200, False),
    ]
    assert all(f["page"] == home for f in fixes)
    assert f"{home} line 4: replace {n}/p with {n}/c (308, permanent)" in out.stdout
    assert f"{home} line 1: replace {n}/a with {n}/c (301 -> 302, temporary; 2 hops)" in out.stdout
    assert "the chain ends broken (404)" in out.stdout and "Redirect loop" in out.stdout
    crawl = run_crawl(
        tmp_path, "-a", f"start={home}", "-a", f"redirect_fixes={tmp_path / 'crawl.csv'}"
    )  # the same through scrapy crawl
    assert crawl.report["redirect_fixes"] == fixes
    # CSV: a row per link, as the JSON has them, from both doors
    out = run(tmp_path, home, "--delay", "0", "--redirect-fixes", "fixes.csv", "-q")
    rows = list(csv.DictReader((tmp_path / "fixes.csv").open()))
    assert [(r["line"], r["from"], r["to"], r["kind"], r["statuses"]) for r in rows] == [
        (str(f["line"]), f["from"], f["to"], f["kind"], " ".join(map(str, f["statuses"])))
        for f in fixes
    ]
    assert rows[1]["final_outcome"] == "broken" and {r["loop"] for r in rows} == {"false"}
    assert (tmp_path / "crawl.csv").read_text() == (tmp_path / "fixes.csv").read_text()
    # SARIF: a result per link, with the edit when the chain ends well
    sarif = json.loads(run(tmp_path, home, "--delay", "0", "--format", "sarif").stdout)
    redirected = [r for r in sarif["runs"][0]["results"] if r["ruleId"] == "redirected-link"]
    assert len(redirected) == 3
    edits = {
        r["locations"][0]["physicalLocation"]["region"]["startLine"]: r["fixes"][0][
            "artifactChanges"
        ][0]["replacements"][0]
        for r in redirected
        if "fixes" in r
    }
    assert set(edits) == {1, 4}  # not the chain into a 404, not the loop
    assert edits[4]["deletedRegion"]["snippet"]["text"] == f"{n}/p"
    assert edits[4]["insertedContent"]["text"] == f"{n}/c"


def test_sarif_fix_of_a_local_build_is_exact(tmp_path):
    """In a build's file, the link as written (root-relative, relative,
    absolute) is replaced in the same form, at its columns."""
    public = tmp_path / "public"
    (public / "guide").mkdir(parents=True)
    (public / "docs").mkdir()
    (public / "guide" / "index.html").write_text("guide")
    (public / "docs" / "index.html").write_text(
        '<p>x</p>\n<p>See <a href="../guide">the guide</a> or <a href="/guide">it</a></p>'
    )
    (public / "index.html").write_text('<a href="docs/">docs</a>')
    sarif = json.loads(run(tmp_path, "public", "--format", "sarif", "-q").stdout)
    # one finding (one redirecting target), its edits gathered per file
    (result,) = [r for r in sarif["runs"][0]["results"] if r["ruleId"] == "redirected-link"]
    line = (public / "docs" / "index.html").read_text().splitlines()[1]
    (change,) = result["fixes"][0]["artifactChanges"]
    assert change["artifactLocation"]["uri"] == "public/docs/index.html"
    for edit in change["replacements"]:
        region = edit["deletedRegion"]
        written = line[region["startColumn"] - 1 : region["endColumn"] - 1]
        assert written == region["snippet"]["text"] in ("../guide", "/guide")
        assert edit["insertedContent"]["text"] == written + "/"


def test_no_redirects_no_fix_list(tmp_path, server):
    server.add("/", '<a href="/x">x</a>')
    server.add("/x", "x")
    run(tmp_path, f"{server.url}/", "--delay", "0")
    assert "redirect_fixes" not in json.loads((tmp_path / "linkaudit-report.json").read_text())


def test_a_chain_past_the_browsers_limit_ends_broken():
    """A chain still redirecting after MAX_HOPS (20) ends broken there, as
    in a browser, whatever the crawl's REDIRECT_MAX_TIMES let through."""
    from linkaudit.items import UrlResult
    from linkaudit.output.report.redirects import MAX_HOPS, RedirectFixes
    from linkaudit.state.base import Entry

    url = "http://example.com/r/{}".format
    entries = [
        Entry(
            url(n),
            n + 1,
            UrlResult(url(n), True, "redirect", n + 1, status=302, location=url(n + 1)),
            1,
            [("http://example.com/", 3)] if n == 0 else [(url(n - 1), None)],
        )
        for n in range(30)
    ]
    fixes = RedirectFixes()
    for entry in entries:
        fixes.see(entry)
    (fix,) = fixes.fixes({entry.url: entry for entry in entries}.get)
    assert (fix["to"], fix["final_outcome"], fix["final_status"]) == (url(MAX_HOPS), "broken", 302)
    assert not fix["loop"]
