"""End to end: the links a browser fetches or navigates to that a page
holds in attributes other than ``href`` and ``src`` (``<link rel=preload
as=image imagesrcset>``, the obsolete ``background``, ``<form action>`` and
``formaction`` sent with GET) are checked, each reported with its page and
line; a form sent with POST is not requested (a browser never GETs it)."""

from __future__ import annotations

from tests.conftest import run_crawl

PAGE = """<!doctype html>
<html><head><title>Links a browser fetches</title>
<link rel="preload" as="image" href="/hero.png"
      imagesrcset="/hero-480.png 480w, /hero-missing.png 800w, /hero-1600.png 1600w"
      imagesizes="(max-width: 600px) 480px, 800px">
</head>
<body background="/paper-missing.png">
<table><tr><td background="/cell.png">cell</td></tr></table>
<form action="/search" method="get"><input name=q>
<button formaction="/search-missing">other search</button>
<button type="button" formaction="/never-button">not a submit button</button></form>
<form action="/post-only" method="post"><button formaction="/post-too">send</button></form>
</body></html>
"""


def test_links_a_browser_fetches_are_checked_with_page_and_line(tmp_path, server):
    for path in ("/hero.png", "/hero-480.png", "/hero-1600.png", "/cell.png", "/search"):
        server.add(path, "ok")
    server.add("/", PAGE)
    crawl = run_crawl(tmp_path, "-a", f"start={server.url}/")
    assert crawl.returncode == 0, crawl.stderr[-3000:]
    base = server.url
    home = f"{base}/"

    def outcome(path):
        """Its outcome, status and referrers (kept in full when not ok)."""
        entry = crawl.url(f"{base}{path}")
        assert entry["referrer_count"] == 1
        return entry["outcome"], entry["status"], entry["referrers"]

    # every imagesrcset candidate (a browser picks one by the viewport),
    # at the line where the <link> starts; imagesizes holds no URL
    assert outcome("/hero-missing.png") == ("broken", 404, [{"url": home, "line": 3}])
    assert outcome("/hero-480.png")[:2] == ("ok", 200)
    assert outcome("/hero-1600.png")[:2] == ("ok", 200)
    assert outcome("/hero.png")[:2] == ("ok", 200)
    assert outcome("/paper-missing.png") == ("broken", 404, [{"url": home, "line": 7}])
    assert outcome("/cell.png")[:2] == ("ok", 200)
    assert outcome("/search")[:2] == ("ok", 200)
    assert outcome("/search-missing") == ("broken", 404, [{"url": home, "line": 10}])
    urls = {entry["url"] for entry in crawl.report["urls"]}
    assert not {f"{base}{p}" for p in ("/never-button", "/post-only", "/post-too")} & urls
    assert not [h for h in server.log if "never" in h.path or "post" in h.path]
    assert not [u for u in urls if "480px" in u or "max-width" in u]
    assert server.hits("/hero-missing.png")  # asked, as a browser would
