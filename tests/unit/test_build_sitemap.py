"""The build's own sitemap, read at report time to tell a page only it lists
from an orphan (``linkaudit/localbuild/sitemap.py``): which ``<loc>`` names
which page of the build, and the bounds on what is read."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from linkaudit.localbuild.sitemap import BuildSitemap

BUILD = "http://127.0.0.1:4000/"
SETTINGS = {
    "LINKAUDIT_SITEMAP_MAXSIZE": 50 * 1024 * 1024,
    "LINKAUDIT_SITEMAP_MAXCOUNT": 1000,
    "LINKAUDIT_SITEMAP_MAXDEPTH": 3,
    "LINKAUDIT_MAX_URLS": 0,
}


def _urlset(*locs: str) -> str:
    entries = "".join(f"<url><loc>{loc}</loc></url>\n" for loc in locs)
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n{entries}</urlset>\n'
    )


def _index(*locs: str) -> str:
    entries = "".join(f"<sitemap><loc>{loc}</loc></sitemap>\n" for loc in locs)
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n{entries}'
        "</sitemapindex>\n"
    )


def _build(tmp_path: Path, files: dict[str, str | bytes]) -> str:
    for name, body in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(body, bytes):
            path.write_bytes(body)
        else:
            path.write_text(body)
    return str(tmp_path)


def _sitemap(root: str, root_url: str = "", **settings) -> BuildSitemap:
    return BuildSitemap(root, BUILD, root_url, {**SETTINGS, **settings})


def test_without_root_url_a_loc_names_the_page_its_path_ends_with(tmp_path):
    root = _build(
        tmp_path,
        {
            "sitemap.xml": _urlset(
                "https://example.com/docs/",
                "https://example.com/docs/guide/x.html",
                "https://example.com/docs/en/",
                "https://example.com/docs/a%20b.html",
            )
        },
    )
    sitemap = _sitemap(root)
    assert sitemap.lists(BUILD + "guide/x.html")
    assert sitemap.lists(BUILD + "x.html")  # (at the root: its path ends the <loc>'s)
    assert sitemap.lists(BUILD + "en/")
    assert sitemap.lists(BUILD + "a%20b.html")
    assert not sitemap.lists(BUILD + "guide/y.html")
    assert not sitemap.lists(BUILD + "ex.html")  # a whole segment, not a suffix of one
    assert not sitemap.lists(BUILD)  # the root: only a <loc> of the host's root names it
    assert not sitemap.lists("http://127.0.0.1:9/guide/x.html")  # not the build's


def test_with_root_url_a_loc_names_the_page_at_its_path_under_it(tmp_path):
    root = _build(
        tmp_path,
        {
            "sitemap.xml": _urlset(
                "https://Example.com:443/docs/guide/index.html",
                "https://example.com/docs/x.html",
                "https://example.com/blog/y.html",
                f"{BUILD}z.html",
            )
        },
    )
    sitemap = _sitemap(root, "https://example.com/docs/")
    assert sitemap.lists(BUILD + "guide/")
    assert sitemap.lists(BUILD + "x.html") and sitemap.lists(BUILD + "z.html")
    assert not sitemap.lists(BUILD + "y.html") and not sitemap.lists(BUILD + "blog/y.html")


def test_an_index_s_sitemaps_in_the_build_are_read_gzip_too(tmp_path):
    root = _build(
        tmp_path,
        {
            "sitemap.xml": _index(
                "https://example.com/en/sitemap.xml", "https://example.com/fr/sitemap.xml.gz"
            ),
            "en/sitemap.xml": _urlset("https://example.com/en/a.html"),
            "fr/sitemap.xml.gz": gzip.compress(_urlset("https://example.com/fr/b.html").encode()),
        },
    )
    sitemap = _sitemap(root)
    assert sitemap.lists(BUILD + "en/a.html") and sitemap.lists(BUILD + "fr/b.html")


def test_what_is_read_is_bounded(tmp_path):
    root = _build(
        tmp_path,
        {
            # an index that names itself, and a chain deeper than the bound
            "sitemap.xml": _index("https://example.com/sitemap.xml", "https://example.com/s1.xml"),
            "s1.xml": _index("https://example.com/s2.xml"),
            "s2.xml": _index("https://example.com/s3.xml"),
            "s3.xml": _urlset("https://example.com/deep.html"),
        },
    )
    assert not _sitemap(root).lists(BUILD + "deep.html")  # four levels: past the third
    assert _sitemap(root, LINKAUDIT_SITEMAP_MAXDEPTH=4).lists(BUILD + "deep.html")
    assert not _sitemap(root, LINKAUDIT_SITEMAP_MAXDEPTH=4, LINKAUDIT_SITEMAP_MAXCOUNT=2).lists(
        BUILD + "deep.html"
    )
    many = _build(
        tmp_path / "many",
        {"sitemap.xml": _urlset(*(f"https://example.com/p{i}.html" for i in range(50)))},
    )
    assert _sitemap(many).lists(BUILD + "p49.html")
    assert not _sitemap(many, LINKAUDIT_MAX_URLS=10).lists(BUILD + "p49.html")  # 10 kept
    assert not _sitemap(many, LINKAUDIT_SITEMAP_MAXSIZE=1000).lists(BUILD + "p0.html")
    bomb = _build(tmp_path / "bomb", {"sitemap.xml.gz": gzip.compress(b" " * 10_000_000)})
    assert not _sitemap(bomb, LINKAUDIT_SITEMAP_MAXSIZE=100_000).lists(BUILD + "p0.html")


@pytest.mark.parametrize("body", ["", "not xml", "<urlset><url><loc>::</loc></url></urlset>"])
def test_no_sitemap_or_a_bad_one_lists_nothing(tmp_path, body):
    assert not _sitemap(_build(tmp_path, {"x.html": "x"})).lists(BUILD + "x.html")
    root = _build(tmp_path, {"sitemap.xml": body})
    assert not _sitemap(root).lists(BUILD + "x.html")
