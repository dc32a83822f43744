"""Page statistics (seed: spider.pl): each near page scanned carries its
size, Last-Modified, number of links and of images; nothing else does."""

from __future__ import annotations

import gzip

from tests.conftest import run_crawl
from tests.server import Route

HOME = """<!doctype html><html><head><link rel=stylesheet href=/s.css></head><body>
<a href="/a.html">a</a> <a href="/a.html#again">a again</a>
<img src="/logo.png" alt=""> <img src="/photo.png" srcset="/photo-2x.png 2x">
<a href="/moved">moved</a> <a href="{far}/x">far</a>
</body></html>
"""


def test_scanned_pages_carry_bytes_last_modified_links_and_images(tmp_path, server, far_server):
    home = HOME.format(far=far_server.url).encode()
    server.add("/", Route(body=home, headers={"Last-Modified": "Wed, 21 Oct 2015 07:28:00 GMT"}))
    inner = b"<p>no links, no date</p>" * 100
    server.add(
        "/a.html",
        Route(body=gzip.compress(inner), headers={"Content-Encoding": "gzip"}),
    )
    server.add("/moved", Route(301, headers={"Location": "/a.html"}))
    for path in ("/s.css", "/logo.png", "/photo.png", "/photo-2x.png"):
        server.add(path, Route(body=b"x", content_type="image/png"))
    far_server.add("/x", "<a href=/y>far pages are never scanned</a>")

    crawl = run_crawl(tmp_path, "-a", f"start={server.url}/")

    assert crawl.url(f"{server.url}/")["page"] == {
        "bytes": len(home),
        "last_modified": "2015-10-21T07:28:00+00:00",
        "links": 8,  # s.css, a.html twice, logo, photo, photo-2x, moved, far
        "images": 2,
    }
    # the size of the page, not of what travelled gzipped
    assert crawl.url(f"{server.url}/a.html")["page"] == {
        "bytes": len(inner),
        "last_modified": None,
        "links": 0,
        "images": 0,
    }
    for url in (f"{server.url}/moved", f"{server.url}/logo.png", f"{far_server.url}/x"):
        assert "page" not in crawl.url(url), url
    # every entry keeps its referrer count: a.html is linked twice from home
    # and once by the redirect
    assert crawl.url(f"{server.url}/a.html")["referrer_count"] == 3
