"""End to end: a real site on 127.0.0.1, a real crawl, the report and the
server's request log."""

from __future__ import annotations

import pytest

from linkaudit import __version__
from tests.conftest import run_crawl
from tests.server import Route

BINARY = bytes(range(256)) * 8192  # 2 MiB, no extension, not HTML


@pytest.fixture
def site(server, far_server, closed_port):
    far = far_server.url
    server.add(
        "/robots.txt", Route(body="User-agent: *\nDisallow: /private/\n", content_type="text/plain")
    )
    server.add(
        "/",
        f"""<!doctype html>
<html><head><title>Home</title>
<link rel="stylesheet" href="/style.css"><link rel="preconnect" href="https://cdn.invalid">
</head><body>
<a href="/about.html">About</a>
<a href="about.html#team">About again</a>
<a href="/old">Old page</a>
<a href="/missing">Missing</a>
<a href="/gone">Gone</a>
<a href="/private/x.html">Private</a>
<a href="mailto:info@example.com">Mail</a> <a href="tel:+123">Call</a> <a href="javascript:void(0)">JS</a>
<a href="/song">A song (binary, no extension)</a>
<a href="/nohead">No HEAD</a>
<a href="/error">Server error</a>
<a
   class="multi"
   href="/multiline-target">split tag</a>
<img src="/pic.png" srcset="/pic-2x.png 2x, /pic-3x.png 3x">
<iframe src="/frame.html"></iframe>
<script src="/app.js"></script>
<a href="{far}/page">far page</a>
<a href="{far}/missing">far missing</a>
<a href="{far}/into">far redirect into the site</a>
<a href="http://127.0.0.1:{closed_port}/">closed port</a>
<a href="http://nosuch.invalid:8080/">no such host</a>
<a href="/loop1">loop</a>
<a href="/refresh.html">meta refresh</a>
<a href="http://exa mple.com/">bad URL</a>
<a href="/docs/">docs</a>
<a href="/tofar">redirect out of the site</a>
<a href="/latin1.html">latin-1 page</a>
</body></html>
""",
    )
    server.add(
        "/about.html",
        '<p>About us</p>\n<a href="/">home</a>\n<a href="/missing">missing again</a>\n',
    )
    server.add("/tofar", Route(307, "", headers={"Location": f"{far}/page"}))
    latin1 = '<a href="/caf\xe9">caf\xe9</a>'.encode("latin-1")
    server.add("/latin1.html", Route(body=latin1, content_type="text/html; charset=iso-8859-1"))
    server.add("/caf%C3%A9", "caf\u00e9")
    server.add("/old", Route(301, "", headers={"Location": "/about.html"}))
    server.add("/gone", Route(410, "gone"))
    server.add("/error", Route(500, "oops"))
    server.add("/nohead", Route(head_status=405, body='<a href="/from-nohead">x</a>'))
    server.add("/from-nohead", "ok")
    server.add("/song", Route(body=BINARY, content_type="application/octet-stream"))
    server.add("/style.css", Route(body="body{}", content_type="text/css"))
    for p in ("/pic.png", "/pic-2x.png", "/app.js"):
        server.add(p, Route(body=b"x", content_type="application/octet-stream"))
    server.add("/frame.html", '<base href="/sub/"><a href="deep.html">relative to base</a>')
    server.add("/sub/deep.html", "deep")
    server.add("/multiline-target", Route(404, "nope"))
    server.add("/loop1", Route(302, "", headers={"Location": "/loop2"}))
    server.add("/loop2", Route(302, "", headers={"Location": "loop1"}))
    server.add("/refresh.html", '<meta http-equiv="refresh" content="0; url=/refreshed.html">')
    server.add("/refreshed.html", "refreshed")
    # a link far down a long page: lxml's sourceline saturates at 65535
    server.add("/docs/", "<p>line</p>\n" * 70000 + '<a href="/docs/broken">x</a>\n')
    far_server.add("/page", '<a href="/never-followed">far pages are not scanned</a>')
    far_server.add("/into", Route(302, "", headers={"Location": f"{server.url}/from-far.html"}))
    server.add("/from-far.html", "welcome")
    return server


def test_full_audit(tmp_path, site, far_server, closed_port):
    crawl = run_crawl(tmp_path, "-a", f"start={site.url}/", "-a", "contact=webmaster@example.com")
    assert crawl.returncode == 0, crawl.stderr[-3000:]
    assert "Traceback" not in crawl.stderr  # unreachable hosts are one line each
    report = crawl.report
    base, far = site.url, far_server.url
    assert report["start_urls"] == [f"{base}/"]
    assert report["near_prefixes"] == [f"{base}/"]
    assert report["finish_reason"] == "finished" and report["complete"] is True

    def outcome(url):
        entry = crawl.url(url)
        return entry["outcome"], entry["status"], entry["method"]

    assert outcome(f"{base}/") == ("ok", 200, "GET")
    assert outcome(f"{base}/about.html") == ("ok", 200, "GET")
    assert outcome(f"{base}/missing") == ("broken", 404, "GET")  # HEAD 404, then GET 404
    assert outcome(f"{base}/gone") == ("broken", 410, "GET")
    assert outcome(f"{base}/error") == ("broken", 500, "GET")  # HEAD 500, then GET 500
    assert outcome(f"{base}/nohead") == ("ok", 200, "GET")  # HEAD 405, GET works
    assert outcome(f"{base}/from-nohead")[0] == "ok"  # the fallback GET page was scanned
    assert outcome(f"{base}/song") == ("ok", 200, "HEAD")
    assert crawl.url(f"{base}/song")["content_type"] == "application/octet-stream"
    assert outcome(f"{far}/page") == ("ok", 200, "HEAD")
    assert outcome(f"{far}/missing") == ("broken", 404, "GET")

    # redirects are links: recorded, target checked on its own merits
    old = crawl.url(f"{base}/old")
    assert (old["outcome"], old["status"], old["location"]) == (
        "redirect",
        301,
        f"{base}/about.html",
    )
    assert old["error"] == "301 Moved Permanently"
    assert crawl.url(f"{base}/about.html")["depth"] == 1  # linked directly too
    into = crawl.url(f"{far}/into")
    assert into["outcome"] == "redirect" and into["near"] is False
    landed = crawl.url(f"{base}/from-far.html")
    assert landed["outcome"] == "ok" and landed["near"] and landed["depth"] == 2
    assert landed["method"] == "GET"  # near HTML, scanned although reached from far
    assert landed["referrer_count"] == 1
    loop1, loop2 = crawl.url(f"{base}/loop1"), crawl.url(f"{base}/loop2")
    assert loop1["location"] == f"{base}/loop2" and loop2["location"] == f"{base}/loop1"
    assert loop1["referrer_count"] == 2  # the home page, and loop2's redirect
    assert {"url": f"{base}/loop1", "line": None} in loop2["referrers"]
    # each checked once: its HEAD and the GET whose redirect is recorded, or
    # one GET once the host's HEAD answers proved no hint (/nohead)
    for path in ("/loop1", "/loop2"):
        assert site.methods(path) in (["HEAD", "GET"], ["GET"])

    tofar = crawl.url(f"{base}/tofar")
    assert (tofar["outcome"], tofar["location"]) == ("redirect", f"{far}/page"), tofar
    assert crawl.url(f"{far}/page")["referrer_count"] == 2  # a link and the redirect
    assert far_server.methods("/page") == ["HEAD"]
    # non-ASCII hrefs become UTF-8 percent-encoding whatever the page's encoding
    assert crawl.url(f"{base}/caf%C3%A9")["outcome"] == "ok"
    # cookies are off: the Set-Cookie of the home page is never sent back
    assert not [h for h in site.log if "Cookie" in h.headers]

    # meta refresh is a link; <base href> changes resolution
    assert outcome(f"{base}/refreshed.html")[0] == "ok"
    assert crawl.url(f"{base}/refreshed.html")["depth"] == 2
    assert outcome(f"{base}/sub/deep.html")[0] == "ok"

    # network failures: broken, no status, an error a person understands
    closed = crawl.url(f"http://127.0.0.1:{closed_port}/")
    assert (closed["outcome"], closed["status"], closed["error"]) == (
        "broken",
        None,
        "Connection refused",
    )
    dns = crawl.url("http://nosuch.invalid:8080/")
    assert dns["outcome"] == "broken" and dns["status"] is None
    assert dns["error"] == "DNS lookup failed for nosuch.invalid"

    # not requested at all
    blocked = crawl.url(f"{base}/private/x.html")
    assert (blocked["outcome"], blocked["error"]) == ("blocked", "Disallowed by robots.txt")
    assert blocked["referrers"] == [{"url": f"{base}/", "line": 10}]
    for url, scheme in (
        ("mailto:info@example.com", "mailto"),
        ("tel:+123", "tel"),
        ("javascript:void(0)", "javascript"),
    ):
        entry = crawl.url(url)
        assert (entry["outcome"], entry["error"]) == ("excluded", f"Excluded: {scheme}: link")
    bad = crawl.url("http://exa mple.com/")
    assert bad["outcome"] == "broken" and bad["error"].startswith("Invalid URL: ")

    # referrers: every occurrence, with the line where the start tag begins
    missing = crawl.url(f"{base}/missing")
    assert missing["referrer_count"] == 2
    assert sorted(missing["referrers"], key=lambda r: r["url"]) == [
        {"url": f"{base}/", "line": 8},
        {"url": f"{base}/about.html", "line": 3},
    ]
    assert crawl.url(f"{base}/multiline-target")["referrers"] == [{"url": f"{base}/", "line": 15}]
    assert crawl.url(f"{base}/docs/broken")["referrers"] == [
        {"url": f"{base}/docs/", "line": 70001}
    ]
    assert crawl.url(f"{base}/about.html")["referrer_count"] == 3  # two links and a redirect
    for u in ("/pic.png", "/pic-2x.png", "/pic-3x.png", "/frame.html", "/app.js", "/style.css"):
        assert crawl.url(base + u)["outcome"] in ("ok", "broken")
    assert "https://cdn.invalid/" not in [u["url"] for u in report["urls"]]

    # the server's view: HEAD first, GET for near HTML pages (and near
    # stylesheets, read for their url() links) and after a HEAD that failed
    # or redirected; once /nohead's GET contradicted its HEAD, GETs only
    pages = {"/robots.txt", "/style.css", "/", "/about.html", "/nohead", "/error"}
    pages |= {"/frame.html", "/sub/deep.html", "/refresh.html", "/refreshed.html"}
    pages |= {"/from-far.html", "/from-nohead", "/docs/", "/latin1.html", "/caf%C3%A9"}
    gets = {h.path for h in site.hits(method="GET")}
    heads = {h.path: h.status for h in site.hits(method="HEAD")}
    assert report["summary"]["get_only_hosts"][0]["host"] == base.removeprefix("http://")
    for path in gets - pages:
        assert path not in heads or not 200 <= heads[path] < 300, path
    assert pages <= gets
    # a binary is never downloaded: a HEAD, or a GET stopped at the headers
    assert sum(h.body_bytes for h in site.hits("/song")) < len(BINARY) // 2
    # a far GET is the one after a HEAD that failed or redirected
    far_heads = {h.path: h.status for h in far_server.hits(method="HEAD")}
    for hit in far_server.hits(method="GET"):
        assert hit.path == "/robots.txt" or not 200 <= far_heads[hit.path] < 300, hit.path
    assert len(site.hits("/robots.txt")) == 1 and len(far_server.hits("/robots.txt")) == 1
    assert not far_server.hits("/never-followed")
    for path in {h.path for h in site.log if h.path != "/robots.txt"}:
        assert len(site.hits(path, "HEAD")) <= 1, path

    # politeness headers
    head = site.hits("/missing", "HEAD")[0]
    assert head.headers["User-Agent"].startswith(f"linkaudit/{__version__} (+http")
    assert head.headers["From"] == "webmaster@example.com"
    assert head.headers["Referer"] in (f"{base}/", f"{base}/about.html")

    summary = report["summary"]
    assert summary["pages"] == len(pages - {"/robots.txt", "/error", "/style.css"})  # HTML
    # + robots.txt of the closed port and of the DNS failure; their HEADs are
    # never sent: the host failure cache answers them
    assert summary["requests"] == len(site.log) + len(far_server.log) + 2
