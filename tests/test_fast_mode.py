"""LINKAUDIT_HEAD_FIRST = False: near URLs are asked with GET at once (one
request per page instead of two), bodies stopped at the headers unless they
are HTML pages; far URLs still get a HEAD.  Same outcomes as HEAD-first."""

from __future__ import annotations

from tests.conftest import run_crawl
from tests.server import Route

BIG = b"\0" * (20 * 1024 * 1024)


def _site(server, far_server):
    server.add(
        "/",
        '<a href="/page.html">p</a>\n<a href="/bin">b</a>\n<a href="/missing">m</a>\n'
        f'<a href="/moved">r</a>\n<a href="{far_server.url}/page">f</a>\n'
        f'<a href="{far_server.url}/missing">fm</a>\n<a href="/error">e</a>',
    )
    server.add("/page.html", '<a href="/deeper.html">d</a>')
    server.add("/deeper.html", "end")
    server.add("/bin", Route(body=BIG, content_type="application/octet-stream"))
    server.add("/moved", Route(301, headers={"Location": "/page.html"}))
    server.add("/error", Route(500, body="oops"))
    far_server.add("/page", Route(body=BIG))


def test_fast_mode_one_get_per_near_url_and_the_same_outcomes(tmp_path, server, far_server):
    _site(server, far_server)
    first = tmp_path / "head-first"
    first.mkdir()
    head_first = run_crawl(first, "-a", f"start={server.url}/")
    server.log.clear()
    far_server.log.clear()

    fast = run_crawl(
        tmp_path, "-a", f"start={server.url}/", settings={"LINKAUDIT_HEAD_FIRST": "False"}
    )
    assert fast.returncode == 0, fast.stderr[-2000:]

    def outcomes(crawl):
        return {
            u["url"]: (u["outcome"], u["status"], u["error"], u["location"], u["referrer_count"])
            for u in crawl.report["urls"]
        }

    assert outcomes(fast) == outcomes(head_first)
    assert fast.report["complete"] is True and fast.report["summary"]["pages"] == 3

    # the server's view: near URLs one GET each, no HEAD; far URLs HEAD
    # first, a failed HEAD confirmed by the GET of the same URL
    near_paths = {h.path for h in server.log} - {"/robots.txt"}
    assert near_paths == {"/", "/page.html", "/deeper.html", "/bin", "/missing", "/moved", "/error"}
    for path in near_paths:
        assert server.methods(path) == ["GET"], path
    assert server.hits("/bin")[0].body_bytes < len(BIG) // 2  # stopped at the headers
    assert fast.url(f"{server.url}/bin")["method"] == "GET"
    assert far_server.methods("/page") == ["HEAD"]
    assert far_server.methods("/missing") == ["HEAD", "GET"]
    # one request per near URL instead of two for pages
    assert fast.report["summary"]["requests"] < head_first.report["summary"]["requests"]
