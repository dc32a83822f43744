"""Template links: one finding, not 500 (issue 17).  A link in a block the
site template repeats (a landmark, or the same run of links) is one group
with every page; the same target linked from a page's own content is its
page group."""

from __future__ import annotations

import json

import pytest

from linkaudit.rules.html.landmarks import landmarks
from linkaudit.rules.templates import block_of, page_blocks
from tests.conftest import validate
from tests.helpers.command import run


def test_landmarks_and_their_lines():
    page = "\n".join(
        [
            "<header><a href=/a>a</a></header>",  # 1
            '<div id="main-menu" class="x">',  # 2
            "<div><a href=/b>b</a></div>",  # 3
            "</div>",  # 4
            "<p><a href=/c>c</a></p>",  # 5
            '<section role="navigation"><a href=/d>d</a>',  # 6
            "</section>",  # 7
            "<FOOTER class=site>",  # 8
            "<nav><a href=/e>e</a></nav>",  # 9
            "</footer>",  # 10
            '<li class="menu-item"><a href=/f>f</a></li>',  # 11: an item, not a block
            '<p title="footer">',  # 12: a title is no id or class
        ]
    )
    assert landmarks(page) == [
        ("header", 1, 1),
        ("div#menu", 2, 4),
        ("section[role=navigation]", 6, 7),
        ("footer", 8, 10),
        ("nav", 9, 9),
    ]
    assert landmarks("<nav><a href=/x>x</a>") == [("nav", 1, 1)]  # never closed: to the end


def test_blocks_runs_and_which_block_a_link_is_in():
    links = [("u/a", 1), ("u/x", 3), ("u/y", 4), ("u/z", 5), ("u/c", 9), ("u/f", 12)]
    blocks = page_blocks(links, [("footer", 11, 13), ("nav", 1, 1)])
    names = [b[0] for b in blocks]
    assert names[:2] == ["footer", "nav"] and names[2].startswith("links:")
    assert blocks[2][1:3] == [3, 5]  # the run: three links on lines 3-5; /c alone is none
    assert block_of(blocks, "u/f", 12)[0] == "footer"
    assert block_of(blocks, "u/y", 4)[0].startswith("links:")
    assert block_of(blocks, "u/c", 9) is None
    assert block_of(blocks, "u/other", 12) is None  # the footer does not link to it
    assert page_blocks([("u/a", 1)], []) is None


FOOTER = """<footer>
<a href="/about">About</a>
<a href="/old-pricing">Pricing</a>
</footer>"""
MENU = """<div>
<a href="/">Home</a>
<a href="/old-menu">Old</a>
<a href="/about">About</a>
</div>"""


@pytest.fixture
def template_site(server):
    pages = ["/", "/p1", "/p2", "/p3", "/p4"]
    for i, path in enumerate(pages):
        links = "".join(f'<p><a href="{p}">page</a></p>\n' for p in pages[i + 1 : i + 2])
        own = '<p>See <a href="/old-pricing">our prices</a>.</p>\n' if path == "/p2" else ""
        gone = '<p><a href="/gone">gone</a></p>\n' if path in ("/p1", "/p3") else ""
        server.add(path, f"<!DOCTYPE html>\n{MENU}\n<h1>{path}</h1>\n{links}{own}{gone}{FOOTER}\n")
    server.add("/about", "about")
    return server


def test_template_link_is_one_group(tmp_path, template_site):
    n = template_site.url
    out = run(tmp_path, f"{n}/", "--delay", "0")
    assert out.returncode == 1, out.stderr
    report = json.loads((tmp_path / "linkaudit-report.json").read_text())
    validate(report)
    groups = {(g["target"][len(n) :], g["kind"], g.get("block")): g for g in report["groups"]}
    footer = groups[("/old-pricing", "template", "footer")]
    assert footer["pages"] == 5 and footer["status"] == 404
    assert sorted(r["url"][len(n) :] for r in footer["referrers"]) == [
        "/",
        "/p1",
        "/p2",
        "/p3",
        "/p4",
    ]
    for r in footer["referrers"]:  # each page's own line
        body = template_site.routes[r["url"][len(n) :]].body
        body = body.decode() if isinstance(body, bytes) else body
        assert r["line"] == body[: body.index('"/old-pricing">Pricing')].count("\n") + 1
    own = groups[("/old-pricing", "page", None)]
    assert own["pages"] == 1 and [(r["url"][len(n) :], r["line"]) for r in own["referrers"]] == [
        ("/p2", 9)
    ]
    menu = [g for key, g in groups.items() if key[0] == "/old-menu"]
    assert len(menu) == 1 and menu[0]["kind"] == "template" and menu[0]["pages"] == 5
    # the kind of block, and the run (every page's the same) behind it
    assert menu[0]["block"] == "links" and len(menu[0]["blocks"]) == 1
    assert menu[0]["blocks"][0].startswith("links:")
    gone = [g for key, g in groups.items() if key[0] == "/gone"]
    # two pages, but in their content (not a block): no template
    assert [(g["kind"], g["pages"]) for g in gone] == [("page", 2)]
    # a person reads one line per template finding, not one per page
    first = f"(first: {n}/, {n}/p1, {n}/p2 and 2 more)"
    assert f"in the site template (footer), on 5 pages {first}" in out.stdout
    assert out.stdout.count("/old-pricing") < 5
    md = run(tmp_path, f"{n}/", "--delay", "0", "--format", "markdown").stdout
    assert "in the site template (footer), on 5 pages" in md
    sarif = json.loads(run(tmp_path, f"{n}/", "--delay", "0", "--format", "sarif").stdout)
    results = [r for r in sarif["runs"][0]["results"] if "old-pricing" in r["message"]["text"]]
    # one finding: the template's five pages and the link in /p2's content,
    # the first place its location, the five others related
    (result,) = results
    assert "in the site template (footer), on 5 pages" in result["message"]["text"]
    assert len(result["relatedLocations"]) == 5


def _site_groups(tmp_path, server, pages):
    for path, body in pages.items():
        server.add(path, body)
    out = run(tmp_path, f"{server.url}/", "--delay", "0")
    assert out.returncode == 1, out.stderr
    report = json.loads((tmp_path / "linkaudit-report.json").read_text())
    validate(report)
    n = len(server.url)
    return sorted(
        (g["target"][n:], g["kind"], g.get("block"), g["pages"], tuple(g.get("blocks", ())))
        for g in report["groups"]
    )


def test_head_and_chrome_one_finding_per_kind_main_content_and_indexes_are_content(
    tmp_path, server
):
    """Issue 31: a link in every page's head is one finding (the body's
    links on the head's last line are not the head's);
    a broken link in a ``nav`` on some pages and a ``div[role=navigation]``
    on others is one navigation finding; a ``nav`` inside ``<main>`` is
    content; a run of links that two index pages repeat is content."""
    names = [f"/p{i}" for i in range(6)]
    index_run = "\n".join(f'<a href="/i{k}">i</a>' for k in range(3)) + '\n<a href="/gone-i">x</a>'
    pages = {}
    for i, path in enumerate(["/", *names]):
        chrome = (
            '<nav><a href="/gone-nav">n</a></nav>'
            if i % 2
            else '<div role="navigation"><a href="/gone-nav">n</a></div>'
        )
        nxt = f'<a href="{(["/", *names] + ["/"])[i + 1]}">next</a>'
        body = (  # the head and the content on one line, the chrome on the next
            '<!DOCTYPE html><html><head><link rel="stylesheet" href="/gone.css"></head>'
            f'<body><p><a href="/gone-a">a</a> {nxt}</p>\n{chrome}'
        )
        if i in (1, 2):  # in the main content: a nav of the page's own
            body += '\n<main>\n<nav><a href="/gone-main">m</a></nav>\n<p>text</p>\n</main>'
        if i in (3, 4):  # an index and its letter page: the same run
            body += f"\n<p>index</p>\n{index_run}\n<p>end</p>"
        pages[path] = body + "</body></html>\n"
    for k in range(3):
        pages[f"/i{k}"] = "<p>i</p>"
    n = len(pages) - 3  # the pages with links
    assert _site_groups(tmp_path, server, pages) == [
        ("/gone-a", "page", None, n, ()),  # content on every page, on the head's line
        ("/gone-i", "page", None, 2, ()),
        ("/gone-main", "page", None, 2, ()),
        ("/gone-nav", "template", "navigation", n, ("div[role=navigation]", "nav")),
        ("/gone.css", "template", "head", n, ("head",)),
    ]
