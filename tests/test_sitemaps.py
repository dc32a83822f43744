"""Sitemaps as a source of URLs: the Sitemap: lines of the site's robots.txt
(read by default, --no-sitemap), --sitemap URL, sitemap indexes and .xml.gz
sitemaps; their URLs are audited like links, the sitemap (with the line of
the <loc>) or robots.txt being the referrer."""

from __future__ import annotations

import gzip
import json

import pytest

from tests.conftest import run_crawl
from tests.helpers.command import run
from tests.helpers.served import urlset
from tests.server import Route

XML = "application/xml"


@pytest.fixture
def site(server, far_server):
    n, far = server.url, far_server.url
    server.add(
        "/robots.txt",
        Route(
            200,
            f"User-agent: *\nDisallow: /private/\nSitemap: {n}/index.xml\nSitemap: /missing.xml\n",
            "text/plain",
        ),
    )
    server.add("/", '<a href="/a">a</a>')
    server.add("/a", "a")
    server.add(
        "/index.xml",
        Route(
            200,
            '<?xml version="1.0"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
            f"<sitemap><loc>{n}/pages.xml</loc></sitemap>\n"
            f"<sitemap><loc>{n}/extra.xml.gz</loc></sitemap>\n</sitemapindex>\n",
            XML,
        ),
    )
    server.add("/pages.xml", Route(200, urlset(f"{n}/", f"{n}/orphan", f"{n}/gone"), XML))
    server.add(
        "/extra.xml.gz",
        Route(
            200,
            gzip.compress(urlset(f"{n}/orphan2", f"{far}/listed", f"{n}/gone2").encode()),
            "application/gzip",
        ),
    )
    server.add("/orphan", '<a href="/orphan-child">child</a>')
    server.add("/orphan-child", "child")
    server.add("/orphan2", "o2")
    far_server.add("/listed", "far")
    return server, far_server


def _entries(tmp_path) -> dict[str, dict]:
    report = json.loads((tmp_path / "linkaudit-report.json").read_text())
    return {u["url"]: u for u in report["urls"]}


def test_robots_sitemaps_index_and_gzip(tmp_path, site):
    near, far = site
    n = near.url
    out = run(tmp_path, f"{n}/", "--delay", "0")
    assert out.returncode == 1, out.stdout + out.stderr  # /gone, listed in a sitemap
    urls = _entries(tmp_path)
    where = {u: [(r["url"], r["line"]) for r in e["referrers"]] for u, e in urls.items()}
    # referrers are kept in full for what is not ok (the contract)
    assert where[f"{n}/missing.xml"] == [(f"{n}/robots.txt", 4)]  # relative: resolved
    assert urls[f"{n}/index.xml"]["outcome"] == "ok" and urls[f"{n}/index.xml"]["depth"] == 1
    assert where[f"{n}/gone"] == [(f"{n}/pages.xml", 10)]
    assert urls[f"{n}/gone"]["outcome"] == "broken"
    assert urls[f"{n}/orphan"]["outcome"] == "ok" and urls[f"{n}/orphan"]["depth"] == 3
    assert urls[f"{n}/orphan-child"]["outcome"] == "ok"  # an orphan page is scanned
    assert urls[f"{n}/orphan2"]["outcome"] == "ok"
    assert where[f"{n}/gone2"] == [(f"{n}/extra.xml.gz", 10)]
    assert urls[f"{far.url}/listed"]["outcome"] == "ok"
    assert [h.method for h in far.log if h.path == "/listed"] == ["HEAD"]
    assert [h.method for h in near.log if h.path == "/pages.xml"] == ["HEAD", "GET"]


def test_no_sitemap_and_an_explicit_one(tmp_path, site):
    near, _far = site
    n = near.url
    crawl = run_crawl(tmp_path, "-a", f"start={n}/", "-a", "robots_sitemaps=false")
    assert {u["url"] for u in crawl.report["urls"]} == {f"{n}/", f"{n}/a"}
    assert not near.hits("/index.xml")
    out = run(tmp_path, f"{n}/", "--delay", "0", "--no-sitemap", "--sitemap", f"{n}/pages.xml")
    assert out.returncode == 1
    urls = _entries(tmp_path)
    assert f"{n}/orphan" in urls and f"{n}/orphan2" not in urls and f"{n}/index.xml" not in urls
    assert urls[f"{n}/pages.xml"]["depth"] == 1


def test_a_sitemap_that_is_not_one_is_a_warning(tmp_path, server):
    server.add("/", "home")
    server.add("/sitemap.xml", Route(200, "<html>not a sitemap</html>", XML))
    out = run(
        tmp_path, f"{server.url}/", "--delay", "0", "--sitemap", f"{server.url}/sitemap.xml", "-v"
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert "not a sitemap" in out.stderr


def test_the_sitemap_and_the_crawl_side_by_side(tmp_path, site):
    """Issue 17's sitemap section: listed URLs that are broken or redirect,
    listed near URLs no page links to, site pages no sitemap lists."""
    near, far = site
    n = near.url
    near.add("/moved", Route(301, "", headers={"Location": "/a"}))
    pages = urlset(f"{n}/", f"{n}/orphan", f"{n}/gone", f"{n}/moved", f"{n}/orphan")
    near.add("/pages.xml", Route(200, pages, XML))
    out = run(tmp_path, f"{n}/", "--delay", "0")
    report = json.loads((tmp_path / "linkaudit-report.json").read_text())
    assert report["sitemap"] == {
        "sitemaps": [f"{n}/extra.xml.gz", f"{n}/index.xml", f"{n}/pages.xml"],
        "urls": 7,  # /, /orphan (listed twice), /gone, /moved; /orphan2, far, /gone2
        "broken": [f"{n}/gone", f"{n}/gone2"],
        "redirects": [f"{n}/moved"],
        "orphans": [f"{n}/gone", f"{n}/gone2", f"{n}/moved", f"{n}/orphan", f"{n}/orphan2"],
        "missing": [f"{n}/a", f"{n}/orphan-child"],  # the start URL is listed
    }
    assert (
        "Sitemap: 7 URLs in 3 sitemap(s); 2 broken, 1 redirecting, 5 linked from no page, "
        "2 site pages not in it" in out.stdout
    )
    assert f"    {n}/orphan-child" in out.stdout


def test_no_sitemap_no_section(tmp_path, server):
    server.add("/", "home")
    run(tmp_path, f"{server.url}/", "--delay", "0")
    assert "sitemap" not in json.loads((tmp_path / "linkaudit-report.json").read_text())
