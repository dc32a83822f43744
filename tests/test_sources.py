"""--sources and --changed-since: the source readers' lines (markdown-it-py,
docutils), the matcher's strictness, and audits of small builds whose
sources sit beside them, through the command (the real projects:
tests/test_sources_proof.py)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from urllib.parse import urljoin

import pytest

from linkaudit.sources.built import read_built
from linkaudit.sources.markdown import markdown_links
from linkaudit.sources.match import Rules, match_page
from linkaudit.sources.pages import _first_arrays
from linkaudit.sources.rest import rest_links
from tests.helpers.command import refused, run


def _lines(links, kind=None):
    return [(s.target, s.line, s.defined) for s in links if kind is None or s.kind == kind]


def test_markdown_links_are_on_the_lines_that_write_them():
    text = "\n".join(
        [
            "---",  # 1
            "title: t",
            "---",
            "Para [x](a.md) and [y][Ref] then",  # 4
            "[x](a.md) again <https://b.example/c>",  # 5: the same target, its own line
            "and [![badge](img.png)](https://c.example/) <a href='raw.html'>r</a>",  # 6
            "",
            "[ref]: <https://r.example/a b> 'title'",  # 8
            "",
            "!!! note",
            "    in a note [n](note.md)",  # 11
            "",
            '=== "Tab"',
            "    in a tab [t](tab.md)",  # 14
            "",
            "| a | b |",
            "|---|---|",
            "| [cell](cell.md) | z |",  # 18
            "",
            "```",
            "[code](not-a-link.md)",
            "```",
            '<div><a href="block.html">b</a></div>',  # 23
            "",
            "[wrapped",
            "text](wrapped.md)",  # 26: the line of the target
        ]
    )
    links = markdown_links("/x/a.md", text, "mkdocs")
    assert _lines(links) == [
        ("a.md", 4, None),
        ("https://r.example/a b", 4, 8),
        ("a.md", 5, None),
        ("https://b.example/c", 5, None),
        ("img.png", 6, None),
        ("https://c.example/", 6, None),
        ("raw.html", 6, None),
        ("note.md", 11, None),
        ("tab.md", 14, None),
        ("cell.md", 18, None),
        ("block.html", 23, None),
        ("wrapped.md", 26, None),
    ]


def test_liquid_and_myst_are_read_as_their_tools_write_them():
    jekyll = "See [docs]({{ site.baseurl }}/docs/x/) and [y]({% link y.md %}).\n"
    assert _lines(markdown_links("/s/a.md", jekyll, "jekyll")) == [
        ("{{ site.baseurl }}/docs/x/", 1, None),
        ("{% link y.md %}", 1, None),
    ]
    myst = "\n".join(
        [
            "A {ref}`text <label>` and {doc}`other`.",  # 1
            "",
            "```{note}",
            ":class: x",
            "In a note [n](note.md).",  # 5
            "```",
            "",
            "```{eval-rst}",
            "Some `reST <https://rst.example/>`_.",  # 9
            "```",
            "",
            "```python",
            "x = '[not](a-link.md)'",
            "```",
        ]
    )
    links = markdown_links("/s/a.md", myst, "myst", rest=rest_links)
    assert [(s.target, s.line, s.kind) for s in links] == [
        ("label", 1, "role:ref"),
        ("other", 1, "role:doc"),
        ("note.md", 5, "inline"),
        ("https://rst.example/", 9, "rst"),
    ]


def test_rest_links_and_the_lines_of_their_definitions(tmp_path):
    (tmp_path / "inc.txt").write_text("Included `inc <https://inc.example/>`_ here.\n")
    text = "\n".join(
        [
            "Title",
            "=====",
            "",
            "First line",  # 4
            "second `named link`_ and `emb <https://e.example/>`_ and",  # 5
            "third `anon`__ |sub|_ `alias <Named link_>`_",  # 6
            "",
            "__ https://anon.example/",  # 8
            "",
            ".. _named link: https://named.example/",  # 10
            "",
            ".. |sub| replace:: subst",
            "",
            ".. _sub: https://sub.example/",  # 14
            "",
            "- :doc:`../tutorial/views` and :func:`~flask.Flask.route`",  # 16
            "",
            ".. versionchanged:: 2.0",
            "   Changed `v <https://v.example/>`_.",  # 19
            "",
            ".. code-block:: python",
            "",
            "   x = 'https://code.example/'",
            "",
            ".. include:: inc.txt",
            "",
            "A wrapped `text that goes",
            "on <https://wrapped.example/>`_ link.",  # 28: the target's line
            "",
            ".. raw:: html",
            "",
            '   <a href="raw.html">raw</a>',  # 32
            "",
            ".. unknown-directive:: arg",
            "",
            "   In it `u <https://u.example/>`_.",  # 36
        ]
    )
    links = rest_links(str(tmp_path / "a.rst"), text)
    got = [(s.target, s.line, s.defined, Path(s.file).name) for s in links]
    assert got == [
        ("https://named.example/", 5, 10, "a.rst"),
        ("https://e.example/", 5, None, "a.rst"),
        ("https://anon.example/", 6, 8, "a.rst"),
        ("https://sub.example/", 6, 14, "a.rst"),
        ("https://named.example/", 6, 10, "a.rst"),
        ("../tutorial/views", 16, None, "a.rst"),
        ("flask.Flask.route", 16, None, "a.rst"),
        ("https://v.example/", 19, None, "a.rst"),
        ("https://inc.example/", 1, None, "inc.txt"),
        ("https://wrapped.example/", 28, None, "a.rst"),
        ("raw.html", 32, None, "a.rst"),
        ("https://u.example/", 36, None, "a.rst"),
    ]


def test_rest_never_reads_a_url_nor_a_file_but_an_include(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("`leak <https://leak.example/>`_\n")
    text = f".. raw:: html\n   :file: {secret}\n\n.. csv-table::\n   :file: {secret}\n"
    assert rest_links(str(tmp_path / "a.rst"), text) == []


def test_sources_that_would_run_code_or_never_end_are_only_read(tmp_path):
    """conf.py is parsed, never run; a MyST include of itself ends."""
    from linkaudit.sources.layout import detect

    marker = tmp_path / "ran"
    docs = tmp_path / "docs"
    (docs / "_build" / "html").mkdir(parents=True)
    (docs / "_build" / "html" / "searchindex.js").write_text('Search.setIndex({"docnames":[]})')
    (docs / "conf.py").write_text(
        f"open({str(marker)!r}, 'w').write('x')\n"
        "extlinks = {'issue': ('https://example.com/issues/%s', '#%s')}\n"
        "templates_path = ['_tpl']\n"
    )
    layout = detect(str(docs / "_build" / "html"), str(tmp_path))
    assert layout is not None and layout.tool == "sphinx"
    assert layout.extlinks == {"issue": "https://example.com/issues/%s"}
    assert layout.templates == [str(docs / "_tpl")]
    assert not marker.exists()
    looped = docs / "loop.md"
    looped.write_text("[a](a.md)\n\n```{include} loop.md\n```\n")
    links = markdown_links(str(looped), looped.read_text(), "myst", rest=rest_links)
    assert 1 < len(links) <= 10 and {s.target for s in links} == {"a.md"}


def test_a_sphinx_build_without_its_conf_py_keeps_sphinx_rules(tmp_path):
    """--sources beside a Sphinx build whose conf.py is not found (a
    distribution's docs and their _sources): searchindex.js still names
    each page's source, however big it is (Python's is 3.6 MB)."""
    from linkaudit.sources import find_layout
    from linkaudit.sources.pages import PageSources

    build, sources = tmp_path / "html", tmp_path / "src"
    (build / "library").mkdir(parents=True)
    (sources / "library").mkdir(parents=True)
    (sources / "library" / "os.txt").write_text("os\n==\n")
    index = {"docnames": ["library/os"], "filenames": ["library/os.txt"], "terms": "x" * 2**21}
    (build / "searchindex.js").write_text(f"Search.setIndex({json.dumps(index)})")
    layout = find_layout(str(build), [str(sources)], detecting=True)
    assert (layout.tool, layout.config, layout.detected) == ("sphinx", None, False)
    pages = PageSources(layout, str(build))
    assert pages.source_of("library/os.html") == (str(sources / "library" / "os.txt"), "")
    assert pages.source_of("genindex.html")[0] is None


RULES = Rules("mkdocs", {}, lambda label: None, lambda name: [])


def _match(page_html: str, source: str, page: str = "guide/index.html"):
    built = read_built(page_html)
    links = markdown_links("/docs/guide.md", source, "mkdocs")
    mapped = match_page(page, built.base, built.links, links, "", RULES)
    pairs = zip(built.links, mapped, strict=True)
    return [(b.href, b.line, m.link.line if m.link else m.why) for b, m in pairs]


def test_the_matcher_maps_no_place_it_cannot_tell():
    page = "\n".join(
        [
            "<nav><a href='../gone/'>gone</a></nav>",  # 1: the theme's: never a source line
            "<main><h1 id=t>T<a class=headerlink href='#t'>¶</a></h1>",
            "<p>Two <a href='../gone/'>gone</a> and",  # 3
            "<a href='../gone/'>gone</a>.</p>",  # 4
            "<p>Once <a href='x.html'>x</a> <a href='x.html'>x</a></p>",  # 5: twice, the source once
            "<p>Unknown words <a href='../other/'>other</a></p></main>",  # 6
        ]
    )
    source = "# T\n\nTwo [gone](gone.md) and\n[gone](gone.md).\n\nOnce [x](x.html)\n\nOther words [other](other.md)\n"
    assert _match(page, source) == [
        ("../gone/", 1, "outside the page's content (the template)"),
        ("#t", 2, "outside the page's content (the generated)"),
        ("../gone/", 3, 3),  # the same link twice on the page and in the source: in order
        ("../gone/", 4, 4),
        ("x.html", 5, "ambiguous: 2 such links on the page, 1 source lines hold one"),
        ("x.html", 5, "ambiguous: 2 such links on the page, 1 source lines hold one"),
        ("../other/", 6, "no link of the source file has this target, text and block"),
    ]


def test_a_print_page_is_matched_against_every_source_as_print_site_rewrites_it():
    """mkdocs-print-site's page: another page's ``#a`` is ``#page-a``, a
    link to a page is ``#page``; attr_list's ``{: .class }`` is read."""
    sources = [
        *markdown_links("/docs/how-to/page.md", "Go [up](#a){: .md-button }\n", "mkdocs"),
        *markdown_links("/docs/index.md", "See [the page](how-to/page.md) now.\n", "mkdocs"),
        *markdown_links("/docs/other.md", "Elsewhere [up](#a){: .md-button }\n", "mkdocs"),
    ]
    assert [s.block for s in sources[::2]] == ["Go up", "Elsewhere up"]  # no {: .md-button }
    page = "\n".join(
        [
            "<main><p>Go <a class='md-button' href='#how-to-page-a'>up</a></p>",  # 1
            "<p>See <a href='#how-to-page'>the page</a> now.</p>",  # 2
            "<p>Elsewhere <a href='#other-a'>up</a></p></main>",  # 3
        ]
    )
    built = read_built(page)

    def src_dir(link):
        return "how-to" if "/how-to/" in link.file else ""

    mapped = match_page("print_page.html", None, built.links, sources, "", RULES, True, src_dir)
    assert [(m.link.file, m.link.line) if m.link else m.why for m in mapped] == [
        ("/docs/how-to/page.md", 1),
        ("/docs/index.md", 1),
        ("/docs/other.md", 1),
    ]


def test_a_page_of_others_words_parses_only_the_files_holding_a_word_of_its_link(tmp_path):
    from linkaudit.sources.files import SourceFiles
    from linkaudit.sources.layout import Layout
    from linkaudit.sources.match import listing_needles

    docs = tmp_path / "docs"
    (docs / "how-to").mkdir(parents=True)
    (docs / "a.md").write_text("[x](https://far.example/some/where)\n")
    (docs / "b.md").write_text("[x](https://far.example/some/\\where)\n")  # escaped: still held
    (docs / "c.md").write_text("[y](https://other.test/else)\n")
    (docs / "how-to" / "page.md").write_text("[p](missing-page.md)\n")
    (docs / "d.rst").write_text("`z <https://far.example/some/\n   where/%41>`_\n")  # wrapped
    files = SourceFiles(Layout(None, [str(docs)]))
    far = listing_needles("https://far.example/some/where", "https://far.example/some/where")
    assert [os.path.basename(p) for p in files.holding(far)] == ["a.md", "b.md", "d.rst"]
    # a relative target is compared as written: the href is what the file holds
    on_news = listing_needles("/docs/history#v2-2-0", "http://build.invalid/docs/history#v2-2-0")
    assert on_news == {"/docs/history#v2-2-0"}
    inside = listing_needles("#how-to-missing-page.md", "http://build.invalid/p.html#x")
    assert inside == {"page"}  # of the target's own end (how-to- may be the folder's)
    print_page = listing_needles("#how-to-page-a", "http://build.invalid/print_page.html#x")
    assert print_page == {"a"}
    assert listing_needles("#", "http://build.invalid/p.html#") is None  # no word: every file
    assert files.parsed == {}  # selecting files parses none


# -- audits of small builds, through the command


MKDOCS_PAGE = """<!doctype html>
<html><head><meta name="generator" content="mkdocs-1.6.1, mkdocs-material-9.8.2"></head>
<body><nav class="md-nav"><a href="gone.html">gone</a></nav>
<article class="md-content__inner">
<h1 id="home">Home</h1>
<p>Read the <a href="guide/">guide</a> and the <a href="missing.md">missing page</a>.</p>
<p>Twice: <a href="gone.html">gone</a> and
<a href="gone.html">gone</a>.</p>
<p>A <a href="other-missing.html">reference</a>.</p>
</article></body></html>
"""
MKDOCS_SOURCE = """# Home

Read the [guide](guide.md) and the [missing page](missing.md).

Twice: [gone](gone.html) and
[gone](gone.html).

A [reference][ref].

[ref]: other-missing.html
"""


GUIDE_PAGE = """<!doctype html><html><body><article class="md-content__inner">
<a href="../assets/site.pdf" class="md-content__button">PDF</a>
<h1 id="guide">Guide</h1></article></body></html>
"""
# the print-site plugin's button (in the page's content, from mkdocs.yml)
MKDOCS_YML = """site_name: t
nav:
  - index.md
plugins:
  - print-site:
      path_to_pdf: "assets/site.pdf"
"""


def _git(where: Path, *args: str) -> str:
    who = ["-c", "user.name=t", "-c", "user.email=t@localhost", "-c", "commit.gpgsign=false"]
    done = subprocess.run(
        ["git", *who, *args], cwd=where, capture_output=True, text=True, timeout=30, check=True
    )
    return done.stdout


@pytest.fixture
def mkdocs_project(tmp_path: Path) -> Path:
    """A project with mkdocs.yml, docs/ and its build site/, in git."""
    project = tmp_path / "project"
    (project / "docs").mkdir(parents=True)
    (project / "site" / "guide").mkdir(parents=True)
    (project / "mkdocs.yml").write_text(MKDOCS_YML)
    (project / "docs" / "index.md").write_text(MKDOCS_SOURCE)
    (project / "docs" / "guide.md").write_text("# Guide\n")
    (project / "site" / "index.html").write_text(MKDOCS_PAGE)
    (project / "site" / "guide" / "index.html").write_text(GUIDE_PAGE)
    _git(project, "init", "-q")
    _git(project, "add", "-A")
    _git(project, "commit", "-qm", "first")
    return project


def _referrers(report: dict, ending: str) -> list[dict]:
    (entry,) = [u for u in report["urls"] if u["url"].endswith(ending)]
    return entry["referrers"]


def test_a_build_beside_its_mkdocs_sources_is_audited_on_its_source_lines(mkdocs_project):
    out = run(mkdocs_project, "site", "--report", "r.json", "-q")
    assert out.returncode == 1, out.stderr
    report = json.loads((mkdocs_project / "r.json").read_text())
    assert report["build"]["sources"] == {
        "tool": "mkdocs",
        "directories": ["docs"],
        "config": "mkdocs.yml",
        "detected": True,
        "mapped": 5,
        "unmapped": 1,
    }
    index = "docs/index.md"
    (missing,) = _referrers(report, "/missing.md")  # MkDocs leaves an unknown page as written
    assert (missing["file"], missing["line"], missing["source"]) == (
        "site/index.html",
        6,
        {"file": index, "line": 3},
    )
    gone = [r for r in _referrers(report, "/gone.html") if r["file"] == "site/index.html"]
    assert [(r["line"], r.get("source"), r.get("unmapped")) for r in gone] == [
        (3, None, "outside the page's content (the template)"),
        (7, {"file": index, "line": 5}, None),
        (8, {"file": index, "line": 6}, None),
    ]
    (ref,) = _referrers(report, "/other-missing.html")
    # the line to edit is the definition's
    assert ref["source"] == {"file": index, "line": 8, "defined": {"file": index, "line": 10}}
    # a plugin's link in the content, below the root: the configuration's line
    (pdf,) = _referrers(report, "/assets/site.pdf")
    assert (pdf["file"], pdf["source"]) == (
        "site/guide/index.html",
        {"file": "mkdocs.yml", "line": 6},
    )


def test_a_theme_link_is_answered_without_parsing_a_source(mkdocs_project, monkeypatch):
    """A broken link of the theme (on every page of a real build) costs no
    source parse: only a place in a page's content does."""
    from linkaudit.localbuild.directory import LocalFiles
    from linkaudit.sources import source_places

    monkeypatch.chdir(mkdocs_project)
    prefix = "http://127.0.0.1:9/"
    places = source_places(LocalFiles("site", prefix), [])
    assert places is not None and places.layout.tool == "mkdocs"
    nav = {"url": prefix + "index.html", "line": 3}
    places.place(nav, prefix + "gone.html", None)
    assert nav["unmapped"] == "outside the page's content (the template)"
    assert places.sources.parsed == {}
    content = {"url": prefix + "index.html", "line": 7}
    places.place(content, prefix + "gone.html", None)
    assert content["source"] == {"file": "docs/index.md", "line": 5}
    assert [os.path.relpath(p) for p in places.sources.parsed] == [os.path.join("docs", "index.md")]


def test_sources_given_on_the_command_line_or_in_the_configuration_file(mkdocs_project):
    (mkdocs_project / "mkdocs.yml").unlink()  # nothing to detect: the directory given
    (mkdocs_project / "linkaudit.toml").write_text('sources = ["docs"]\n')
    out = run(mkdocs_project, "site", "--report", "r.json", "-q")
    assert out.returncode == 1, out.stderr
    report = json.loads((mkdocs_project / "r.json").read_text())
    said = report["build"]["sources"]
    assert (said["tool"], said["directories"], said["detected"]) == (None, ["docs"], False)
    gone = _referrers(report, "/gone.html")
    assert [r.get("source", {}).get("line") for r in gone] == [None, 5, 6]


def test_changed_since_reports_and_fails_on_the_lines_the_change_holds(mkdocs_project):
    # nothing changed since HEAD: every finding is outside the change, exit 0
    out = run(mkdocs_project, "site", "--report", "r.json", "--changed-since", "HEAD")
    assert out.returncode == 0, out.stdout + out.stderr
    report = json.loads((mkdocs_project / "r.json").read_text())
    assert report["changed_since"]["ref"] == "HEAD"
    broken = [u for u in report["urls"] if u["outcome"] == "broken"]
    assert broken and all(u["changed"] is False for u in broken)
    assert report["summary"]["outside_change"] == len(broken)
    # the formats show only what the change holds, and say how many are not
    assert "missing.md" not in out.stdout
    assert f"changed since HEAD: {len(broken)} findings outside the change" in out.stderr
    assert "sources: docs (MkDocs, mkdocs.yml, found): 5 of 6 places" in out.stderr
    # a branch that edits line 10 (the reference's definition), uncommitted
    _git(mkdocs_project, "checkout", "-qb", "topic")
    source = mkdocs_project / "docs" / "index.md"
    source.write_text(
        MKDOCS_SOURCE.replace("[ref]: other-missing.html", "[ref]: other-missing.html ")
    )
    out = run(mkdocs_project, "site", "--report", "r.json", "--changed-since", "master")
    if out.returncode == 2 and "no such commit" in out.stderr:  # git's default branch: main
        out = run(mkdocs_project, "site", "--report", "r.json", "--changed-since", "main")
    assert out.returncode == 1, out.stdout + out.stderr
    report = json.loads((mkdocs_project / "r.json").read_text())
    changed = {u["url"].rsplit("/", 1)[1] for u in report["urls"] if u.get("changed")}
    assert changed == {"other-missing.html"}  # (on the page's line 8, its URL on line 10)
    assert (
        report["summary"]["outside_change"]
        == len([u for u in report["urls"] if u["outcome"] == "broken"]) - 1
    )


def test_changed_since_refuses_what_git_cannot_compare(mkdocs_project, tmp_path):
    refused(run(mkdocs_project, "site", "--changed-since", "no-such-branch"), "no such commit")
    refused(run(mkdocs_project, "site", "--changed-since=-x"), "not a git revision")
    elsewhere = tmp_path / "plain"
    (elsewhere / "site").mkdir(parents=True)
    (elsewhere / "site" / "index.html").write_text("<p>x</p>")
    refused(run(elsewhere, "site", "--changed-since", "main"), "is not in a git repository")
    without_git = {**os.environ, "PATH": str(Path(os.__file__).parent)}
    from tests.conftest import run_process
    from tests.helpers.command import LINKAUDIT

    out = run_process(
        [LINKAUDIT, "site", "--changed-since", "HEAD"], cwd=mkdocs_project, env=without_git
    )
    refused(out, "needs git, which is not installed")
    refused(run(mkdocs_project, "https://example.com/", "--sources", "docs"), "build directory")
    refused(run(mkdocs_project, "site", "--sources", "nowhere"), "nowhere does not exist")


def test_a_source_lacking_the_word_of_a_target_is_not_parsed_for_it():
    """needles.py: the word a source must hold, and None where no word is
    sure (the page itself or a folder above it, an extlinks URL, template
    syntax, an include, a fragment beside non-ASCII letters)."""
    from linkaudit.sources.needles import Words, target_word

    page = "http://build.invalid/a/b.html"
    assert target_word("http://build.invalid/assets/site.pdf", page, {}) == ("site.pdf", False)
    assert target_word("http://build.invalid/x/Y.html", page, {}) == ("y", False)  # x.md, :doc:
    assert target_word("http://build.invalid/x/", page, {}) == ("x", False)
    assert target_word("http://build.invalid/a/", page, {}) is None  # ../, ./
    assert target_word("http://build.invalid/a/b.html#Flask.route", page, {}) == ("route", True)
    issue = {"issue": "https://github.com/p/f/issues/%s"}
    assert target_word("https://github.com/p/f/issues/12", page, issue) is None
    assert Words("see [PDF](assets/Site.pdf)").lacks(("site.pdf", False)) is False
    assert Words("no such link").lacks(("site.pdf", False)) is True
    assert Words("[x]({{ site.url }}/a.pdf)").lacks(("site.pdf", False)) is False
    assert Words(".. include:: other.rst").lacks(("site.pdf", False)) is False
    assert Words("Über `x`_").lacks(("uber", True)) is False  # ids fold letters
    assert Words("Über `x`_").lacks(("site.pdf", False)) is True


@pytest.mark.parametrize(
    "path",
    [
        "/usr/share/doc/python3.11/html/searchindex.js",  # begins with the two arrays
        *sorted(
            str(p)
            for p in (Path(__file__).parent / "data" / "sources").glob(
                "*/project/docs/_build/html/searchindex.js"
            )
        ),
    ],
)
def test_searchindex_two_arrays_as_whole_decode(path: str) -> None:
    """searchindex.js's docnames and filenames decoded alone (when it begins
    with them) are those of the whole object's decode (else it is decoded whole)."""
    if not os.path.isfile(path):
        pytest.skip(f"{path}: not there (tests/setup.sh)")
    text = Path(path).read_text(encoding="utf-8")
    whole = json.loads(text[text.index("(") + 1 : text.rindex(")")])
    alone = _first_arrays(text)
    if alone is not None:
        assert alone == {"docnames": whole["docnames"], "filenames": whole["filenames"]}
    assert (alone is not None) == text.startswith('Search.setIndex({"docnames":')


def test_searchindex_two_arrays_refused() -> None:
    """Only a file beginning with docnames then filenames takes the short path."""
    assert _first_arrays('Search.setIndex({"docnames": ["a"], "filenames": ["a.rst"]})') == {
        "docnames": ["a"],
        "filenames": ["a.rst"],
    }
    assert (
        _first_arrays('Search.setIndex({"docnames":["a"],"titles":[],"filenames":["a"]})') is None
    )
    assert _first_arrays('Search.setIndex({"docnames": ["a"') is None
    assert _first_arrays('Search.setIndex({"alltitles": {}, "docnames": ["a"]})') is None


def test_a_source_links_claims_alone_are_the_index_candidates_that_hold_it():
    """``Index.holds`` (the rivals of a chosen source link, from its forms
    alone) says what ``Index.candidates`` says for every kind of form."""
    from linkaudit.sources.match import Index, key

    forms = [
        {key("http://build.invalid/a/b.html")},
        {("raw", "#x"), ("raw", "x.md")},
        {("fragment", "mod.func")},
        {("fragment", "func")},
        {("pattern", ("/issues/", ""), "/issues/", "")},
        {("pattern", ("", "/end.html"), "", "/end.html")},
        {("pattern", ("https://gh.test/", "/pull/", ""), "https://gh.test/", "")},
    ]
    index = Index(forms)
    hrefs = [
        "b.html", "b.html#x", "#x", "x.md", "#mod.func", "#pkg.mod.func", "#func", "#other.func",
        "/issues/12", "/issues/", "a/end.html", "https://gh.test/a/pull/3", "https://gh.test/a",
        "../a/b.html", "b%2Ehtml",
    ]  # fmt: skip
    for href in hrefs:
        resolved = urljoin("http://build.invalid/a/page.html", href)
        found = index.candidates(href, resolved)
        for i in range(len(forms)):
            assert index.holds(i, href, resolved, key(resolved)) == (i in found), (href, i)


def test_a_built_links_place_and_words_are_the_same_asked_or_read_whole():
    """built.py reads a link's place and words from the tree when asked;
    ``release`` reads the rest and lets the tree go: the same either way."""
    page = "\n".join(
        [
            "<nav><a href='n.html'>nav</a></nav>",
            "<div role=main><h1 id=t>T<a class=headerlink href='#t'>¶</a></h1>",
            "<div class='toctree-wrapper'><ul><li><a href='a.html'>A</a></li></ul></div>",
            "<p>Some <a href='b.html'>words <b>here</b></a> and <img src='i.png' alt='I'></p>",
            "<p>Note<a role=doc-backlink href='#r'>1</a></p></div>",
            "<footer><a href='f.html'>f</a></footer>",
        ]
    )
    want = [
        ("n.html", 1, "nav", "nav", "template"),
        ("#t", 2, "", "", "generated"),
        ("a.html", 3, "", "", "generated"),
        ("b.html", 4, "words here", "Some words here and", "content"),
        ("i.png", 4, "I", "Some words here and", "content"),
        ("#r", 5, "", "", "generated"),
        ("f.html", 6, "f", "f", "template"),
    ]
    asked = read_built(page)
    for link in reversed(asked.links):  # (any order)
        assert link.where
    assert [(b.href, b.line, b.text, b.block, b.where) for b in asked.links] == want
    whole = read_built(page)
    whole.release()
    assert [(b.href, b.line, b.text, b.block, b.where) for b in whole.links] == want


def test_sphinx_labels_are_found_as_the_anchored_pattern_finds_them():
    from linkaudit.sources.pages import LABEL, _label_names

    text = (
        ".. _First:\n\nsee x.. _inside: and (mid)=\n\n   \n.. _Second: \n(myst-Label)=\n"
        "text (no)= more\n  .. _indented:\n.. _`quoted`:\n.. _last:"
    )
    old = [(m.group(1) or m.group(2)).strip().lower() for m in LABEL.finditer(text)]
    assert sorted(_label_names(text)) == sorted(old) == ["first", "last", "myst-label", "second"]
