"""Incremental audits with the audit database: rechecks, 304s, ghost links,
the grace period for flaky links.  Real crawls of a local site whose pages
the tests change between runs; the server's log says what was requested."""

from __future__ import annotations

import sqlite3
import time
from collections import Counter
from pathlib import Path

import pytest

from tests.conftest import run_crawl
from tests.server import Route, TestServer


@pytest.fixture
def site():
    """Answers with an ETag and 304 to a matching If-None-Match."""
    with TestServer(conditional=True) as srv:
        srv.add("/", "\n".join(f'<a href="/p{i}.html">p{i}</a>' for i in range(6)))
        for i in range(6):
            srv.add(f"/p{i}.html", f'<img src="/i{i}.png">\n<a href="/">home</a>')
            srv.add(f"/i{i}.png", Route(body=b"png", content_type="image/png"))
        srv.add("/p5.html", '<a href="/missing">gone</a>')
        yield srv


def audit(tmp_path: Path, server, name: str, **settings: str):
    return run_crawl(
        tmp_path,
        "-a",
        f"start={server.url}/",
        "-a",
        f"db={tmp_path / 'audit.sqlite'}",
        settings=settings,
        report_name=f"{name}.json",
    )


def requests(server) -> Counter:
    hits = Counter((h.method, h.path) for h in server.log)
    server.log.clear()
    return hits


def outcomes(report: dict) -> dict:
    return {u["url"]: u["outcome"] for u in report["urls"]}


def test_fresh_urls_are_not_requested_and_changed_pages_are_fetched_again(tmp_path, site):
    first = audit(tmp_path, site, "first")
    assert first.report["complete"]
    first_requests = requests(site)
    assert first.url(f"{site.url}/missing")["outcome"] == "broken"

    # ok URLs checked less than an hour ago count; the broken one is asked
    # again (its HEAD, then the GET whose answer is the verdict)
    second = audit(tmp_path, site, "second", LINKAUDIT_RECHECK_GOOD_AFTER="3600")
    second_requests = requests(site)
    assert outcomes(second.report) == outcomes(first.report)
    assert second.report["complete"]
    assert set(second_requests) <= {
        ("GET", "/robots.txt"),
        ("HEAD", "/missing"),
        ("GET", "/missing"),
    }
    assert sum(second_requests.values()) * 5 <= sum(first_requests.values())
    page = second.url(f"{site.url}/p1.html")
    assert page["from_cache"] is True
    assert page["checked_at"] == first.url(f"{site.url}/p1.html")["checked_at"]
    assert page["referrers"] == [] and page["referrer_count"] == 1
    image = second.url(f"{site.url}/i1.png")
    assert image["from_cache"] is True and image["referrer_count"] == 1
    missing = second.url(f"{site.url}/missing")
    assert "from_cache" not in missing
    assert missing["referrers"] == [{"url": f"{site.url}/p5.html", "line": 1}]

    # one page changes: every URL is rechecked (the default), pages
    # conditionally; only the changed page is downloaded again
    site.add("/p2.html", '<img src="/i2.png">\n<a href="/">home</a>\n<a href="/new-missing">x</a>')
    third = audit(tmp_path, site, "third")
    third_requests = requests(site)
    gets = {path for method, path in third_requests if method == "GET"}
    # the broken URLs' GETs are their verdicts, headers only
    assert gets == {"/robots.txt", "/p2.html", "/missing", "/new-missing"}
    new = third.url(f"{site.url}/new-missing")
    assert new["outcome"] == "broken"
    assert new["referrers"] == [{"url": f"{site.url}/p2.html", "line": 3}]
    unchanged = third.url(f"{site.url}/p1.html")
    assert unchanged["not_modified"] is True and unchanged["status"] == 200
    assert third.url(f"{site.url}/i1.png")["referrers"] == []
    assert third.url(f"{site.url}/i1.png")["referrer_count"] == 1  # links of a 304 page count
    assert "not_modified" not in third.url(f"{site.url}/p2.html")
    assert third.report["summary"]["broken"] == 2
    assert third.report["summary"]["pages"] == 1


def test_rechecks_ask_pages_with_their_validators(tmp_path, site):
    audit(tmp_path, site, "first")
    requests(site)
    audit(tmp_path, site, "second")
    heads = [h for h in site.log if h.method == "HEAD" and h.path.endswith(".html")]
    assert len(heads) == 6
    assert all(h.headers.get("If-None-Match", "").startswith('"') for h in heads)
    assert all(h.status == 304 for h in heads)
    assert not [h for h in site.log if h.headers.get("If-None-Match") and "png" in h.path]


def test_a_304_to_if_modified_since(tmp_path, server):
    """A server with Last-Modified and no ETag is asked If-Modified-Since."""
    stamp = "Wed, 21 Oct 2015 07:28:00 GMT"
    server.add("/", Route(body='<a href="/a">a</a>', headers={"Last-Modified": stamp}))
    server.add("/a", "a")
    first = audit(tmp_path, server, "first")
    assert first.report["complete"]
    requests(server)
    # the server now says 304 to anyone who has the page of 2015
    server.add("/", Route(304, body=b"", headers={"Last-Modified": stamp}))
    second = audit(tmp_path, server, "second")
    asked = [h for h in server.log if h.path == "/"]
    assert [h.headers.get("If-Modified-Since") for h in asked] == [stamp]
    start = second.url(f"{server.url}/")
    assert start["outcome"] == "ok" and start["not_modified"] is True
    assert second.url(f"{server.url}/a")["outcome"] == "ok"  # its links were followed


def test_ghost_links_of_a_page_that_fails_now(tmp_path, server):
    server.add("/", '<a href="/hub">hub</a>')
    server.add("/hub", '<a href="/deep">deep</a>')
    server.add("/deep", '<a href="/deeper-missing">x</a>')
    audit(tmp_path, server, "first")
    server.add("/hub", Route(500, "down for maintenance"))
    requests(server)

    ghost = audit(tmp_path, server, "ghost", LINKAUDIT_FOLLOW_GHOST="3600")
    assert ghost.url(f"{server.url}/hub")["outcome"] == "broken"
    deep = ghost.url(f"{server.url}/deep")
    assert deep["outcome"] == "ok"
    assert deep["referrers"] == [] and deep["referrer_count"] == 1
    assert ghost.url(f"{server.url}/deeper-missing")["outcome"] == "broken"
    assert ("GET", "/deep") in requests(server)

    plain = audit(tmp_path, server, "plain")  # default: no ghost links
    assert f"{server.url}/deep" not in outcomes(plain.report)
    assert ("GET", "/deep") not in requests(server)


def test_a_flaky_link_is_reported_broken_only_after_report_after(tmp_path, server):
    server.add("/", '<a href="/flaky">f</a>')
    server.add("/flaky", Route(503, "busy"))
    grace = {"LINKAUDIT_REPORT_AFTER": "3600"}
    first = audit(tmp_path, server, "first", **grace)
    flaky = first.url(f"{server.url}/flaky")
    assert flaky["outcome"] == "ok" and flaky["status"] == 503 and flaky["error"] is None
    assert flaky["warning"].startswith("503 Service Unavailable (failing since ")
    assert first.report["summary"]["broken"] == 0

    second = audit(tmp_path, server, "second", **grace)  # still failing, same first failure
    assert second.url(f"{server.url}/flaky")["warning"] == flaky["warning"]
    conn = sqlite3.connect(tmp_path / "audit.sqlite")
    first_failed, count = conn.execute(
        "SELECT first_failed_at, fail_count FROM urls WHERE url = ?", (f"{server.url}/flaky",)
    ).fetchone()
    conn.close()
    assert count == 2

    # once it has failed long enough, it is broken
    wait = first_failed + 1.0 - time.time()
    if wait > 0:
        time.sleep(wait)
    third = audit(tmp_path, server, "third", LINKAUDIT_REPORT_AFTER="1")
    broken = third.url(f"{server.url}/flaky")
    assert broken["outcome"] == "broken" and broken["error"] == "503 Service Unavailable"
    assert "warning" not in broken

    # it answers again, then fails again: a new grace period
    server.add("/flaky", "back")
    assert audit(tmp_path, server, "fourth", **grace).url(f"{server.url}/flaky")["outcome"] == "ok"
    server.add("/flaky", Route(503, "busy"))
    fifth = audit(tmp_path, server, "fifth", **grace).url(f"{server.url}/flaky")
    assert fifth["outcome"] == "ok" and fifth["warning"] != flaky["warning"]
