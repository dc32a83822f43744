"""HEAD is a hint, GET is the verdict: a HEAD answered with anything but
2xx (404 and 410 included, or a redirect) is asked again with a GET of the
same URL before a verdict; a host whose GET answers contradict its HEAD
answers is checked with GET only from then on, in the next audit of the
same database too, and the report says which hosts and why."""

from __future__ import annotations

from linkaudit.output.formats.html.page import as_html
from linkaudit.output.formats.text import as_text
from tests.conftest import run_crawl
from tests.server import Route, TestServer

BIG = b"\0" * (20 * 1024 * 1024)  # more than any socket buffer holds


def _entry(crawl, url):
    entry = crawl.url(url)
    return entry["outcome"], entry["status"], entry["method"]


def test_a_head_failure_is_confirmed_by_the_get_near_and_far(tmp_path, server, far_server):
    links = ["/h404", "/h410", f"{far_server.url}/h404", f"{far_server.url}/h410"]
    server.add("/", "".join(f'<a href="{u}">x</a>' for u in links))
    for srv in (server, far_server):
        srv.add("/h404", Route(body="a page", head_status=404))
        srv.add("/h410", Route(body="a page", head_status=410))
    crawl = run_crawl(tmp_path, "-a", f"start={server.url}/")
    for srv in (server, far_server):
        for path in ("/h404", "/h410"):
            assert _entry(crawl, srv.url + path) == ("ok", 200, "GET"), path
            # at most the HEAD and its GET (the host may be GET-only by then)
            assert srv.methods(path)[-1] == "GET" and len(srv.methods(path)) <= 2
    assert crawl.report["summary"]["broken"] == 0


def test_true_404_and_410_are_broken_on_a_get_in_two_requests(tmp_path, server):
    server.add("/", '<a href="/gone">g</a> <a href="/missing">m</a>')
    server.add("/gone", Route(410, body="gone"))
    crawl = run_crawl(tmp_path, "-a", f"start={server.url}/")
    for path, status in (("/gone", 410), ("/missing", 404)):
        assert _entry(crawl, server.url + path) == ("broken", status, "GET")
        assert server.methods(path) == ["HEAD", "GET"]
    assert "get_only_hosts" not in crawl.report["summary"]  # HEAD and GET agree


def _switching_site(server):
    """``/first`` answers HEAD 403 and GET 200; ``/next.html`` (checked
    with it) links ``/b`` and ``/c``, checked a level later."""
    server.add("/", '<a href="/first">f</a> <a href="/next.html">n</a>')
    server.add("/first", Route(body="a page", head_status=403))
    server.add("/next.html", '<a href="/b">b</a> <a href="/c.png">c</a>')
    server.add("/b", Route(body="b"))
    server.add("/c.png", Route(body=BIG, content_type="image/png"))


def test_a_host_whose_get_contradicts_its_head_gets_one_get_per_url(tmp_path, server):
    _switching_site(server)
    crawl = run_crawl(tmp_path, "-a", f"start={server.url}/")
    assert _entry(crawl, f"{server.url}/first") == ("ok", 200, "GET")
    assert server.methods("/first") == ["HEAD", "GET"]
    # after the contradiction: one GET each, a non-page stopped at the headers
    assert server.methods("/b") == ["GET"] and server.methods("/c.png") == ["GET"]
    assert server.hits("/c.png", "GET")[0].body_bytes < len(BIG) // 2  # hung up
    assert all(_entry(crawl, f"{server.url}{p}")[0] == "ok" for p in ("/b", "/c.png"))
    host = server.url.removeprefix("http://")
    assert crawl.report["summary"]["get_only_hosts"] == [
        {
            "host": host,
            "url": f"{server.url}/first",
            "head": 403,
            "get": 200,
            "reason": "HEAD answered 403 Forbidden, GET 200 OK",
        }
    ]
    text = as_text(crawl.report)
    assert "Hosts checked with GET only" in text and f"  {host}  [HEAD answered 403" in text
    html = as_html(crawl.report)
    assert f'<li data-host="{host}"><code>{host}</code>: HEAD answered 403 Forbidden' in html


def test_the_audit_database_remembers_the_host_for_the_next_audit(tmp_path, server):
    _switching_site(server)
    db = tmp_path / "audit.db"
    first = tmp_path / "first"
    first.mkdir()
    run_crawl(first, "-a", f"start={server.url}/", "-a", f"db={db}")
    server.log.clear()
    crawl = run_crawl(tmp_path, "-a", f"start={server.url}/", "-a", f"db={db}")
    assert crawl.report["summary"]["get_only_hosts"][0]["url"] == f"{server.url}/first"
    methods = {h.method for h in server.log if h.path != "/robots.txt"}
    assert methods == {"GET"}, [(h.method, h.path) for h in server.log]


def test_a_head_that_redirects_to_an_error_while_get_answers_200(tmp_path):
    """The GET is the truth: the URL is ok, the error page its HEAD was
    sent to is never a link of the audit."""
    routes = {
        "/": '<a href="/pkg">p</a> <a href="/moved">m</a>',
        "/pkg": Route(body="the package", head_status=302, headers={"Location": "/errors/404"}),
        "/moved": Route(301, headers={"Location": "/new.html"}),  # a redirect for both
        "/new.html": "new",
    }
    with TestServer(routes) as server:
        crawl = run_crawl(tmp_path, "-a", f"start={server.url}/")
        assert _entry(crawl, f"{server.url}/pkg") == ("ok", 200, "GET")
        assert server.methods("/errors/404") == []
        assert f"{server.url}/errors/404" not in {u["url"] for u in crawl.report["urls"]}
        moved = crawl.url(f"{server.url}/moved")
        assert (moved["outcome"], moved["location"]) == ("redirect", f"{server.url}/new.html")
        assert crawl.report["summary"]["broken"] == 0
