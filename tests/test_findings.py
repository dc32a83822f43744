"""One problem, one finding, in every format (issue 31).

A real documentation site, Debian's Python docs (530 pages), copied with
two files gone that every page links to: the stylesheet of each page's
``<head>`` (``_static/pygments.css``) and the copyright page of each
page's header and footer (``copyright.html``, over a thousand links).
Audited once as a local build (``linkaudit DIR``); then each format,
re-rendered from the saved report with ``linkaudit show``, must give each
missing file as one finding a person or a CI can act on: text on a
screen, markdown under GitHub's comment limit, one SARIF result, one JUnit
failure."""

from __future__ import annotations

import itertools
import json
import os
import re
import shutil
from pathlib import Path
from xml.etree import ElementTree as ET

import cmarkgfm
import html5lib
import pytest
from cmarkgfm.cmark import Options

from linkaudit.output.formats import FORMATS
from linkaudit.output.formats.places import MAX_BYTES
from tests.helpers.command import run

PYTHON_DOCS = Path("/usr/share/doc/python3.11/html")
GITHUB_COMMENT = 65_536  # characters: GitHub refuses a longer comment
GONE = ("copyright.html", "_static/pygments.css")


@pytest.fixture(scope="module")
def docs(tmp_path_factory):
    """(folder, report): the docs audited once, two shared files gone."""
    if not PYTHON_DOCS.is_dir():
        if os.environ.get("CI"):
            pytest.fail(f"{PYTHON_DOCS} is missing: tests/setup.sh did not run")
        pytest.skip(f"{PYTHON_DOCS} is missing: apt-get install python3.11-doc")
    folder = tmp_path_factory.mktemp("findings")
    site = folder / "docs"
    # Debian's docs link jquery.js and friends to /usr/share/javascript: copied as files
    shutil.copytree(PYTHON_DOCS, site, symlinks=False, ignore_dangling_symlinks=True)
    for name in GONE:
        (site / name).unlink()
    out = run(folder, "docs", "--skip-far", "--report", "report.json", "-q", timeout=120)
    assert out.returncode == 1, out.stderr
    report = json.loads((folder / "report.json").read_text())
    return folder, report


def show(folder: Path, *args: str):
    return run(folder, "show", "report.json", *args)


def named(found: dict) -> str:
    """A build's target as the text formats name it: its path (docs/x.html)."""
    return "docs/" + found["url"].rsplit("/docs/", 1)[1]


def entry(report: dict, name: str) -> dict:
    (found,) = [u for u in report["urls"] if u["url"].endswith("/" + name)]
    assert found["outcome"] == "broken"
    return found


def test_a_thousand_links_are_one_finding_in_text(docs):
    folder, report = docs
    copyright = entry(report, "copyright.html")
    assert copyright["referrer_count"] > 1000  # header and footer of every page
    # (a page at / and /index.html is one file: one page)
    pages = len({r.get("file") or r["url"] for r in copyright["referrers"]})
    out = show(folder)
    assert out.returncode == 1, out.stderr
    lines = out.stdout.splitlines()
    broken = report["summary"]["broken"]
    # the first lines say it all (the build's, then the findings'), the findings fit on a screen
    (said,) = [line for line in lines[:2] if " broken links" in line]
    assert said.startswith(f"linkaudit: {broken} broken links; {report['summary']['urls']:,} URLs")
    assert len(lines) < 10 * broken + 10, out.stdout
    (at,) = [i for i, line in enumerate(lines) if line.startswith(f"  {named(copyright)}  [")]
    # every page's footer is one template line; the few links in pages'
    # own content follow, each place once
    head = f"    linked from {pages:,} pages ({copyright['referrer_count']:,} links)"
    assert lines[at + 1] in (f"{head}:", f"{head}; the first 5:")
    assert lines[at + 2].startswith(f"    in the site template (footer), on {pages:,} pages")
    finding = list(itertools.takewhile(lambda line: line.startswith("    "), lines[at + 1 :]))
    assert len(finding) <= 7, finding
    assert out.stdout.count(f"  {named(copyright)}  [") == 1
    assert "file://" not in out.stdout  # the build's pages and targets by their files
    # a page served at / and /index.html is one file: its place is given once
    assert re.search(r"docs/index\.html:\d+(, written as \S+)?\n", out.stdout)
    assert not re.search(r"docs/index\.html:\d+(, written as \S+)? \(2 links\)", out.stdout)
    # the whole list: the JSON report, and -v
    every = show(folder, "-v").stdout
    assert len(every.splitlines()) > 1000
    few = show(folder, "--max-referrers", "2").stdout.splitlines()
    (at,) = [i for i, line in enumerate(few) if line.startswith(f"  {named(copyright)}  [")]
    assert few[at + 1].endswith("the first 2:") and few[at + 4].startswith("    and ")


def _more(line: str) -> str:
    return re.match(r"    and ([0-9,]+) more", line)[1]


def test_markdown_fits_a_github_comment_and_parses(docs):
    folder, report = docs
    out = show(folder, "--format", "markdown")
    text = out.stdout
    assert len(text) < GITHUB_COMMENT and len(text.encode()) <= MAX_BYTES
    rows = _broken_rows(text)
    assert len(rows) == report["summary"]["broken"]  # one row per broken URL
    for name in GONE:
        (row,) = [r for r in rows if r[0].endswith("/" + name)]
        assert row[2].startswith("linked from ") and "in the site template" in row[2]
        assert len(row[2]) < 2000  # condensed, not a cell of every page
    # a smaller cap: whole rows only, the rest counted, under the cap
    small = show(folder, "--format", "markdown", "--max-bytes", "1500").stdout
    assert len(small.encode()) <= 1500
    shown_rows = _broken_rows(small)
    assert len(shown_rows) < report["summary"]["broken"]
    # the rows left out counted (the broken ones among them), then the last line: the report's file
    left = re.search(r"\n\nand ([0-9,]+) more: see the report\n\n.*`report.json`\n?\Z", small)
    assert left and len(shown_rows) + int(left[1]) >= report["summary"]["broken"]
    bad = run(folder, "show", "report.json", "--format", "markdown", "--max-bytes", "12")
    assert bad.returncode == 2 and len(bad.stderr.splitlines()) == 1


def _broken_rows(text: str) -> list[tuple[str, str, str]]:
    """The broken-links table as GitHub renders it (cmark-gfm): each row
    whole, three cells."""
    rendered = cmarkgfm.github_flavored_markdown_to_html(text, options=Options.CMARK_OPT_UNSAFE)
    tree = html5lib.parse(rendered, namespaceHTMLElements=False)
    tables = [t for t in tree.iter("table") if t.find("./thead/tr/th").text == "broken URL"]
    if not tables:
        return []
    rows = []
    for tr in tables[0].findall("./tbody/tr"):
        cells = ["".join(td.itertext()) for td in tr.findall("td")]
        assert len(cells) == 3
        rows.append(tuple(cells))
    return rows


def test_sarif_one_result_per_missing_file(docs):
    folder, report = docs
    sarif = json.loads(show(folder, "--format", "sarif").stdout)
    assert sarif["version"] == "2.1.0"
    (results,) = [run["results"] for run in sarif["runs"]]
    results = [r for r in results if r["ruleId"] == "broken-link"]
    assert len(results) == report["summary"]["broken"]  # one alert per broken URL
    for name in GONE:
        broken = entry(report, name)
        (result,) = [r for r in results if f"{named(broken)}:" in r["message"]["text"]]
        assert result["ruleId"] == "broken-link"
        places = [result["locations"][0]] + result["relatedLocations"]
        keys = [
            (
                p["physicalLocation"]["artifactLocation"]["uri"],
                p["physicalLocation"]["region"]["startLine"],
            )
            for p in places
        ]
        assert len(keys) == len(set(keys))  # each place once
        assert all(uri.startswith("docs/") for uri, _ in keys)  # the build's files
        assert len(places) <= 1000  # GitHub refuses more than 1,000 locations
        ids = [p["id"] for p in result["relatedLocations"]]
        assert len(ids) == len(set(ids))
        assert result["properties"]["referrerCount"] == broken["referrer_count"]


def test_junit_lists_what_fails_grouped_by_outcome(docs):
    folder, report = docs
    s = report["summary"]
    suites = ET.fromstring(show(folder, "--format", "junit").stdout)
    assert [suite.get("name") for suite in suites] == ["audit", "broken"]
    cases = list(suites.iter("testcase"))
    assert len(cases) == 1 + s["broken"]  # not the thousands ok or excluded
    assert int(suites.get("failures")) == s["broken"]
    copyright = entry(report, "copyright.html")
    (case,) = [c for c in cases if c.get("name") == named(copyright)]
    text = case.find("failure").text
    # the URL, the count, then its places as text says them: template lines first
    lines = text.splitlines()
    assert lines[1].startswith("linked from ") and len(lines) <= 8, lines
    assert lines[2].startswith("in the site template (footer), on ")
    every = ET.fromstring(show(folder, "--format", "junit", "--junit-all").stdout)
    assert len(list(every.iter("testcase"))) == 1 + s["urls"]


def test_html_keeps_every_place_behind_details(docs):
    folder, report = docs
    page = show(folder, "--format", "html").stdout
    copyright = entry(report, "copyright.html")
    card = page[page.index(f'data-url="{copyright["url"]}"') :]
    card = card[: card.index("</article>")]
    # (a page at / and /index.html is one file: one page)
    pages = len({r.get("file") or r["url"] for r in copyright["referrers"]})
    # how far it reaches first, then the first places, the others behind <details>
    assert f"linked from {pages} pages ({copyright['referrer_count']:,} links).</p>" in card
    assert "<details><summary>" in card


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (None, "No such file or directory"),
        ("{not json", "not a linkaudit report"),
        ('{"summary": {}}', "not a linkaudit report"),
        ("\x00\xff binary", "not a linkaudit report"),
        ("[]", "not a linkaudit report"),
        ("/dev/zero", "not a file"),
    ],
)
def test_show_refuses_what_is_not_a_report_in_one_line(tmp_path, content, words):
    if content == "/dev/zero":  # endless: refused before it is read
        (tmp_path / "report.json").symlink_to(content)
    elif content is not None:
        (tmp_path / "report.json").write_bytes(content.encode("latin-1"))
    out = run(tmp_path, "show", "report.json")
    assert out.returncode == 2
    assert out.stdout == ""
    (line,) = out.stderr.splitlines()
    assert line.startswith("linkaudit show: error: report.json: ") and words in line


def test_duplicate_links_on_a_line_are_printed_once_with_a_count():
    """Several links on one line of one page: one place, counted."""
    referrers = [{"url": "http://site.test/p", "line": 7}] * 3 + [
        {"url": "http://site.test/q", "line": 2}
    ]
    report = {
        "start_urls": ["http://site.test/"],
        "started_at": "2026-01-01T10:00:00+00:00",
        "finish_reason": "finished",
        "complete": True,
        "summary": {"urls": 1, "pages": 2, "requests": 3}
        | {o: 0 for o in ("ok", "redirect", "blocked", "excluded", "unchecked")}
        | {"broken": 1},
        "urls": [
            {"url": "http://site.test/gone", "near": True, "outcome": "broken", "status": 404}
            | {"error": "404 Not Found", "referrer_count": 4, "referrers": referrers}
        ],
    }
    text = FORMATS["text"](report)
    assert "    http://site.test/p line 7 (3 links)\n    http://site.test/q line 2" in text
    assert text.count("site.test/p line 7") == 1
    assert "(3 links)" in FORMATS["markdown"](report)


def test_the_html_report_on_the_python_docs_in_chromium(docs, tmp_path):
    """Looked at as its reader does, in headless Chromium: one card per
    broken URL, each a few lines tall with its places folded, at most one
    grouped finding per kind of block for each URL; a screenshot taken."""
    from selenium.webdriver.common.by import By

    from tests.browser import chromium, full_page_png, missing

    why = missing()
    if why:
        pytest.fail(f"no browser: {why} (tests/setup.sh installs it)")
    folder, report = docs
    page = tmp_path / "report.html"
    page.write_text(show(folder, "--format", "html").stdout, encoding="utf-8")
    with chromium() as driver:
        driver.get(page.as_uri())
        cards = driver.find_elements(By.CSS_SELECTOR, "article.target")
        broken = sorted(u["url"] for u in report["urls"] if u["outcome"] == "broken")
        assert sorted(c.get_attribute("data-url") for c in cards) == broken
        for card in cards:  # folded: a screenful at most, whatever the pages
            assert card.size["height"] < 900, (card.get_attribute("data-url"), card.size)
        groups = driver.find_elements(By.CSS_SELECTOR, "#groups li.group")
        kinds = [
            (g.get_attribute("data-target"), g.get_attribute("data-kind"), g.text.split("\n")[0])
            for g in groups
        ]
        per_url = {}
        for target, kind, text in kinds:
            block = re.search(r"in the site template \(([^)]+)\)", text)
            per_url.setdefault(target, []).append(block[1] if block else kind)
        # one page group, and one template finding per kind of block, at most
        assert all(len(found) == len(set(found)) for found in per_url.values()), kinds
        assert len(groups) <= 4 * len(broken), kinds
        png = full_page_png(driver)
    assert png.startswith(b"\x89PNG") and len(png) > 10_000
    (tmp_path / "report.png").write_bytes(png)
