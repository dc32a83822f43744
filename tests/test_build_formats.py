"""Every format of a build's report shows what the build's audit found
(issue 41): the first line (the build, where it started, the pages read
and reached, the orphans, the sources), the orphan pages, the files that
are not pages, the symbolic links out of the build (one name, one
outcome), the href each place wrote beside its target, and a place's
source file and line first, the built file second.

One small build is audited; its report gets the fields the build's other
parts fix (docs/report.md: ``build``'s counts, an entry's ``orphan`` and
``symlink_out``, a place's ``href``, ``source`` and ``unmapped``,
``build.sources``) where the audit did not write them, and each format
shows it again with ``linkaudit show``, as CI does."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from urllib.parse import quote, unquote
from xml.etree import ElementTree as ET

import pytest

from tests.helpers.command import run
from tests.helpers.html_report import browser, load  # noqa: F401  (a fixture)

STARTED = "a build; start public/index.html"
FIRST = (
    f"public ({STARTED}): 3 pages read, 2 reached by links, 1 orphan, 1 file that is not a page,"
    " 1 symbolic link out of the build; sources: docs (MkDocs, 2 of 3 places mapped)"
)
TEMPLATE = "a template: it begins with '{{', not with markup"
SOURCE = {"file": "docs/guide.md", "line": 3}
# a reference-style link: the line that uses it, the line that holds its URL
DEFINED = {"file": "docs/index.md", "line": 9, "defined": {"file": "docs/index.md", "line": 20}}
UNMAPPED = "2 links to this target on line 2 of the page"


@pytest.fixture(scope="module")
def build(tmp_path_factory) -> Path:
    """A build audited once (``public``, its sources in ``docs``): a broken
    link its page writes otherwise than it resolves, a missing fragment, a
    directory linked without its slash, a file reached through a symbolic
    link out of the build, an orphan page, a template that is no page."""
    folder = tmp_path_factory.mktemp("formats")
    public = folder / "public"
    (public / "guide").mkdir(parents=True)
    (public / "_static").mkdir()
    (folder / "outside").mkdir()
    (folder / "docs").mkdir()
    (folder / "outside" / "x.js").write_text("x")
    (public / "_static" / "x.js").symlink_to("../../outside/x.js")
    (public / "index.html").write_text(
        '<a href="guide/">guide</a>\n<a href="_static/x.js">js</a>\n'
        '<a href="missing.html">missing</a>\n<a href="guide">no slash</a>\n'
    )
    (public / "guide" / "index.html").write_text(
        '<a href="./../gone.png">gone</a>\n<a href="../index.html#nope">frag</a>\n'
    )
    (public / "old.html").write_text('<a href="index.html">home</a>')
    (public / "_static" / "t.html").write_text('{{ page }}<a href="{{ url }}">x</a>')
    (folder / "docs" / "guide.md").write_text("# Guide\n\n[gone](../gone.png)\n")
    (folder / "docs" / "index.md").write_text("# Home\n" + "\n" * 8 + "[missing][m]\n" * 11)
    out = run(folder, "public", "--check-fragments", "--report", "audit.json", "-q")
    assert out.returncode == 1, out.stdout + out.stderr
    report = json.loads((folder / "audit.json").read_text())
    (folder / "r.json").write_text(json.dumps(_completed(report)))
    return folder


def _completed(report: dict) -> dict:
    """The report with the fields of the build's other parts, as
    docs/report.md fixes them (the places' own, whatever the audit wrote)."""
    _without(report, ("href", "source", "unmapped"))
    root = report["build"]["url"]
    report["build"].update(
        start="public/index.html",
        start_from="index.html",
        pages=3,
        reached=2,
        orphans=1,
        sitemap_only=0,
        not_pages=[{"file": "public/_static/t.html", "reason": TEMPLATE}],
        symlinks_out=1,
        sources={
            "tool": "mkdocs",
            "directories": ["docs"],
            "config": "mkdocs.yml",
            "detected": True,
            "mapped": 2,
            "unmapped": 1,
        },
    )
    report["summary"].update(orphans=1, sitemap_only=0, symlinks_out=1)
    urls = {u["url"]: u for u in report["urls"]}
    urls[root + "_static/x.js"]["symlink_out"] = "../../outside/x.js"
    # a place's fields, on the entry's referrer and the template groups' alike
    places = [
        (root + "gone.png", {"href": "./../gone.png", "source": SOURCE}),
        (root + "missing.html", {"source": DEFINED}),
        (root + "index.html", {"unmapped": UNMAPPED}),  # (the missing fragment's)
    ]
    for target, fields in places:
        entry = urls[target]
        for referrer in entry["referrers"] + [
            r for gap in entry.get("missing_fragments", ()) for r in gap["referrers"]
        ]:
            referrer.update(fields)
        for group in report.get("groups") or ():
            if group["target"] == target:
                for referrer in group["referrers"]:
                    referrer.update(fields)
    if root + "old.html" not in urls:  # read by the build's part that finds orphans
        page = dict(urls[root], url=root + "old.html", file="public/old.html", depth=0)
        report["urls"].append(page)
        report["summary"]["urls"] += 1
        report["summary"]["ok"] += 1
    urls = {u["url"]: u for u in report["urls"]}
    urls[root + "old.html"]["orphan"] = "unlinked"
    report["urls"].sort(key=lambda u: u["url"])
    return report


def _without(value: object, keys: tuple[str, ...]) -> None:
    """Every object in ``value`` without ``keys``, in place."""
    if isinstance(value, dict):
        for key in keys:
            value.pop(key, None)
        for item in value.values():
            _without(item, keys)
    elif isinstance(value, list):
        for item in value:
            _without(item, keys)


def _places(value: object) -> list[dict]:
    """Every place in ``value``: an object with a page's ``url`` and ``line``."""
    if isinstance(value, list):
        return [p for item in value for p in _places(item)]
    if not isinstance(value, dict):
        return []
    found = [value] if "line" in value and "url" in value else []
    return found + [p for item in value.values() for p in _places(item)]


def show(folder: Path, fmt: str, *args: str) -> str:
    out = run(folder, "show", "r.json", "--format", fmt, "--fail-on", "none", *args)
    assert out.returncode == 0 and not out.stderr, out.stderr  # (no field "altered")
    return out.stdout


def test_text_shows_the_build(build):
    text = show(build, "text")
    lines = text.splitlines()
    assert lines[0] == f"linkaudit: {FIRST}"
    assert lines[1].startswith("linkaudit: 2 broken links, 1 missing fragment")
    # the href as written beside the target; the source first, the built file second
    assert "  public/gone.png  [404 Not Found]" in lines
    assert (
        "    docs/guide.md:3 (built public/guide/index.html:1), written as ./../gone.png" in lines
    )
    # (the page at / and /index.html: one file, its place given once)
    definition = (
        "docs/index.md:20 (the definition of the link at line 9; built public/index.html:3)"
    )
    assert f"    {definition}" in lines
    assert f"    public/guide/index.html:2, no source: {UNMAPPED}" in lines
    at = lines.index("Orphans, pages no page links to (1):")
    assert lines[at + 1] == "  public/old.html"
    at = lines.index("Files that are not pages, named and not read for links (1):")
    assert lines[at + 1] == f"  public/_static/t.html  [{TEMPLATE}]"
    at = lines.index("Symbolic links out of the build (1):")
    assert lines[at + 1] == (
        "  public/_static/x.js  [symbolic link out of the build, to ../../outside/x.js:"
        " served here, but a copy deployed without it would break]"
    )
    assert "Failing" not in text and "file://" not in text


def test_markdown_shows_the_build(build):
    md = show(build, "markdown")
    lines = md.splitlines()
    assert lines[0].startswith("### linkaudit: 2 broken links")
    assert lines[2] == (
        f"`public` ({STARTED.replace('public/index.html', '`public/index.html`')}): 3 pages"
        " read, 2 reached by links, 1 orphan, 1 file that is not a page, 1 symbolic link out of"
        " the build; sources: `docs` (MkDocs, 2 of 3 places mapped)."
    )
    (row,) = [line for line in lines if line.startswith("| `public/gone.png` |")]
    assert row.endswith(
        "| `docs/guide.md:3` (built `public/guide/index.html:1`), written as `./../gone.png` |"
    )
    at = lines.index("#### Orphans, pages no page links to (1)")
    assert lines[at + 2] == "- `public/old.html`"
    at = lines.index("#### Files that are not pages, named and not read for links (1)")
    assert lines[at + 2] == f"- `public/_static/t.html`: `{TEMPLATE}`"
    at = lines.index("#### Symbolic links out of the build (1)")
    assert lines[at + 2] == (
        "- `public/_static/x.js`: symbolic link out of the build, to `../../outside/x.js`:"
        " served here, but a copy deployed without it would break"
    )


def test_junit_shows_the_build(build):
    suites = ET.fromstring(show(build, "junit"))
    audit = suites.find("testsuite[@name='audit']")
    properties = {p.get("name"): p.get("value") for p in audit.iter("property")}
    assert properties["build"] == FIRST
    assert properties["build.orphans"] == "1" and properties["build.pages"] == "3"
    said = audit.find("testcase/system-out").text.splitlines()
    assert said[0] == FIRST and "  public/old.html" in said
    assert f"  public/_static/t.html  [{TEMPLATE}]" in said
    # a symbolic link out: ok, so a case that passes, and says so; no failure
    links = suites.find("testsuite[@name='symbolic links out of the build']")
    (case,) = links.findall("testcase")
    assert case.get("name") == "public/_static/x.js"
    assert case.find("failure") is None and case.find("skipped") is None
    assert "symbolic link out of the build, to ../../outside/x.js" in case.find("system-out").text
    assert links.get("failures") == "0"
    (gone,) = [c for c in suites.iter("testcase") if c.get("name") == "public/gone.png"]
    assert gone.find("failure").text.splitlines()[1] == (
        "docs/guide.md:3 (built public/guide/index.html:1), written as ./../gone.png"
    )


def test_sarif_shows_the_build(build):
    run_ = json.loads(show(build, "sarif"))["runs"][0]
    assert run_["properties"]["build"]["summary"] == FIRST
    assert run_["properties"]["build"]["not_pages"][0]["file"] == "public/_static/t.html"
    rules = {r["id"] for r in run_["tool"]["driver"]["rules"]}
    assert {"symlink-out", "orphan-page"} <= rules
    results = {r["ruleId"] + " " + r["message"]["text"].split(":")[0]: r for r in run_["results"]}
    # the source file and its line: what code scanning annotates on a pull request
    gone = results["broken-link Broken link to public/gone.png"]
    location = gone["locations"][0]
    assert location["physicalLocation"] == {
        "artifactLocation": {"uri": "docs/guide.md"},
        "region": {"startLine": 3},
    }
    assert location["message"]["text"] == (
        "built public/guide/index.html:1; written as ./../gone.png"
    )
    assert "; written as ./../gone.png;" in gone["message"]["text"]
    # a link whose URL a definition holds: at the definition, the line to edit
    missing = results["broken-link Broken link to public/missing.html"]
    assert missing["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "docs/index.md"
    assert missing["locations"][0]["physicalLocation"]["region"] == {"startLine": 20}
    fragment = results["missing-fragment Link to a missing fragment"]
    location = fragment["locations"][0]  # no source: the built file
    assert location["physicalLocation"]["artifactLocation"]["uri"] == "public/guide/index.html"
    symlink = results["symlink-out public/_static/x.js"]
    assert symlink["level"] == "warning"
    assert symlink["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": "public/_static/x.js"},
        "region": {"startLine": 1},  # (no page's link kept: the file itself)
    }
    orphans = results["orphan-page Orphans, pages no page links to"]
    assert orphans["level"] == "note"
    assert orphans["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": "public/old.html"},
        "region": {"startLine": 1},
    }
    # (the fix-list's edit stays on the built file, whose columns it names)
    fix = results["redirected-link Link to a redirect"]
    for change in fix["fixes"][0]["artifactChanges"]:
        assert change["artifactLocation"]["uri"] == "public/index.html"


def test_sarif_locates_the_files_of_a_git_work_tree_from_its_root(build, tmp_path):
    """Read from a folder of the repository's work tree (code scanning's
    checkout is its root), a source is located from the root."""
    (build / ".git").mkdir(exist_ok=True)
    try:
        below = build / "public" / "guide"
        out = run(below, "show", str(build / "r.json"), "--format", "sarif", "--fail-on", "none")
    finally:
        (build / ".git").rmdir()
    results = json.loads(out.stdout)["runs"][0]["results"]
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results}
    assert {"docs/guide.md", "docs/index.md", "public/_static/x.js"} <= uris


def test_github_annotations_show_the_build(build):
    """``--format github``: the workflow commands the Action prints, each an
    annotation on the source file and line (else the built file), errors
    first, and a last notice that counts them."""
    lines = show(build, "github").splitlines()
    assert lines[0].startswith("::error file=") and lines[-1].startswith(
        "::notice title=linkaudit::"
    )
    gone = [x for x in lines if x.startswith("::error file=docs/guide.md,line=3,")]
    assert gone and "title=Broken link::Broken link to public/gone.png" in gone[0]
    assert gone[0].endswith("; built public/guide/index.html:1")  # the source first, the build second
    # a link whose URL a definition holds: at the definition, the line to edit
    assert any(
        x.startswith("::error file=docs/index.md,line=20,title=Broken link::") for x in lines
    )
    fragment = [x for x in lines if "title=Missing fragment" in x]
    assert fragment and fragment[0].startswith("::error file=public/guide/index.html,line=2,")
    symlink = [x for x in lines if "title=Symbolic link out of the build" in x]
    assert symlink and symlink[0].startswith("::warning ")
    assert "file=public/_static/x.js,line=1," in symlink[0]
    errors = sum(x.startswith("::error ") for x in lines)
    warnings = sum(x.startswith("::warning ") for x in lines)
    assert lines[-1].startswith(
        f"::notice title=linkaudit::annotations: {errors} errors, {warnings} warnings"
    )


def test_html_shows_the_build(build):
    page = show(build, "html")
    assert f'<p class="lead">{FIRST}</p>' in page
    assert "<title>linkaudit: 2 broken links on public</title>" in page
    for ident, count in (("orphans", 1), ("not-pages", 1), ("symlinks-out", 1)):
        assert f'data-count="{ident}">{count}</span>' in page
        assert f'<li><a href="#{ident}">' in page
    assert 'id="warnings"' not in page  # the symbolic link out is not "Failing"
    links = page[page.index('<section id="symlinks-out"') :]
    assert "symbolic link out of the build, to ../../outside/x.js" in links
    assert '<span class="href">written as <code>./../gone.png</code></span>' in page
    # the source first, a link to its file; the built file second
    assert (
        '<a class="url" href="docs/guide.md">docs/guide.md</a> <span class="line">line 3</span>'
        ' <span class="built">(built <a class="url" href="public/guide/index.html">'
        "public/guide/index.html</a>"
    ) in page
    assert f"no source: {UNMAPPED}" in page


def _clicks(driver, page: Path) -> list[str]:
    """Every link of the page once its script has drawn the table, as the
    browser resolves it (the first hundred rows: every URL here)."""
    load(driver, page)
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('a[href]'), a => a.href)"
    )


def test_every_page_and_place_of_the_html_report_opens_its_file(build, browser):  # noqa: F811
    """The report written in another folder (``--html out/r.html``): each
    link to a build's page, place, target or source opens a file that is
    there, by a path relative to the report (moved with the build, it
    still works); a broken target is named, not linked."""
    (build / "out").mkdir(exist_ok=True)
    out = run(
        build, "public", "--check-fragments", "--html", "out/r.html", "--report", "r2.json", "-q"
    )
    assert out.returncode == 1, out.stderr
    html = (build / "out" / "r.html").read_text()
    hrefs = set(re.findall(r'<a class="url" href="([^"#]+)', html))
    assert "../public/guide/index.html" in hrefs  # relative to out/
    assert not [h for h in hrefs if h.startswith(("file:", "/", "http://127."))]
    clicked = [h for h in _clicks(browser, build / "out" / "r.html") if not h.startswith("#")]
    files = [h for h in clicked if h.startswith("file:")]
    assert len(files) >= 6, clicked
    for href in files:
        path = Path(href.split("#")[0].removeprefix("file://"))
        assert path.is_file(), href  # a page opens, not a folder's listing
        assert build in path.parents
    assert "gone.png" not in " ".join(files)  # broken: nothing to open
    # the completed report shown in the folder: the sources open too
    (build / "shown.html").write_text(show(build, "html"))
    sources = [h for h in _clicks(browser, build / "shown.html") if "/docs/" in h]
    assert sources and all(Path(h.removeprefix("file://")).is_file() for h in sources)


def test_shown_from_another_folder_a_build_is_named_from_there(build):
    """``linkaudit show`` in another folder: the build's files, its sources
    and its first line are named from there (absolute: not below it)."""
    elsewhere = build / "elsewhere"
    elsewhere.mkdir(exist_ok=True)
    out = run(elsewhere, "show", "../r.json", "--fail-on", "none")
    assert out.returncode == 0, out.stderr
    root = str(build)
    assert out.stdout.splitlines()[0].startswith(f"linkaudit: {root}/public (a build; start {root}")
    assert f"  {root}/public/gone.png  [404 Not Found]" in out.stdout
    assert f"    {root}/docs/guide.md:3 (built {root}/public/guide/index.html:1)" in out.stdout
    below = run(build / "public", "show", "../r.json", "--fail-on", "none").stdout
    assert below.splitlines()[0].startswith("linkaudit: . (a build; start index.html")
    assert "  gone.png  [404 Not Found]" in below.splitlines()
    assert os.path.isdir(build / "public")


# what a terminal acts on or hides (C0 but the line break, DEL, C1, bidi)
RAW = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
HOSTILE = "x\x1b[2J\u202e<b>`[a](https://evil)`"


def test_a_builds_new_values_are_shown_escaped(build, tmp_path):
    """What a build's page, file names and link targets put in the report
    (an href as written, a symbolic link's target, a source's file, why a
    place has none, a file that is not a page) is shown as every value is:
    escaped for the terminal, in a code span, as HTML text, in XML, in a
    SARIF message; a newline never forges a line."""
    report = json.loads((build / "r.json").read_text())
    root = report["build"]["url"]
    for referrer in _places(report):  # (an entry's, a group's, a fragment's)
        referrer.update(href=HOSTILE, unmapped=HOSTILE + "\nforged")
        referrer["source"] = {"file": f"docs/{HOSTILE}.md", "line": 3}
    for entry in report["urls"]:
        if entry["url"] == root + "_static/x.js":
            entry["symlink_out"] = "../x\nforged line"
    report["build"]["not_pages"] = [{"file": f"public/{HOSTILE}.html", "reason": HOSTILE}]
    (tmp_path / "r.json").write_text(json.dumps(report))
    shown = {}
    for fmt in ("text", "markdown", "junit", "sarif", "html", "github"):
        out = run(tmp_path, "show", "r.json", "--format", fmt, "--fail-on", "none")
        assert out.returncode == 0, out.stderr
        shown[fmt] = out.stdout
        assert not RAW.search(out.stdout), fmt
        assert not re.search(r"^forged", out.stdout, re.MULTILINE), fmt
    assert "written as x\\x1b[2J\\u202e<b>" in shown["text"]
    assert "\\nforged line" in shown["text"]  # the link's target: one line
    assert "<b>" not in shown["html"] and "&lt;b&gt;" in shown["html"]
    assert "written as `` x\\x1b[2J\\u202e<b>`[a](https://evil)` ``" in shown["markdown"]
    ET.fromstring(shown["junit"])
    messages = json.dumps(json.loads(shown["sarif"])["runs"][0]["results"])
    assert "[a](https://evil)" not in messages and "\\\\[a\\\\](https://evil)" in messages
    # workflow commands: one a line, a file name's ',' and ':' never a new property
    assert all(line.startswith("::") for line in shown["github"].splitlines())
    assert "`[a](https%3A/evil)`.md,line=3,title=" in shown["github"]


def test_the_html_reports_links_to_files_are_names_not_syntax(tmp_path):
    """Written in the build's own folder, the HTML report links its files
    by relative URLs: a file named like a scheme (``javascript:x.html``) is
    ``./javascript:x.html``, never a script; ``#``, ``?`` and ``%`` in a
    name are percent-encoded: each link opens its file."""
    public = tmp_path / "public"
    public.mkdir()
    names = ("javascript:alert(1).html", "a#b.html", "q?x.html", "50%.html", "é.html")
    (public / "index.html").write_text(
        "".join(f'<a href="{quote(n)}">{n}</a>\n' for n in names) + '<a href="gone.html">x</a>'
    )
    for name in names:
        (public / name).write_text('<a href="index.html">home</a>')
    out = run(public, ".", "--html", "r.html", "--report", "r.json")
    assert out.returncode == 1, out.stderr
    html = (public / "r.html").read_text()
    hrefs = set(re.findall(r'<a class="url" href="([^"]+)"', html))
    data = json.loads(html.split('id="linkaudit-data">', 1)[1].split("</script>", 1)[0])
    hrefs |= {row["href"] for row in data["urls"] if row.get("href")}
    assert "./javascript:alert(1).html" in hrefs
    assert {"a%23b.html", "q%3Fx.html", "50%25.html", "%C3%A9.html"} <= hrefs
    assert not [h for h in hrefs if h.lower().startswith("javascript:")]
    for href in hrefs:
        assert (public / unquote(href)).is_file(), href


def test_the_docs_give_a_symbolic_link_out_of_the_build_one_name():
    """One name for it in the docs, as in every format: no "symbolic link
    out of the build directory", "symlink out", "link outside the build"."""
    root = Path(__file__).resolve().parents[1]
    other = re.compile(
        r"symbolic links? (?:out of|outside|leaving) the (?:build )?director"
        r"|\bsymlinks? (?:out|outside)\b|\blinks? outside the build\b",
        re.IGNORECASE,
    )
    found = [
        f"{page.relative_to(root)}: {m.group(0)}"
        for page in [root / "README.md", *sorted((root / "docs").rglob("*.md"))]
        for m in other.finditer(page.read_text())
    ]
    assert not found, found
    guide = (root / "docs" / "guide" / "local-build.md").read_text()
    assert "**symbolic link out of the build**" in guide and "`symlink-out`" in guide
