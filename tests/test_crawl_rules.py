"""Crawl shape end to end: depth, limits, traps, near/far, feeds."""

from __future__ import annotations

import pytest

from tests.conftest import run_crawl
from tests.server import Route


@pytest.mark.parametrize("batch", [None, "1"])
def test_depth_is_shortest_even_when_the_long_path_is_found_first(tmp_path, server, batch):
    # /slow answers late, so /a1 -> /a2 -> /t is explored first; /t is still
    # two hops away (via /slow) and -a depth=2 still scans it.  With levels
    # released one URL at a time (LINKAUDIT_RELEASE_BATCH=1) depths stay exact.
    server.add("/", '<a href="/slow">slow</a>\n<a href="/a1">a1</a>')
    server.add("/slow", Route(body='<a href="/t">t</a>', delay=0.8))
    server.add("/a1", '<a href="/a2">a2</a>')
    server.add("/a2", '<a href="/t">t</a>')
    server.add("/t", '<a href="/deep">deep</a>')
    server.add("/deep", "deep")
    crawl = run_crawl(
        tmp_path,
        "-a",
        f"start={server.url}/",
        "-a",
        "depth=2",
        settings={"LINKAUDIT_RELEASE_BATCH": batch},
    )
    assert crawl.returncode == 0, crawl.stderr[-2000:]
    depths = {u["url"].removeprefix(server.url): u["depth"] for u in crawl.report["urls"]}
    assert depths == {"/": 0, "/slow": 1, "/a1": 1, "/a2": 2, "/t": 2, "/deep": 3}
    assert crawl.url(f"{server.url}/t")["method"] == "GET"  # depth 2 is within the limit: scanned
    deep = crawl.url(f"{server.url}/deep")
    assert (deep["outcome"], deep["error"]) == ("unchecked", "Not checked: depth limit reached")
    assert deep["referrers"] == [{"url": f"{server.url}/t", "line": 1}]
    assert not server.hits("/deep")
    assert crawl.report["complete"] is False and crawl.report["finish_reason"] == "finished"


def _limited_crawl(tmp_path, server, delay, **settings):
    """A crawl of 30 slow pages, stopped by a limit."""
    server.add("/", "\n".join(f'<a href="/p{i}">p{i}</a>' for i in range(30)))
    server.add("/p*", Route(body='<a href="/q">q</a>', delay=delay))
    crawl = run_crawl(tmp_path, "-a", f"start={server.url}/", settings=settings)
    report = crawl.report
    assert report["complete"] is False and report["summary"]["unchecked"] > 0
    return report


def test_hit_limit_leaves_a_valid_incomplete_report(tmp_path, server):
    report = _limited_crawl(
        tmp_path, server, 0.05, CLOSESPIDER_PAGECOUNT="6", CONCURRENT_REQUESTS="2"
    )
    assert report["finish_reason"] == "closespider_pagecount"
    unchecked = [u for u in report["urls"] if u["outcome"] == "unchecked"]
    assert all(u["error"] == "Not checked: hit limit reached" for u in unchecked)
    assert all(u["status"] is None and u["referrers"] for u in unchecked)
    # every response counts, robots.txt included; what is in flight (at most
    # CONCURRENT_REQUESTS) still completes after the limit is reached
    assert 6 <= report["summary"]["requests"] <= 6 + 2
    assert len(server.log) == report["summary"]["requests"]


def test_time_limit_leaves_a_valid_incomplete_report(tmp_path, server):
    report = _limited_crawl(
        tmp_path, server, 0.5, CLOSESPIDER_TIMEOUT="1", CONCURRENT_REQUESTS_PER_DOMAIN="1"
    )
    assert report["finish_reason"] == "closespider_timeout"
    assert {u["error"] for u in report["urls"] if u["outcome"] == "unchecked"} == {
        "Not checked: time limit reached"
    }


def test_infinite_docs_site_ends_on_its_own(tmp_path, server):
    # every page under /docs/ links to docs/ below itself: /docs/docs/docs/...
    server.add("/", '<a href="/docs/">docs</a>')
    server.add("/docs/*", '<a href="docs/">deeper</a> <a href="..//x">double slash</a>')
    crawl = run_crawl(tmp_path, "-a", f"start={server.url}/", "-a", "near=" + server.url)
    assert crawl.returncode == 0 and crawl.report["complete"] is True
    excluded = [u for u in crawl.report["urls"] if u["outcome"] == "excluded"]
    assert any("repeated more than 3 times" in u["error"] for u in excluded)
    assert any("'//' in the path" in u["error"] for u in excluded)
    assert max(len(h.path.split("/docs")) - 1 for h in server.log) == 3
    trap = next(u for u in excluded if "repeated" in u["error"])
    assert trap["referrers"] and trap["status"] is None and trap["method"] is None


def test_several_start_urls_and_near_prefixes(tmp_path, server):
    u = server.url
    server.add("/a/", '<a href="/c/page">c</a> <a href="/b/">b</a>')
    server.add("/b/", "b")
    server.add("/c/page", "c")
    crawl = run_crawl(tmp_path, "-a", f"start={u}/a/,  {u}/b/")
    assert crawl.report["start_urls"] == [f"{u}/a/", f"{u}/b/"]
    assert crawl.report["near_prefixes"] == [f"{u}/a/", f"{u}/b/"]
    page = crawl.url(f"{u}/c/page")
    assert page["near"] is False and page["method"] == "HEAD"
    assert server.methods("/c/page") == ["HEAD"]  # far: never downloaded

    server.log.clear()
    crawl = run_crawl(tmp_path, "-a", f"start={u}/a/", "-a", f"near={u}/a/ {u}/c/")
    assert crawl.report["near_prefixes"] == [f"{u}/a/", f"{u}/c/"]
    assert crawl.url(f"{u}/c/page")["near"] is True
    assert server.methods("/c/page") == ["HEAD", "GET"]
    assert crawl.url(f"{u}/b/")["near"] is False
