"""Where a redirect leads, as a hostile server may say it (issue 35): a
password in a ``Location`` is masked in every output, as in a page's link;
a ``javascript:`` target is never proposed as a replacement (the fix-list,
SARIF's edits, the suggestions); a redirect loop is a broken link, "Redirect
loop", as a browser says, found with no more requests than the loop."""

from __future__ import annotations

import csv
import json

from tests.helpers.command import run
from tests.server import Route, TestServer

SECRET = "secret"


def _outputs(tmp_path, home: str) -> dict[str, str]:
    """Every output of an audit of ``home``: the JSON report, each format
    on stdout, the HTML report, the fix-list CSV, the feed, and stderr."""
    outputs: dict[str, str] = {}
    for fmt in ("text", "markdown", "sarif", "junit", "json"):
        extra = ["--html", "report.html", "--redirect-fixes", "fixes.csv", "--jsonl", "feed.jsonl"]
        out = run(tmp_path, home, "--delay", "0", "-v", "--format", fmt, *extra)
        assert out.returncode in (0, 1), out.stdout + out.stderr
        assert "Traceback" not in out.stderr, out.stderr
        outputs[fmt], outputs[f"stderr ({fmt})"] = out.stdout, out.stderr
    for name in ("linkaudit-report.json", "report.html", "fixes.csv", "feed.jsonl"):
        outputs[name] = (tmp_path / name).read_text()
    return outputs


def test_a_redirects_password_is_masked_and_javascript_never_proposed(tmp_path, server):
    port = server.url.rsplit(":", 1)[1]
    to_password = f"http://u:{SECRET}@127.0.0.1:{port}/x"
    server.add(
        "/",
        '<a href="/pw">a</a>\n<a href="/js">b</a>\n<a href="/bad">c</a>\n<a href="/old">d</a>\n'
        '<a href="/Js">e</a>',
    )
    server.add("/pw", Route(302, headers={"Location": to_password}))
    server.add("/js", Route(301, headers={"Location": "javascript:alert(1)"}))
    server.add("/Js", Route(404))  # broken, one letter from /js: no suggestion leads there
    server.add("/bad", Route(302, headers={"Location": f"http://u:{SECRET}@127.0.0.1:99999/x"}))
    server.add("/old", Route(301, headers={"Location": "/new"}))
    server.add("/new", "new")
    server.add("/x", "x")
    outputs = _outputs(tmp_path, f"{server.url}/")

    leaks = [name for name, text in outputs.items() if SECRET in text]
    assert leaks == []
    report = json.loads(outputs["linkaudit-report.json"])
    urls = {u["url"]: u for u in report["urls"]}
    masked = f"http://u:***@127.0.0.1:{port}/x"
    assert (urls[f"{server.url}/pw"]["outcome"], urls[f"{server.url}/pw"]["location"]) == (
        "redirect",
        masked,
    )
    assert urls[masked]["outcome"] == "excluded"  # never requested, as a page's such link
    assert urls[f"{server.url}/bad"]["outcome"] == "broken"
    assert "u:***@127.0.0.1:99999" in urls[f"{server.url}/bad"]["error"]
    assert urls[f"{server.url}/js"]["location"] == "javascript:alert(1)"
    assert server.hits("/x") == []
    # the fix-list proposes the one redirect that ends on a page, nowhere
    # javascript: or a password
    fixes = report["redirect_fixes"]
    assert [(f["from"], f["to"]) for f in fixes] == [(f"{server.url}/old", f"{server.url}/new")]
    rows = list(csv.DictReader((tmp_path / "fixes.csv").open()))
    assert [(r["from"], r["to"]) for r in rows] == [(f"{server.url}/old", f"{server.url}/new")]
    sarif = json.loads(outputs["sarif"])
    inserted = [
        replacement["insertedContent"]["text"]
        for result in sarif["runs"][0]["results"]
        for fix in result.get("fixes", ())
        for change in fix["artifactChanges"]
        for replacement in change["replacements"]
    ]
    assert inserted == [f"{server.url}/new"]
    assert all("javascript" not in str(u.get("suggestion")) for u in report["urls"])
    for name in ("text", "markdown"):
        assert "javascript" not in _fix_lines(outputs[name])


def _fix_lines(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if "replace" in line.lower())


def _audit_loop(tmp_path, server) -> tuple[int, dict]:
    out = run(tmp_path, f"{server.url}/", "--delay", "0", "--format", "text")
    assert "Traceback" not in out.stderr, out.stderr
    report = json.loads((tmp_path / "linkaudit-report.json").read_text())
    return out.returncode, {u["url"]: u for u in report["urls"]}


def test_a_redirect_loop_is_broken(tmp_path, server):
    """A -> B -> A: both broken, "Redirect loop", each checked once (its
    HEAD, and the GET whose redirect is the one recorded)."""
    server.add("/", '<a href="/a">a</a>')
    server.add("/a", Route(301, headers={"Location": "/b"}))
    server.add("/b", Route(302, headers={"Location": "/a"}))
    code, urls = _audit_loop(tmp_path, server)
    assert code == 1
    for path in ("/a", "/b"):
        entry = urls[f"{server.url}{path}"]
        assert (entry["outcome"], entry["error"]) == ("broken", "Redirect loop"), entry
        assert server.methods(path) == ["HEAD", "GET"]
    hits = sorted(server.log, key=lambda h: h.arrived)
    assert [h.path for h in hits if h.path not in ("/", "/robots.txt")] == ["/a", "/a", "/b", "/b"]


def test_a_url_redirecting_to_itself_is_broken(tmp_path, server):
    server.add("/", '<a href="/self">a</a>\n<a href="/into">b</a>')
    server.add("/self", Route(302, headers={"Location": "/self"}))
    server.add("/into", Route(301, headers={"Location": "/self"}))  # a chain into the loop
    code, urls = _audit_loop(tmp_path, server)
    assert code == 1
    for path in ("/self", "/into"):
        entry = urls[f"{server.url}{path}"]
        assert (entry["outcome"], entry["error"]) == ("broken", "Redirect loop"), entry
    assert sorted(h.path for h in server.log if h.path not in ("/", "/robots.txt")) == [
        "/into",
        "/into",
        "/self",
        "/self",
    ]


def test_a_robots_txt_redirect_to_a_password_or_javascript_is_not_followed(tmp_path):
    """Scrapy's own fetch of robots.txt follows redirects: not to a URL
    with a password (it logged it in clear, then failed with a traceback)
    nor to javascript: (a traceback): robots.txt is then unavailable, no rules."""
    with TestServer() as one, TestServer() as two:
        port = one.url.rsplit(":", 1)[1]
        locations = {
            one: f"http://u:{SECRET}@127.0.0.1:{port}/rules.txt",
            two: "javascript:alert(1)",
        }
        for server, location in locations.items():
            server.add("/robots.txt", Route(302, headers={"Location": location}))
            server.add(
                "/rules.txt", Route(body="User-agent: *\nDisallow: /\n", content_type="text/plain")
            )
            server.add("/x", "x")
        one.add("/", f'<a href="/x">x</a>\n<a href="{two.url}/x">far</a>')
        out = run(tmp_path, f"{one.url}/", "--delay", "0", "-vv")
    assert out.returncode == 0, out.stderr[-3000:]
    assert SECRET not in out.stderr + out.stdout
    assert "Traceback" not in out.stderr and "ERROR" not in out.stderr
    urls = {
        u["url"]: u for u in json.loads((tmp_path / "linkaudit-report.json").read_text())["urls"]
    }
    assert urls[f"{one.url}/x"]["outcome"] == urls[f"{two.url}/x"]["outcome"] == "ok"
    assert one.hits("/rules.txt") == [] and two.hits("/rules.txt") == []
