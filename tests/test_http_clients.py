"""``LINKAUDIT_HTTP_CLIENT``: the requests through another HTTP client than
Twisted's (Scrapy's httpx handler, the incubator's aiohttp and curl_cffi
handlers), the audit's verdicts the same; an unknown client refused in one
line.  Why Twisted stays the default: bench/README.md, "The HTTP clients"."""

from __future__ import annotations

import pytest

from tests.conftest import run_crawl
from tests.helpers.command import refused, run
from tests.server import Route


@pytest.mark.parametrize("client", ["httpx", "aiohttp", "curl_cffi"])
def test_another_client_checks_the_site_as_twisted_does(tmp_path, server, client):
    server.add("/", '<a href="/a">a</a> <a href="/gone">g</a> <a href="/big">b</a>')
    server.add("/a", "<p>fine</p>")
    server.add("/gone", Route(404, "no"))
    # a near page asked with HEAD first, then GET; a binary with its HEAD only
    server.add("/big", Route(body=b"x" * 3_000_000, content_type="application/octet-stream"))
    settings = {"LINKAUDIT_HTTP_CLIENT": client}
    crawl = run_crawl(tmp_path, "-a", f"start={server.url}/", settings=settings)
    assert f"'linkaudit/http_client': '{client}'" in crawl.stderr
    assert crawl.url(f"{server.url}/a")["outcome"] == "ok"
    assert crawl.url(f"{server.url}/big")["outcome"] == "ok"
    gone = crawl.url(f"{server.url}/gone")
    assert (gone["outcome"], gone["status"]) == ("broken", 404)
    asked = [(h.method, h.path) for h in server.log if h.path != "/robots.txt"]
    assert sorted(asked) == sorted(
        [
            ("HEAD", "/"),
            ("GET", "/"),
            ("HEAD", "/a"),
            ("GET", "/a"),
            ("HEAD", "/gone"),
            ("GET", "/gone"),
            ("HEAD", "/big"),
        ]
    ), asked
    assert "not recommended for production" not in crawl.stderr


def test_an_unknown_client_is_refused_in_one_line(tmp_path, server):
    server.add("/", "<p>never asked</p>")
    out = run(tmp_path, f"{server.url}/", "-s", "LINKAUDIT_HTTP_CLIENT=requests")
    refused(
        out, "LINKAUDIT_HTTP_CLIENT: 'requests' is not one of twisted, httpx, aiohttp, curl_cffi"
    )
    assert server.log == []
