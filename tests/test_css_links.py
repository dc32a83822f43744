"""Links in CSS: <style> elements, style attributes and near stylesheets
(fetched with GET like near pages, never far ones), with their lines;
--no-css turns it off."""

from __future__ import annotations

import json

from tests.conftest import run_crawl
from tests.helpers.command import run
from tests.server import Route

CSS = "text/css; charset=utf-8"


def _site(server, far_server):
    far = far_server.url
    server.add(
        "/",
        "\n".join(
            [
                "<!doctype html><title>css</title>",
                '<link rel="stylesheet" href="/site.css">',
                f'<link rel="stylesheet" href="{far}/far.css">',
                "<style>",
                '  @import "/print.css";',
                "  body { background: url( '/bg.png' ) }",
                "  /* url(/commented.png) */",
                "</style>",
                '<div style="background-image: url(/hero.jpg)">hero</div>',
            ]
        ),
    )
    server.add("/site.css", Route(200, "h1 {}\n\n@font-face { src: url(fonts/a.woff2) }", CSS))
    server.add("/print.css", Route(200, "p { color: red }", CSS))
    server.add("/bg.png", Route(200, b"PNG", "image/png"))
    far_server.add("/far.css", Route(200, "body { background: url(/never.png) }", CSS))
    return server, far_server


def test_css_links_with_lines_near_stylesheets_scanned_far_not(tmp_path, server, far_server):
    near, far = _site(server, far_server)
    out = run(tmp_path, f"{near.url}/", "--delay", "0")
    assert out.returncode == 1, out.stdout + out.stderr
    report = json.loads((tmp_path / "linkaudit-report.json").read_text())
    urls = {u["url"]: u for u in report["urls"]}
    where = {u: [(r["url"], r["line"]) for r in e["referrers"]] for u, e in urls.items()}
    home = f"{near.url}/"
    assert urls[f"{near.url}/print.css"]["outcome"] == "ok"
    assert urls[f"{near.url}/bg.png"]["outcome"] == "ok"
    assert where[f"{near.url}/hero.jpg"] == [(home, 9)]  # a style attribute: its tag's line
    assert urls[f"{near.url}/fonts/a.woff2"]["outcome"] == "broken"
    assert where[f"{near.url}/fonts/a.woff2"] == [(f"{near.url}/site.css", 3)]
    assert f"{near.url}/commented.png" not in urls
    assert f"{far.url}/never.png" not in urls  # a far stylesheet is checked, not read
    assert [h.method for h in far.log if h.path == "/far.css"] == ["HEAD"]
    assert [h.method for h in near.log if h.path == "/site.css"] == ["HEAD", "GET"]
    # a stylesheet is not a page: pages counts HTML only
    assert report["summary"]["pages"] == 1
    assert "page" not in urls[f"{near.url}/site.css"]


def test_no_css(tmp_path, server, far_server):
    near, _far = _site(server, far_server)
    crawl = run_crawl(tmp_path, "-a", f"start={near.url}/", "-a", "css=false")
    urls = {u["url"] for u in crawl.report["urls"]}
    assert f"{near.url}/hero.jpg" not in urls and f"{near.url}/bg.png" not in urls
    assert f"{near.url}/site.css" in urls  # a <link href> is a link either way
    assert [h.method for h in near.log if h.path == "/site.css"] == ["HEAD"]
    out = run(tmp_path, f"{near.url}/", "--delay", "0", "--no-css")
    assert out.returncode == 0, out.stdout
