"""Where a finding is linked, said alike in every format (issue 40).

One site audited once: a page links ``/old``, which answers 301 to a
missing ``/gone``; a chain of three hops ends on a missing page; two URLs
redirect to each other; a missing page is linked from a footer on seven
pages.  Then the report, and each format re-rendered from it with
``linkaudit show``, must name the page and line that link to the redirect
among the broken target's places ("line 7, through /old"), locate every
SARIF result at a page's line (a loop's too), say how many places a list
left out, and the HTML report must keep each section in its own card."""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path
from xml.etree import ElementTree as ET

import html5lib
import pytest

from linkaudit.output.formats import FORMATS
from linkaudit.output.formats.places import Options
from tests.conftest import validate
from tests.helpers.command import run
from tests.server import Route, TestServer

PAGES = [f"/p{i}" for i in range(1, 8)]
FOOTER = '<footer><a href="/missing">missing</a> <a href="/old">old</a></footer>'
HOME = [
    "<!DOCTYPE html><title>Home</title>",  # 1
    '<a href="/loop-a">loop</a>',  # 2: /loop-a -> /loop-b -> /loop-a
    '<a href="/missing">missing</a>',  # 3: 404
    " ".join(f'<a href="{p}">{p}</a>' for p in PAGES),  # 4
    '<a href="/says">says</a>',  # 5: a soft 404 (its title)
    '<a href="/p1#nowhere">nowhere</a>',  # 6: a missing fragment
    '<a href="/old">old</a>',  # 7: 301 -> /gone, 404
    '<a href="/hop1">hop</a>',  # 8: 301 -> 301 -> 302 -> /gone2, 404
]


@dataclass
class Audited:
    n: str  # the site
    folder: Path
    report: dict
    markdown: str  # the audit's own stdout, --format markdown

    def entry(self, path: str) -> dict:
        return next(u for u in self.report["urls"] if u["url"] == self.n + path)

    def show(self, fmt: str, *more: str) -> str:
        out = run(self.folder, "show", "r.json", "--format", fmt, *more)
        assert out.returncode == 1, out.stderr
        return out.stdout


@pytest.fixture(scope="module")
def audited(tmp_path_factory) -> Audited:
    folder = tmp_path_factory.mktemp("places")
    with TestServer() as s:
        s.add("/", "\n".join(HOME))
        for page in PAGES:
            s.add(page, f"<!DOCTYPE html><title>{page}</title>\n{FOOTER}\n<p>{page}</p>")
        s.add("/loop-a", Route(301, headers={"Location": "/loop-b"}))
        s.add("/loop-b", Route(302, headers={"Location": "/loop-a"}))
        s.add("/old", Route(301, headers={"Location": "/gone"}))
        s.add("/hop1", Route(301, headers={"Location": "/hop2"}))
        s.add("/hop2", Route(301, headers={"Location": "/hop3"}))
        s.add("/hop3", Route(302, headers={"Location": "/gone2"}))
        s.add("/says", "<!DOCTYPE html><title>Page not found</title><p>Sorry.</p>")
        options = ["--delay", "0", "--check-fragments", "--max-referrers", "2"]
        out = run(folder, f"{s.url}/", *options, "--report", "r.json", "--html", "r.html")
        out_format = run(folder, "show", "r.json", "--format", "markdown", "--max-referrers", "2")
    assert out.returncode == 1, out.stderr
    report = json.loads((folder / "r.json").read_text())
    validate(report)
    return Audited(s.url, folder, report, out_format.stdout)


def _through(n: str, page: str, line: int, via: str) -> dict:
    return {"url": n + page, "line": line, "via": n + via}


def test_a_broken_link_behind_redirects_names_the_pages_that_link_the_redirect(audited):
    """The report: /gone's places are the redirect, then the pages' links
    to /old (line 7 of /, the footers), each ``via`` /old; a chain of three
    hops names the link to its first; a loop's second URL names the link
    to its first."""
    n = audited.n
    gone = audited.entry("/gone")["referrers"]
    assert gone[0] == {"url": f"{n}/old", "line": None}  # the redirect, as before
    assert gone[1:] == [_through(n, "/", 7, "/old")] + [
        _through(n, page, 2, "/old") for page in PAGES
    ]
    assert audited.entry("/gone")["referrer_count"] == 1  # links to /gone itself
    assert _through(n, "/", 8, "/hop1") in audited.entry("/gone2")["referrers"]
    assert _through(n, "/", 2, "/loop-a") in audited.entry("/loop-b")["referrers"]
    # the pages' links to /old are a template group of /gone too
    groups = [g for g in audited.report["groups"] if g["target"] == f"{n}/gone"]
    # (and the redirect itself is no page: / alone links /gone in its content)
    assert [(g["kind"], g["pages"]) for g in groups] == [("template", len(PAGES)), ("page", 1)]


def test_every_format_names_the_page_and_line_through_the_redirect(audited):
    n = audited.n
    words = f"{n}/ line 7, through {n}/old"
    text = audited.show("text", "--max-referrers", "2")
    block = text.split(f"  {n}/gone  [404 Not Found]\n")[1].split("\n  http")[0]
    assert words in block
    assert f"{n}/ line 8, through {n}/hop1" in text  # three hops
    assert f"{n}/ line 2, through {n}/loop-a" in text  # the loop's second URL
    row = next(r for r in audited.markdown.splitlines() if r.startswith(f"| `{n}/gone` |"))
    assert f"`{n}/` line 7, through `{n}/old`" in row
    junit = ET.fromstring(audited.show("junit", "--max-referrers", "2"))
    (case,) = [c for c in junit.iter("testcase") if c.get("name") == f"{n}/gone"]
    assert words in case.find("failure").text
    page = html5lib.parse((audited.folder / "r.html").read_text(), namespaceHTMLElements=False)
    card = page.find(f".//article[@data-url='{n}/gone']")
    place = card.find(f".//li[@data-via='{n}/old'][@data-line='7']")
    assert place is not None and place.get("data-page") == f"{n}/"
    assert "through" in "".join(place.itertext())


def test_each_sarif_result_is_located_at_a_page_and_line(audited):
    """A redirect that leads to the target is a related location, never
    the location: the loop's results are at line 2 of /, /gone's at line 7."""
    n = audited.n
    sarif = json.loads(audited.show("sarif"))
    results = {r["message"]["text"].split(":")[1].strip(): r for r in sarif["runs"][0]["results"]}
    for result in sarif["runs"][0]["results"]:
        (location,) = result["locations"]
        assert location["physicalLocation"]["region"]["startLine"] >= 1, result
    for path, line in (("/loop-a", 2), ("/loop-b", 2), ("/gone", 7), ("/gone2", 8)):
        result = next(
            r
            for r in sarif["runs"][0]["results"]
            if r["message"]["text"].startswith(f"Broken link to {n}{path}:")
        )
        location = result["locations"][0]["physicalLocation"]
        assert location == {"artifactLocation": {"uri": f"{n}/"}, "region": {"startLine": line}}
        hops = [r for r in result["relatedLocations"] if "region" not in r["physicalLocation"]]
        assert [r["message"]["text"] for r in hops] == ["redirects here"], path
    gone = next(r for r in sarif["runs"][0]["results"] if f"to {n}/gone:" in r["message"]["text"])
    assert gone["locations"][0]["message"]["text"] == f"links {n}/old, which redirects here"
    # its count is the links its message counts (through /old too), not the
    # redirect's own
    assert "linked from 8 pages;" in gone["message"]["text"]
    assert gone["properties"]["referrerCount"] == 8
    assert results  # (every message names its target)


def test_a_list_cut_for_length_says_how_many_were_left_out(audited):
    """/missing: linked from / and from the footer of seven pages (a
    template group); /gone through /old from the same places: each format
    prints two places and how many more."""
    text = audited.show("text", "--max-referrers", "2")
    assert "(first: " in text and " and 4 more)" in text  # a template group's pages
    assert "    and 1 more: the JSON report has them all (-v prints them)" in text
    assert "and 1 more: see the report" in audited.markdown
    assert " and 4 more)" in audited.markdown
    junit = audited.show("junit", "--max-referrers", "2")
    assert "and 1 more: the JSON report has them all" in junit
    html = (audited.folder / "r.html").read_text()
    assert " and 4 more)</p>" in html  # the grouped findings' first pages
    assert ", ...)" not in text + audited.markdown + html


def test_the_markdown_s_last_line_names_the_report(audited):
    assert audited.markdown.splitlines()[-1] == "The whole report: `r.json`"
    cut = audited.show("markdown", "--max-bytes", "1000")
    assert cut.splitlines()[-1] == "The whole report: `r.json`"
    assert len(cut.encode()) <= 1000 and "more: see the report" in cut


def _sections(element: ET.Element, inside: tuple[str, ...] = ()) -> list[tuple[tuple, str]]:
    """Every section of the page (a <section>, a .sub part, a card) with
    the sections, parts and cards it sits in."""
    found = []
    for child in element:
        kind = child.get("class") or ""
        here = inside
        if child.tag == "section" or "sub" in kind.split() or child.tag == "article":
            found.append((inside, child.get("id") or child.get("data-url") or ""))
            here = (*inside, child.get("id") or child.get("data-url") or child.tag)
        found.extend(_sections(child, here))
    return found


def test_the_html_report_keeps_each_section_in_its_own_card(audited):
    """No "complete (complete)"; the missing fragments and soft 404s are
    sections of their own, beside the broken links (in the table of
    contents), not parts of the broken links' card; no card holds a part."""
    text = (audited.folder / "r.html").read_text()
    assert "complete (complete)" not in text
    page = html5lib.parse(text, namespaceHTMLElements=False)
    complete = page.find(".//span[@id='complete']/..")
    assert "".join(complete.itertext()).strip() == "complete"
    main = page.find(".//main")
    tops = [s.get("id") for s in main.findall("section")]
    assert tops[:4] == ["summary", "broken", "fragments", "soft-404"], tops
    for inside, name in _sections(main):
        assert len(inside) <= 1 or inside[0] in ("redirects", "sitemap", "unchecked", "trend")
        assert not [p for p in inside if p.startswith("http")], (inside, name)  # no card holds one
    toc = [a.get("href") for a in page.findall(".//nav[@aria-label='Sections']//a")]
    assert toc[:3] == ["#broken", "#fragments", "#soft-404"]


def _rendered_report() -> dict:
    """A report of one rendered page whose script added 150 links (the
    report lists the first 100), removed 5, and navigated 4 times."""
    added = [f"http://s/a{i}" for i in range(100)]
    section = {
        "page": "http://s/",
        "added": added,
        "added_count": 150,
        "removed": [f"http://s/r{i}" for i in range(5)],
        "removed_count": 5,
        "navigations": [f"http://s/n{i}" for i in range(4)],
        "requests": 3,
    }
    summary = dict.fromkeys(("ok", "redirect", "broken", "blocked", "excluded", "unchecked"), 0)
    summary.update(urls=0, pages=1, requests=3, rendered_pages=1, render_requests=3)
    return {
        "start_urls": ["http://s/"],
        "started_at": "2026-01-01T00:00:00+00:00",
        "finished_at": "2026-01-01T00:00:01+00:00",
        "finish_reason": "finished",
        "complete": True,
        "summary": summary,
        "rendered": [section],
        "urls": [],
    }


def test_the_rendered_links_lists_say_how_many_more():
    report = _rendered_report()
    text = FORMATS["text"](report, Options())
    assert "    and 147 more only after rendering" in text
    assert "    and 2 more removed by its script" in text
    assert "    and 1 more script navigations" in text
    verbose = FORMATS["text"](report, Options(max_referrers=None))  # -v: all the report has
    assert "    and 50 more only after rendering" in verbose
    assert "more removed by its script" not in verbose and "    - http://s/r4" in verbose
    markdown = FORMATS["markdown"](report, Options())
    assert "; navigates to `http://s/n0`, `http://s/n1`, `http://s/n2` and 1 more" in markdown
    html = FORMATS["html"](report, Options())
    assert "and 50 more: the report lists the first 100." in html


def test_without_a_report_path_the_markdown_names_none():
    """The Action's own summary (a library call without the report's name)
    adds its footer itself."""
    markdown = FORMATS["markdown"](_rendered_report(), Options())
    assert "The whole report" not in markdown


def test_the_command_s_markdown_ends_with_the_report_it_wrote(tmp_path):
    """``linkaudit URL --format markdown --report PATH``: PATH as typed."""
    with TestServer({"/": Route(body="<a href='/x'>x</a>")}) as s:
        out = run(
            tmp_path, f"{s.url}/", "--delay", "0", "--format", "markdown", "--report", "a.json"
        )
    assert out.returncode == 1, out.stderr
    assert out.stdout.rstrip("\n").splitlines()[-1] == "The whole report: `a.json`"
    assert isinstance(out, subprocess.CompletedProcess)
