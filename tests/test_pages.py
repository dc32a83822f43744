"""Pages as the web writes them: broken markup, other encodings, odd bytes,
huge files, invalid hrefs.  Links are still found, never an exception, and
an invalid href never becomes a request to something else."""

from __future__ import annotations

import re
import socket
from http.server import ThreadingHTTPServer
from urllib.parse import quote

import pytest

from tests.conftest import run_crawl
from tests.server import Route, TestServer


def _ok(server, *paths):
    for path in paths:
        server.add(path, Route(body="ok", content_type="text/plain"))


def test_encodings_bom_nul_and_malformed_markup(tmp_path, server):
    cyrillic, french, plain = quote("/страница"), quote("/café"), quote("/naïve")
    pages = {
        "/cp1251": Route(
            body='<a href="/страница">ссылка</a>'.encode("cp1251"),
            content_type="text/html; charset=windows-1251",
        ),
        "/meta-latin1": Route(
            body=b'<html><head><meta charset="iso-8859-1"></head>\n<a href="/caf\xe9">x</a>',
            content_type="text/html",
        ),
        "/undeclared": Route(body='<a href="/naïve">x</a>'.encode(), content_type="text/html"),
        "/bom": Route(body=b'\xef\xbb\xbf<a href="/after-bom">x</a>'),
        "/nul": Route(body=b'<p>\0\0\0</p>\0<a href="/after-nul">x</a>\0'),
        "/malformed": Route(
            body="<div><p>unclosed <b>tags\n<a href=/unquoted>u</a> 1 < 2 <<<\n"
            '<a href=\'/single\'>s</a><a href="/after-stray"</div>\n<a href="/last">l'
        ),
    }
    server.add("/", "\n".join(f'<a href="{p}">x</a>' for p in pages))
    for path, route in pages.items():
        server.add(path, route)
    _ok(server, cyrillic, french, plain, "/after-bom", "/after-nul", "/unquoted", "/single")
    crawl = run_crawl(tmp_path, "-a", f"start={server.url}/")
    for path in (cyrillic, french, plain, "/after-bom", "/after-nul", "/unquoted", "/single"):
        entry = crawl.url(f"{server.url}{path}")
        assert entry["outcome"] == "ok", (path, entry)
    # /last is a 404: a broken link keeps its referrers, with lines
    assert crawl.url(f"{server.url}/last")["referrers"] == [
        {"url": f"{server.url}/malformed", "line": 4}
    ]
    assert "Traceback" not in crawl.stderr


def test_long_lines_and_a_link_on_line_100000(tmp_path, server):
    long_line = "x" * 2_000_000 + '<a href="/end-of-long-line">x</a>\n'
    deep = "<p>line</p>\n" * 99_999 + '<a href="/line-100000">x</a>\n'
    server.add("/", '<a href="/long">l</a>\n<a href="/deep">d</a>')
    server.add("/long", long_line)
    server.add("/deep", deep)
    # both targets are 404s: broken links keep their referrers, with lines
    crawl = run_crawl(tmp_path, "-a", f"start={server.url}/")
    assert crawl.url(f"{server.url}/end-of-long-line")["referrers"] == [
        {"url": f"{server.url}/long", "line": 1}
    ]
    assert crawl.url(f"{server.url}/line-100000")["referrers"] == [
        {"url": f"{server.url}/deep", "line": 100_000}
    ]


INVALID = [  # what browsers refuse to follow (the URL Standard)
    ("http://exa mple.com", "Invalid URL: bad host name 'exa mple.com'"),
    ("http://[::1", "Invalid URL: bad IPv6 address (no closing ])"),
    ("http://host:99999/", "Invalid URL: port 99999 out of range"),
    ("https://:80/", "Invalid URL: no host"),
    ("http://exa\x01mple.com/", "Invalid URL: bad host name"),
    ("http://256.256.256.256/", "Invalid URL: bad IPv4 address '256.256.256.256'"),
    ("http://xn--/", "Invalid URL: bad international host name 'xn--'"),
]


def test_invalid_hrefs_are_broken_entries_and_never_requests(tmp_path, server):
    links = [href for href, _ in INVALID] + ["foo:bar", "gopher://old.example/", "/fine"]
    server.add("/", "\n".join(f'<a href="{h}">x</a>' for h in links))
    _ok(server, "/fine")
    crawl = run_crawl(tmp_path, "-a", f"start={server.url}/")
    entries = {u["url"]: u for u in crawl.report["urls"]}
    for line, (href, words) in enumerate(INVALID, start=1):
        # the entry is the href itself, or its first 100 characters and more
        (entry,) = [u for u in entries.values() if href.startswith(u["url"].rstrip("."))]
        assert entry["error"].startswith(words), (href, entry)
        assert entry["outcome"] == "broken" and entry["status"] is None
        assert entry["referrers"] == [{"url": f"{server.url}/", "line": line}]
    assert entries["foo:bar"]["outcome"] == "excluded"
    assert entries["gopher://old.example/"]["error"] == "Excluded: gopher: link"
    assert entries[f"{server.url}/fine"]["outcome"] == "ok"
    # the only requests: this server's robots.txt, the start page and /fine
    assert sorted((h.method, h.path) for h in server.log) == [
        ("GET", "/"),
        ("GET", "/robots.txt"),
        ("HEAD", "/"),
        ("HEAD", "/fine"),
    ]
    assert crawl.report["summary"]["requests"] == 4
    assert "Traceback" not in crawl.stderr


def test_long_urls_are_checked_and_far_urls_pass_the_trap_guards(tmp_path, server, far_server):
    """Browsers follow URLs far longer than 2,083 characters (playground
    links carry code in the query): the server's answer decides.  Far URLs
    are never crawled, so the crawler-trap guards are for near URLs only."""
    code = "x" * 3000
    refused = "y" * 10_000
    links = [
        f"/play?code={code}",  # answered 200
        f"/strict?code={refused}",  # this server says 414
        "/huge?" + "z" * 70_000,  # beyond our sanity bound: not requested
        f"{far_server.url}/web/2020/https://example.com/",
        f"{far_server.url}/docs/docs/docs/docs/",
        "/a//b",  # near: still a trap
    ]
    server.add("/", "\n".join(f'<a href="{h}">x</a>' for h in links))
    _ok(server, "/play")
    server.add("/strict", Route(414, "URI Too Long"))
    far_server.add("/web/*", Route(body="archived", content_type="text/plain"))
    far_server.add("/docs/*", Route(404, "gone"))
    crawl = run_crawl(tmp_path, "-a", f"start={server.url}/")
    assert crawl.url(f"{server.url}/play?code={code}")["outcome"] == "ok"
    strict = crawl.url(f"{server.url}/strict?code={refused}")
    assert (strict["outcome"], strict["error"]) == ("broken", "414 Request-URI Too Long")
    huge = next(u for u in crawl.report["urls"] if u["url"].startswith(f"{server.url}/huge"))
    assert huge["outcome"] == "excluded"
    assert huge["error"] == "Excluded: URL longer than 65536 characters (URLLENGTH_LIMIT)"
    archived = crawl.url(f"{far_server.url}/web/2020/https://example.com/")
    assert (archived["outcome"], archived["near"]) == ("ok", False)
    assert crawl.url(f"{far_server.url}/docs/docs/docs/docs/")["error"] == "404 Not Found"
    assert crawl.url(f"{server.url}/a//b")["outcome"] == "excluded"
    assert not [h for h in server.log if h.path.startswith("/huge")]
    assert [h.method for h in server.log if h.path.startswith("/play")] == ["HEAD"]


def _ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6) as s:
            s.bind(("::1", 0))
        return True
    except OSError:
        return False


class _V6Server(ThreadingHTTPServer):
    address_family = socket.AF_INET6


def test_idn_hosts_become_punycode(tmp_path, server):
    server.add("/", '<a href="http://bücher.invalid/buch">b</a>')
    crawl = run_crawl(tmp_path, "-a", f"start={server.url}/")
    entry = crawl.url("http://xn--bcher-kva.invalid/buch")
    assert entry["error"] == "DNS lookup failed for xn--bcher-kva.invalid"


@pytest.mark.skipif(not _ipv6_loopback(), reason="no IPv6 loopback on this machine")
def test_ipv6_literal_hosts_work(tmp_path, server):
    v6 = TestServer()
    v6.httpd.server_close()
    v6.httpd = _V6Server(("::1", 0), v6.httpd.RequestHandlerClass)
    v6.httpd.daemon_threads = True
    v6.port = v6.httpd.server_address[1]
    v6._thread.__init__(target=v6.httpd.serve_forever, daemon=True)
    v6.add("/v6", Route(body="ok", content_type="text/plain"))
    with v6:
        server.add("/", f'<a href="http://[::1]:{v6.port}/v6">v6</a>')
        crawl = run_crawl(tmp_path, "-a", f"start={server.url}/")
    entry = crawl.url(f"http://[::1]:{v6.port}/v6")
    assert entry["outcome"] == "ok", entry
    assert [h.method for h in v6.log if h.path == "/v6"] == ["HEAD"]
    assert re.match(r"http://\[::1\]:\d+/v6$", entry["url"])


def test_the_request_is_the_one_a_browser_sends(tmp_path, server):
    """Read as a browser reads the href, resolved by the URL Standard, and
    sent as it is: no second escaping ("%2z" stays, "|" stays)."""
    hrefs = {
        "/s?q=tea&section=2&currency=EUR": "/s?q=tea&section=2&currency=EUR",
        "/t?a=1&amp;b=2&sect;": "/t?a=1&b=2%C2%A7",
        "/foo%2zbar": "/foo%2zbar",
        "/a|b[c]": "/a|b[c]",
        "images\\logo.png": "/images/logo.png",
        "/caf\u00e9": "/caf%C3%A9",
        "/x&nbsp;": "/x%C2%A0",
    }
    server.add("/", "\n".join(f'<a href="{h}">x</a>' for h in hrefs))
    crawl = run_crawl(tmp_path, "-a", f"start={server.url}/")
    asked = {h.path for h in server.log} - {"/", "/robots.txt"}
    assert asked == set(hrefs.values())
    for line, path in enumerate(hrefs.values(), start=1):
        entry = crawl.url(server.url + path)
        assert entry["referrers"] == [{"url": f"{server.url}/", "line": line}]
