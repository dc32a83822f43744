"""``linkaudit DIR`` reads every page of the build (issue 41): the pages no
link reaches (orphans, and those only the sitemap lists) with their own
links checked, the files that are no page (unrendered templates) named
once, where the audit starts (``--start``, ``DIR/index.html``, the
shallowest index page) and ``../`` from a start page below the root, the
``href`` each finding's place wrote, and a symbolic link out of the build
as one outcome; on builds written here and on Debian's doc packages."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.conftest import SCHEMA, VALIDATOR
from tests.helpers.command import refused, run
from tests.server import TestServer

PYTHON_DOCS = Path("/usr/share/doc/python3.11/html")
POSTGRESQL = Path("/usr/share/doc/postgresql-doc-15")


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def _report(tmp_path: Path, name: str = "r.json") -> dict:
    return json.loads((tmp_path / name).read_text())


def _by_path(report: dict) -> dict[str, dict]:
    """The build's entries by their path inside it (the start page's URL
    less its path inside the build: the build's address)."""
    build, start = report["build"], report["start_urls"][0]
    inside = os.path.relpath(build["start"], build["directory"])
    if inside.endswith("index.html"):
        inside = inside[: -len("index.html")]
    base = start[: len(start) - len(inside)]
    return {e["url"][len(base) :]: e for e in report["urls"] if e["url"].startswith(base)}


# -- every page, linked or not ---------------------------------------------------

ORPHANS = {
    "index.html": '<a href="a.html">a</a>',
    "a.html": '<h2 id="top">A</h2>\n<a href="#top">top</a>',  # reached, links to itself
    # no link reaches these, though they link to themselves and to each other
    "orphan.html": '<p id="top">x</p>\n<a href="#top">top</a>\n<a href="gone.html">gone</a>',
    "isle1.html": '<a href="isle2.html">2</a>',
    "isle2.html": '<a href="isle1.html">1</a>\n<a href="isle-gone.html">x</a>',
    "deep/er/page.html": "<p>no links</p>",
    # only the build's own sitemap lists it (without the site's address: its path)
    "listed.html": '<a href="listed-gone.html">x</a>',
    "sitemap.xml": (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
        "<url><loc>https://example.com/docs/</loc></url>\n"
        "<url><loc>https://example.com/docs/listed.html</loc></url>\n"
        "</urlset>\n"
    ),
    # the host's own 404 page (MkDocs'): no orphan, and no soft 404 for saying so
    "404.html": "<title>404 - Not found</title>\n<h1>404 - Not found</h1>",
    ".git/hooks/x.html": '<a href="never.html">n</a>',  # never served, never read
    "img/logo.png": "PNG",
}


@pytest.mark.parametrize(
    "route",
    [
        [],
        ["-s", "LINKAUDIT_LOCAL_READ=false"],  # the build served on 127.0.0.1 and crawled
        ["--root-url", "https://example.com/docs/"],  # the sitemap's <loc> mapped exactly
    ],
    ids=["walk", "http", "root-url"],
)
def test_pages_no_link_reaches_are_read_and_their_links_checked(tmp_path, route):
    _write(tmp_path / "public", ORPHANS)
    out = run(tmp_path, "public", *route, "--report", "r.json")
    assert out.returncode == 1, out.stdout + out.stderr
    report = _report(tmp_path)
    entries = _by_path(report)
    orphans = {path: e["orphan"] for path, e in entries.items() if "orphan" in e}
    assert orphans == {
        "orphan.html": "unlinked",
        "isle1.html": "unlinked",
        "isle2.html": "unlinked",
        "deep/er/page.html": "unlinked",
        "listed.html": "sitemap",
    }
    broken = {
        path: [(r["file"], r["line"]) for r in e["referrers"]]
        for path, e in entries.items()
        if e["outcome"] == "broken"
    }
    assert broken == {  # an orphan's broken links are findings, on its own file and line
        "gone.html": [("public/orphan.html", 3)],
        "isle-gone.html": [("public/isle2.html", 2)],
        "listed-gone.html": [("public/listed.html", 1)],
    }
    assert "never.html" not in json.dumps(report)
    assert "soft_404" not in entries["404.html"] and not report["summary"].get("soft_404")
    build = report["build"]
    assert {k: build[k] for k in ("pages", "reached", "orphans", "sitemap_only")} == {
        "pages": 8,  # index, a, 404.html and the five orphans
        "reached": 3,
        "orphans": 4,
        "sitemap_only": 1,
    }
    assert build["start"] == "public/index.html" and build["start_from"] == "index.html"
    assert build["not_pages"] == [] and build["symlinks_out"] == 0
    VALIDATOR.validate(report)  # every field documented (docs/report.schema.json)
    assert set(build) <= set(SCHEMA["properties"]["build"]["properties"])
    summary = report["summary"]
    assert (summary["orphans"], summary["sitemap_only"], summary["symlinks_out"]) == (4, 1, 0)
    first = out.stdout.splitlines()[0]
    deployed = " deployed at https://example.com/docs/" if "--root-url" in route else ""
    assert first == (
        f"linkaudit: public (a build{deployed}; start public/index.html): 8 pages read, "
        "3 reached by links, 4 orphans, 1 only in the sitemap"
    )


def test_a_limit_on_depth_leaves_the_unreached_pages_alone_and_says_so(tmp_path):
    """--depth: a page past it may link to any other, so none is called an
    orphan; the first line says the pages no link reached were not sought."""
    _write(tmp_path / "public", ORPHANS)
    out = run(tmp_path, "public", "--depth", "3", "--report", "r.json")
    report = _report(tmp_path)
    assert not [e for e in report["urls"] if "orphan" in e]
    assert "gone.html" not in {p for p in _by_path(report)}
    assert report["build"]["orphans_sought"] is False
    assert out.stdout.splitlines()[0].endswith(
        "2 pages read, 2 reached by links, 0 orphans, the pages no link reached not looked for"
    ), out.stdout


# -- files that are no page --------------------------------------------------------

TEMPLATES = {
    "index.html": "\n".join(
        [
            "<!doctype html>",
            "<p>Write <code>{{ page.url }}</code> or <code>{% url 'x' %}</code> in a template.",
            '<a href="a.html">a</a> <a href="b.html">b</a> <a href="c.html">c</a>',
            '<a href="{{ config.repo_url }}">repo</a>',  # one mistake among links: a page
        ]
    ),
    "a.html": "a",
    "b.html": "b",
    "c.html": "c",
    # MkDocs' custom_dir inside docs_dir: the theme's override copied as it is
    "overrides/main.html": (
        '{% extends "base.html" %}\n{% block content %}\n'
        '<a href="{{ page.edit_url }}">edit</a> <a href="{{ config.repo_url }}">repo</a>\n'
        "{% endblock %}\n"
    ),
    # a theme's partial in a static folder: every link a template expression
    "_static/partials/nav.html": (
        '<nav><a href="{{ nav.prev.url }}">prev</a> <a href="{{ nav.next.url }}">next</a>\n'
        '<a href="{{ base_url }}/search.html">search</a> <a href="<%= home %>">home</a></nav>\n'
    ),
}


def test_an_unrendered_template_is_named_once_not_scanned(tmp_path):
    _write(tmp_path / "public", TEMPLATES)
    out = run(tmp_path, "public", "--report", "r.json")
    assert out.returncode == 1, out.stdout + out.stderr
    report = _report(tmp_path)
    entries = _by_path(report)
    # the page's one mistaken link is broken; nothing of the templates is a link
    assert {p for p, e in entries.items() if e["outcome"] == "broken"} == {
        "%7B%7B%20config.repo_url%20%7D%7D"
    }
    assert "edit_url" not in json.dumps(report["urls"]) and "nav.prev" not in out.stdout
    assert "overrides/main.html" not in entries and "_static/partials/nav.html" not in entries
    assert report["build"]["not_pages"] == [
        {
            "file": "public/_static/partials/nav.html",
            "reason": "a template: 4 of its 4 links are template expressions ({{, {%, <%)",
        },
        {
            "file": "public/overrides/main.html",
            "reason": "a template: it begins with '{%', not with markup",
        },
    ]
    assert report["build"]["pages"] == 4 and report["summary"]["orphans"] == 0
    assert out.stdout.splitlines()[0].endswith(
        "4 pages read, 4 reached by links, 0 orphans, 2 files that are not pages"
    ), out.stdout


# -- where the build starts ------------------------------------------------------------

LANGUAGES = {
    # no index.html at the root: the English index is the shallowest
    "en/index.html": "\n".join(
        [
            '<link rel="stylesheet" href="../_static/style.css">',
            '<a href="../fr/">fr</a> <a href="../fr/about.html">about</a>',
            '<a href="guide/install.html">install</a>',
            '<img src="../_static/img/logo.png">',
            '<a href="../missing.html">missing</a>',
        ]
    ),
    "en/guide/install.html": '<a href="../../_static/style.css">css</a>\n<a href="../">up</a>',
    "fr/index.html": '<a href="../en/">en</a>',
    "fr/about.html": '<a href="../en/index.html">en</a>',
    "_static/style.css": "body { background: url(img/logo.png) }",
    "_static/img/logo.png": "PNG",
    "deeper/still/index.html": "deeper",  # an index page, but deeper
    "aaa.htm/x.txt": "not a page",
}


def test_a_build_without_a_root_index_starts_at_the_shallowest_index_page(tmp_path):
    _write(tmp_path / "public", LANGUAGES)
    out = run(tmp_path, "public", "--report", "r.json")
    assert out.returncode == 1, out.stdout + out.stderr
    report = _report(tmp_path)
    entries = _by_path(report)
    # the ../ links that stay inside the build are the build's: none broken
    assert {p for p, e in entries.items() if e["outcome"] == "broken"} == {"missing.html"}
    for path in ("_static/style.css", "_static/img/logo.png", "fr/", "fr/about.html"):
        assert entries[path]["outcome"] == "ok", path
    assert report["build"]["start"] == "public/en/index.html"
    assert report["build"]["start_from"] == "shallowest index page"
    assert out.stdout.splitlines()[0] == (
        "linkaudit: public (a build; start public/en/index.html, the shallowest index page): "
        "5 pages read, 4 reached by links, 1 orphan"
    )
    assert entries["deeper/still/"]["orphan"] == "unlinked"
    (missing,) = entries["missing.html"]["referrers"]
    assert (missing["file"], missing["line"], missing["href"]) == (
        "public/en/index.html",
        5,
        "../missing.html",
    )


@pytest.mark.parametrize(
    "given", ["fr/about.html", "public/fr/about.html", "./public/fr/about.html"]
)
def test_start_names_the_page_the_audit_starts_from(tmp_path, given):
    _write(tmp_path / "public", LANGUAGES)
    out = run(tmp_path, "public", "--start", given, "--report", "r.json")
    assert out.returncode == 1, out.stdout + out.stderr
    report = _report(tmp_path)
    assert report["build"]["start"] == "public/fr/about.html"
    assert report["build"]["start_from"] == "--start"
    assert out.stdout.splitlines()[0].startswith(
        "linkaudit: public (a build; start public/fr/about.html, --start): 5 pages read, "
        "4 reached by links"
    ), out.stdout
    entries = _by_path(report)
    assert entries["fr/about.html"]["depth"] == 0 and entries["en/index.html"]["depth"] == 1
    assert {p for p, e in entries.items() if e["outcome"] == "broken"} == {"missing.html"}


def test_a_start_outside_the_build_or_not_a_page_is_one_line(tmp_path):
    _write(tmp_path / "public", LANGUAGES)
    (tmp_path / "elsewhere.html").write_text("x")
    (tmp_path / "public" / "away").symlink_to(tmp_path)
    for args, words in (
        (("--start", "elsewhere.html"), "--start: elsewhere.html is outside the build directory"),
        (("--start", "public/../elsewhere.html"), "is outside the build directory public"),
        (("--start", "away/elsewhere.html"), "away/elsewhere.html is outside the build"),
        (("--start", "/etc/hostname"), "--start: /etc/hostname is outside the build directory"),
        (("--start", "nothere.html"), "--start: nothere.html: no such file in the build"),
        (("--start", "_static/style.css"), "_static/style.css is not a page the build serves"),
        (("--start", "_static"), "_static is a folder without an index.html: name a page"),
    ):
        refused(run(tmp_path, "public", *args), words)
    refused(
        run(tmp_path, "http://127.0.0.1:9/", "--start", "index.html"),
        "--start: only with a build directory",
    )
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "logo.png").write_text("PNG")
    refused(run(tmp_path, "empty"), "empty: no HTML page in the build directory")


def test_a_real_build_below_its_package_s_root_starts_at_its_index(tmp_path):
    """Debian's python3.11-doc: /usr/share/doc/python3.11 holds README
    files and html/; the Sphinx build's index is html/index.html, whose
    pages' ``../`` links stay inside the directory given."""
    if not (PYTHON_DOCS / "index.html").is_file():
        pytest.skip("python3.11-doc is not installed (tests/setup.sh)")
    out = run(tmp_path, str(PYTHON_DOCS.parent), "--skip-far", "--report", "r.json")
    report = _report(tmp_path)
    build = report["build"]
    assert build["start"] == f"{PYTHON_DOCS}/index.html"
    assert build["start_from"] == "shallowest index page"
    broken = {p for p, e in _by_path(report).items() if e["outcome"] == "broken"}
    # root-relative links are the build's root's, the directory given (as
    # served there): the pages' "/bugs.html" is missing; no "../" is broken
    assert broken == {"bugs.html", "license.html", "html/whatsnew/changelog.html"}, broken
    assert out.stdout.splitlines()[0].startswith(
        f"linkaudit: {PYTHON_DOCS.parent} (a build; start {PYTHON_DOCS}/index.html, "
        "the shallowest index page): "
    ), out.stdout


# -- the href as written -----------------------------------------------------------------


def test_each_place_shows_the_href_it_wrote_when_it_differs(tmp_path):
    far = TestServer(host="127.0.0.2")
    far.add("/ok", "far")
    _write(
        tmp_path / "public",
        {
            "index.html": '<a href="guide/">guide</a>\n<a href="guide/a.html#nope">frag</a>',
            "guide/index.html": "\n".join(
                [
                    '<a href="../missing.html">up</a> <a href="./../missing.html">again</a>',
                    '<a href="https;//example.com/x">typo</a>',
                    '<a href="  nothere.html?x=1&amp;y=2  ">query</a>',
                    '<a href="../../outside.html">leaves the build</a>',
                    '<a href="/blog/">the site, outside the docs</a>',
                    '<a href="https://example.com/docs/gone.html">own address</a>',
                    "<a href='{far}/gone'>written whole</a>",
                    '<a href="a.html#top">fine</a>',
                ]
            ),
            "guide/a.html": '<h1 id="top">A</h1>',
        },
    )
    page = tmp_path / "public" / "guide" / "index.html"
    with far:
        page.write_text(page.read_text().replace("{far}", far.url))
        out = run(
            tmp_path,
            "public",
            "--root-url",
            "https://example.com/docs/",
            "--check-fragments",
            "--report",
            "r.json",
        )
    assert out.returncode == 1, out.stdout + out.stderr
    report = _report(tmp_path)
    urls = {e["url"]: e for e in report["urls"]}
    docs = report["start_urls"][0]
    origin = docs[: -len("docs/")]

    def places(url: str) -> list[tuple[str, int, str | None]]:
        return [(r["file"], r["line"], r.get("href")) for r in urls[url]["referrers"]]

    page = "public/guide/index.html"
    assert places(f"{docs}missing.html") == [
        (page, 1, "../missing.html"),
        (page, 1, "./../missing.html"),
    ]
    assert places(f"{docs}guide/https;//example.com/x") == [(page, 2, "https;//example.com/x")]
    assert places(f"{docs}guide/nothere.html?x=1&y=2") == [(page, 3, "nothere.html?x=1&y=2")]
    # links that leave the build: nothing is served outside /docs/ (a 404)
    assert places(f"{origin}outside.html") == [(page, 4, "../../outside.html")]
    assert places(f"{origin}blog/") == [(page, 5, "/blog/")]
    # written as the target's URL (the deployed one, as outputs name it): nothing to add
    assert places(f"{docs}gone.html") == [(page, 6, None)]
    assert places(f"{far.url}/gone") == [(page, 7, None)]
    (gap,) = urls[f"{docs}guide/a.html"]["missing_fragments"]
    assert [(r["file"], r["line"], r["href"]) for r in gap["referrers"]] == [
        ("public/index.html", 2, "guide/a.html#nope")
    ]
    # --skip-far: the links out of the build are excluded, their hrefs shown;
    # a far link left out is not read again (written whole)
    run(
        tmp_path,
        "public",
        "--root-url",
        "https://example.com/docs/",
        "--skip-far",
        "--report",
        "r.json",
    )
    urls = {e["url"]: e for e in _report(tmp_path)["urls"]}
    assert urls[f"{origin}outside.html"]["outcome"] == "excluded"
    assert places(f"{origin}outside.html") == [(page, 4, "../../outside.html")]
    assert places(f"{origin}blog/") == [(page, 5, "/blog/")]
    assert places(f"{far.url}/gone") == [(page, 7, None)]


# -- a symbolic link out of the build ------------------------------------------------------


def test_a_symbolic_link_out_of_the_build_is_ok_with_its_target(tmp_path):
    outside = tmp_path / "javascript"
    outside.mkdir()
    (outside / "jquery.js").write_text("// jquery")
    _write(
        tmp_path / "public",
        {"index.html": '<script src="_static/jquery.js"></script>\n<a href="b.html">b</a>'},
    )
    (tmp_path / "public" / "_static").mkdir()
    (tmp_path / "public" / "_static" / "jquery.js").symlink_to("../../javascript/jquery.js")
    (tmp_path / "public" / "b.html").symlink_to(outside / "jquery.js")  # a page, out too
    out = run(tmp_path, "public", "--report", "r.json")
    assert out.returncode == 0, out.stdout + out.stderr
    report = _report(tmp_path)
    entries = _by_path(report)
    js, b = entries["_static/jquery.js"], entries["b.html"]
    assert (js["outcome"], js["symlink_out"]) == ("ok", "../../javascript/jquery.js")
    assert (b["outcome"], b["symlink_out"]) == ("ok", str(outside / "jquery.js"))
    assert js["warning"] == (
        "a symbolic link out of the build directory, to ../../javascript/jquery.js: "
        "served here, but a copy deployed without it would break"
    )
    assert report["summary"]["symlinks_out"] == report["build"]["symlinks_out"] == 2
    assert out.stdout.splitlines()[0].endswith(
        "1 page read, 1 reached by links, 0 orphans, 2 symbolic links out of the build"
    ), out.stdout


# -- a real Sphinx build ------------------------------------------------------------------


def test_the_python_docs_are_read_whole(tmp_path):
    """Debian's python3.11-doc (Sphinx): every one of its HTML files is a
    page read; the four no link reaches are orphans (two included pieces
    and the pages they alone link to), and the two symbolic links out of
    the build (jQuery and Underscore, to /usr/share/javascript) are ``ok``
    with their targets."""
    if not (PYTHON_DOCS / "index.html").is_file():
        pytest.skip("python3.11-doc is not installed (tests/setup.sh)")
    files = sum(1 for _ in PYTHON_DOCS.rglob("*.html"))
    out = run(tmp_path, str(PYTHON_DOCS), "--skip-far", "--report", "r.json")
    report = _report(tmp_path)
    build = report["build"]
    assert build["pages"] == files
    assert build["reached"] + build["orphans"] + build["sitemap_only"] == files
    entries = _by_path(report)
    orphans = sorted(p for p, e in entries.items() if e.get("orphan") == "unlinked")
    assert "distutils/_setuptools_disclaimer.html" in orphans, orphans
    assert "includes/wasm-notavail.html" in orphans, orphans
    assert len(orphans) == build["orphans"] == report["summary"]["orphans"]
    out_of_build = {p: e["symlink_out"] for p, e in entries.items() if "symlink_out" in e}
    assert out_of_build == {
        "_static/jquery.js": "../../../../javascript/jquery/jquery.js",
        "_static/underscore.js": "../../../../javascript/underscore/underscore.js",
    }
    assert report["summary"]["symlinks_out"] == 2
    changelog = entries["whatsnew/changelog.html"]
    assert {r.get("href") for r in changelog["referrers"]} >= {
        "whatsnew/changelog.html",  # from contents.html
        "changelog.html",  # from whatsnew/index.html
    }
    assert out.stdout.splitlines()[0] == (
        f"linkaudit: {PYTHON_DOCS} (a build; start {PYTHON_DOCS}/index.html): "
        f"{files} pages read, {build['reached']} reached by links, {build['orphans']} orphans, "
        "2 symbolic links out of the build"
    )
