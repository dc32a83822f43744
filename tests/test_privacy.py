"""What leaves the machine: the Referer a far site receives (the near page's
origin, never its path or query), cookies sent to and taken from the site's
own origins only (two ports of 127.0.0.1 are two origins), and no request
for the Public Suffix List when a site sets a cookie."""

from __future__ import annotations

from contextlib import ExitStack

import pytest

from linkaudit.rules.referrer import origin_of, referrer_header
from tests.conftest import run_crawl
from tests.helpers.served import certificate
from tests.rawserver import RawServer, garbage
from tests.server import Route, TestServer


@pytest.mark.parametrize(
    ("referrer", "target", "sent"),
    [
        # the same origin: the whole URL, but never a fragment or userinfo
        (
            "https://site.example/a/b?preview=SECRET",
            "https://site.example/c",
            "https://site.example/a/b?preview=SECRET",
        ),
        ("http://u:p@site.example/a?q#top", "http://site.example/c", "http://site.example/a?q"),
        ("http://site.example:80/", "http://SITE.example/x", "http://site.example/"),
        ("http://site.example", "http://site.example/x", "http://site.example/"),
        ("http://site.example/p?#a?b", "http://site.example/x", "http://site.example/p?"),
        # another origin (host, port or scheme): the origin only
        ("http://site.example/a?preview=SECRET", "http://far.example/", "http://site.example/"),
        ("http://127.0.0.1:8000/a?s", "http://127.0.0.1:8001/", "http://127.0.0.1:8000/"),
        ("http://site.example/a", "https://site.example/a", "http://site.example/"),
        ("https://site.example:8443/a", "https://far.example/", "https://site.example:8443/"),
        ("http://[::1]:8000/a", "http://[::1]:8001/", "http://[::1]:8000/"),
        # https to http: nothing; no http(s) referrer: nothing
        ("https://site.example/a", "http://site.example/a", None),
        ("https://site.example/a", "http://far.example/", None),
        ("file:///home/me/sitemap.xml", "http://site.example/", None),
        (None, "http://site.example/", None),
    ],
)
def test_referrer_header_is_strict_origin_when_cross_origin(referrer, target, sent):
    assert referrer_header(referrer, target) == sent


def test_origin_of():
    assert origin_of("HTTPS://Site.Example:443/a") == ("https", "site.example")
    assert origin_of("http://u:p@h:8080/") == ("http", "h:8080")
    assert origin_of("mailto:x@y") is None and origin_of("http://[::1") is None


def _referers(server: TestServer, path: str) -> set[str | None]:
    return {h.headers.get("Referer") for h in server.hits(path)}


def test_far_origins_get_the_origin_only_and_redirects_keep_the_page_as_referrer(tmp_path):
    with TestServer() as near, TestServer() as far:  # two ports: two origins
        near.add(
            "/",
            f'<a href="/inside">in</a>\n<a href="{far.url}/out">far</a>\n'
            '<a href="/hop">near redirect</a>\n<a href="/away">far redirect</a>',
        )
        near.add("/inside", "inside")
        near.add("/hop", Route(301, headers={"Location": "/landed"}))
        near.add("/away", Route(302, headers={"Location": f"{far.url}/moved"}))
        far.add("/out", "out")
        start = f"{near.url}/?preview=SECRET"
        crawl = run_crawl(tmp_path, "-a", f"start={start}")
        assert crawl.returncode == 0, crawl.stderr[-3000:]

    # the far server learns where its visitors come from, nothing more
    assert {h.path for h in far.log} == {"/robots.txt", "/out", "/moved"}
    assert _referers(far, "/out") == _referers(far, "/moved") == {f"{near.url}/"}
    assert not any("SECRET" in str(h.headers) for h in far.log)
    # the site's own pages get the whole URL; a redirect's target gets the
    # page that linked to the redirect, as in a browser
    for path in ("/inside", "/hop", "/landed", "/away"):
        assert _referers(near, path) == {start}, path
    assert _referers(near, "/robots.txt") == _referers(far, "/robots.txt") == {None}
    # the report still names the redirect as the (broken) target's referrer,
    # and the page that links the redirect as a place through it
    places = {(r["url"], r.get("via")) for r in crawl.url(f"{near.url}/landed")["referrers"]}
    assert places == {(f"{near.url}/hop", None), (start, f"{near.url}/hop")}
    places = {(r["url"], r.get("via")) for r in crawl.url(f"{far.url}/moved")["referrers"]}
    assert places == {(f"{near.url}/away", None), (start, f"{near.url}/away")}


def test_from_https_to_plain_http_no_referer_at_all(tmp_path):
    certs = tmp_path / "certs"
    certs.mkdir()
    tls = certificate(certs, "near", expired=False)
    with TestServer(tls=tls) as near, TestServer() as far:
        near.add("/", f'<a href="/inside">in</a>\n<a href="{far.url}/out">far</a>')
        near.add("/inside", "inside")
        far.add("/out", "out")
        start = f"{near.url}/?preview=SECRET"
        crawl = run_crawl(
            tmp_path, "-a", f"start={start}", settings={"DOWNLOAD_VERIFY_CERTIFICATES": "False"}
        )
        assert crawl.url(f"{far.url}/out")["outcome"] == "ok", crawl.stderr[-3000:]
    assert _referers(near, "/inside") == {start}
    assert _referers(far, "/out") == {None}


def _cookie_jar(tmp_path) -> str:
    jar = tmp_path / "cookies.txt"
    jar.write_text(
        "# Netscape HTTP Cookie File\n"
        "127.0.0.1\tFALSE\t/\tFALSE\t0\tsession\tabc123\n"  # every port of the host
    )
    return str(jar)


def test_cookies_go_to_and_come_from_the_sites_own_origin_only(tmp_path):
    with TestServer() as near, TestServer() as far:  # the same host, another port
        near.add(
            "/",
            Route(
                body=f'<a href="{far.url}/out">far</a>\n<a href="/next">next</a>',
                headers={"Set-Cookie": "nearset=n1; Path=/"},
            ),
        )
        near.add("/next", '<a href="/deeper">deeper</a>')  # asked after far's answer
        near.add("/deeper", "deeper")
        # a redirect followed by Scrapy copies the request's headers (Cookie
        # included, to another port of the same host)
        near.add("/robots.txt", Route(301, headers={"Location": f"{far.url}/robots-moved.txt"}))
        set_far = {"Set-Cookie": "farset=f1; Path=/"}
        far.add("/robots.txt", Route(body="", content_type="text/plain", headers=set_far))
        far.add("/out", Route(body="out", headers=set_far))
        crawl = run_crawl(
            tmp_path, "-a", f"start={near.url}/", "-a", f"cookie_jar={_cookie_jar(tmp_path)}"
        )
        assert crawl.returncode == 0, crawl.stderr[-3000:]

    assert {h.path for h in far.log} == {"/robots.txt", "/robots-moved.txt", "/out"}
    assert [h.headers.get("Cookie") for h in far.log] == [None] * len(far.log)
    cookies = {h.path: h.headers.get("Cookie", "") for h in near.log}
    assert all("session=abc123" in c and "farset" not in c for c in cookies.values()), cookies
    assert "nearset=n1" in cookies["/next"] and "nearset=n1" in cookies["/deeper"], cookies


def test_a_cookie_set_fetches_no_public_suffix_list(tmp_path):
    """tldextract would fetch the list (through the proxy the environment
    names, here a server of ours that records any attempt) and cache it in
    the home directory."""
    home = tmp_path / "home"
    home.mkdir()
    with ExitStack() as stack:
        proxy = stack.enter_context(RawServer(garbage, robots=False))
        site = stack.enter_context(TestServer())
        site.add("/", Route(body='<a href="/a">a</a>', headers={"Set-Cookie": "s=1; Path=/"}))
        site.add("/a", "a")
        env = {"HOME": str(home), "XDG_CACHE_HOME": str(home / ".cache")}
        for name in ("http_proxy", "https_proxy"):
            env[name] = env[name.upper()] = proxy.url
        env["no_proxy"] = env["NO_PROXY"] = "127.0.0.1"  # the audit itself goes direct
        crawl = run_crawl(
            tmp_path,
            *("-a", f"start={site.url}/", "-a", f"cookie_jar={_cookie_jar(tmp_path)}"),
            env=env,
            allow_faults=True,  # a traceback is asserted below, with the rest
        )
        assert crawl.returncode == 0, crawl.stderr[-3000:]
        assert "s=1" in site.hits("/a")[0].headers.get("Cookie", "")  # the cookie was taken
        assert proxy.requests == []
    assert "Traceback" not in crawl.stderr and "Public Suffix" not in crawl.stderr
    assert not (home / ".cache" / "python-tldextract").exists()
