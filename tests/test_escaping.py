"""Nothing from a crawled page reaches a reader unescaped (issue 23).

Every format is read back by a strict reader, whatever the report holds:
the text has no control or invisible character, the JSON and SARIF parse
(strict) and are UTF-8, the JUnit is well-formed XML 1.0, the HTML parses
without error (html5lib, strict), and the markdown, rendered by GitHub's
own renderer (cmark-gfm), has no image, link, raw HTML element, heading or
@mention that a page put there, and one table row per broken URL.

The reports: one real audit of a site whose pages hold the whole adversarial
corpus (tests/corpus.py) in hrefs, a title, a redirect's Location, a
sitemap's <loc>s, fragments and a template block; and one built by hand for
what no page can carry (lone surrogates, C1 controls in every field)."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import cmarkgfm
import html5lib
import pytest
from cmarkgfm.cmark import Options
from lxml import etree

from linkaudit.output.formats import FORMATS
from linkaudit.output.formats.common import shown
from linkaudit.output.formats.markdown import code
from linkaudit.output.formats.places import MAX_BYTES
from linkaudit.output.formats.places import Options as Shown
from linkaudit.output.reading import conform, read_report
from linkaudit.output.report.build import ReportFacts, write_report
from linkaudit.rules.urls import InvalidURL, canonicalize
from linkaudit.state.memory import MemoryState
from tests.conftest import run_crawl
from tests.corpus import CORPUS, LONG, SURROGATES
from tests.helpers.command import run
from tests.server import Route, TestServer

# What no page can carry, and C1 and bidi controls, for the built report
ODD = [*SURROGATES, "\x85\x9b31m\u202e", "a\r\nb\u2028c", "``` `` `", "` x `", "a\\|b", " ", ""]

# What a reader's terminal or browser would act on or hide, if written raw
_RAW = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


# -- shown: one function for every value from a page or a server ----------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("http://example.com/a?b=1#c", "http://example.com/a?b=1#c"),  # as it is
        ("http://bücher.example/ü", "http://bücher.example/ü"),
        ("a\x1b[31mred\x1b[0m", "a\\x1b[31mred\\x1b[0m"),
        ("\x00\x07\x7f\x85\x9b", "\\x00\\x07\\x7f\\x85\\x9b"),
        ("a\tb\nc\rd", "a\\tb\\nc\\rd"),
        ("\u202egnp.exe", "\\u202egnp.exe"),
        (
            "\u2066\u2069\u200e\u200f\u061c\ufeff\u200b",
            "\\u2066\\u2069\\u200e\\u200f\\u061c\\ufeff\\u200b",
        ),
        ("\u2028\u2029\xa0", "\\u2028\\u2029\\xa0"),
        ("x\ud800y\udfff", "x\\ud800y\\udfff"),
        ("\U000e0001", "\\U000e0001"),  # a tag character: invisible
        ("C:\\site\\page.html", "C:\\site\\page.html"),  # backslashes kept
        (None, ""),
        (404, "404"),
    ],
)
def test_shown_escapes_what_is_not_printable_as_repr_does(value, expected):
    assert shown(value) == expected


def test_shown_leaves_only_printable_characters():
    for value in [*CORPUS, *SURROGATES, "".join(map(chr, range(0x2100)))]:
        text = shown(value)
        assert text.isprintable()
        text.encode("utf-8")  # strict: no lone surrogate
        if value.isprintable():
            assert text == value


@pytest.mark.parametrize("value", ["a", "`", "``", "a`b", "a``b`", "`a", "a`", " a ", " ", ""])
def test_code_span_holds_any_run_of_backticks(value):
    rendered = cmarkgfm.github_flavored_markdown_to_html(f"x {code(value)} y")
    assert rendered == f"<p>x <code>{html.escape(value or ' ', quote=False)}</code> y</p>\n"


# -- every format read back strictly ---------------------------------------

_OURS = {"h3", "h4", "p", "table", "thead", "tbody", "tr", "th", "td", "code", "br", "ul", "li"}
_MENTION = re.compile(r"(?:^|\W)@[A-Za-z0-9]")


def check_markdown(text: str, report: dict[str, Any], cap: int | None = MAX_BYTES) -> None:
    assert all(line.isprintable() for line in text.split("\n"))
    rendered = cmarkgfm.github_flavored_markdown_to_html(
        text,
        # GFM's tables, autolinks, strikethrough, tag filter; raw HTML kept
        # (GitHub's sanitizer lets <img>, <a> and most of it through)
        options=Options.CMARK_OPT_UNSAFE,
    )
    tree = html5lib.parse(rendered, namespaceHTMLElements=False)
    tags = {e.tag for e in tree.iter() if isinstance(e.tag, str)} - {"html", "head", "body"}
    assert tags <= _OURS, tags - _OURS  # no <a>, <img>, <h1>, <script>, <del>, <em>...
    outside = "".join(_text_outside_code(tree.find("body")))
    assert not _MENTION.search(outside), _MENTION.search(outside)
    assert "://" not in outside and "www." not in outside  # nothing to autolink
    broken = [u for u in report["urls"] if u["outcome"] == "broken"]
    gaps = [g for u in report["urls"] for g in u.get("missing_fragments", ())]
    assert cap is None or len(text.encode("utf-8")) <= cap  # where GitHub takes it
    tables = [t for t in tree.findall(".//table") if t.find("./thead/tr/th").text == "broken URL"]
    if broken or gaps:
        rows = tables[0].findall("./tbody/tr") if tables else []
        # whole rows, in order, the rest counted: none broken by a newline or a |
        more = re.search(r"\n\nand ([0-9,]+) more: see the report\Z", text)
        assert len(rows) == len(broken) + len(gaps) or (
            more and len(rows) < len(broken) + len(gaps)
        )
        assert all(len(r.findall("td")) == 3 for r in rows)
        shown_urls = [r.find("td/code").text for r in rows[: len(broken)]]
        assert shown_urls == [shown(u["url"]) or " " for u in broken][: len(rows)]  # whole


def _text_outside_code(element) -> list[str]:
    out = [element.text or ""] if element.tag != "code" else []
    for child in element:
        out.extend(_text_outside_code(child))
        out.append(child.tail or "")
    return out


def _check_text(text: str, report: dict[str, Any]) -> None:
    assert all(line.isprintable() for line in text.split("\n"))


def _check_json(text: str, report: dict[str, Any]) -> None:
    assert not _RAW.search(text)  # cat shows no bidi trick, no C1 control
    # as the standard library's ASCII JSON reads back (two lone surrogates
    # in a row, high then low, read back as the one character they encode)
    assert json.loads(text, strict=True) == json.loads(json.dumps(report))


def _check_junit(text: str, report: dict[str, Any]) -> None:
    assert not _RAW.search(text)
    ElementTree.fromstring(text.encode("utf-8"))
    etree.fromstring(text.encode("utf-8"), etree.XMLParser(recover=False))


def _check_sarif(text: str, report: dict[str, Any]) -> None:
    assert not _RAW.search(text)
    sarif = json.loads(text, strict=True)
    for sarif_run in sarif["runs"]:
        for result in sarif_run["results"]:
            message = result["message"]["text"]
            assert message.isprintable()
            assert not re.search(r"(?<!\\)\[", message)  # no embedded link
            assert not re.search(r"(?<!\{)\{\d+\}", message)  # no placeholder
            for place in result["locations"] + result.get("relatedLocations", []):
                assert place["physicalLocation"]["artifactLocation"]["uri"].isprintable()


# a workflow command: its level, its properties (no raw ':' or ',' in a
# value), then its message; one a line
_COMMAND = re.compile(r"::(error|warning|notice)( [a-z]+=[^,:]*(,[a-z]+=[^,:]*)*)?::[^\r\n]*")


def _check_github(text: str, report: dict[str, Any]) -> None:
    assert not _RAW.search(text)
    lines = text.split("\n")
    assert all(line.isprintable() and _COMMAND.fullmatch(line) for line in lines), lines
    results = json.loads(FORMATS["sarif"](report))["runs"][0]["results"]
    assert len(lines) == len(results) + 1  # an annotation a result, and the count


def _check_html(text: str, report: dict[str, Any]) -> None:
    assert not _RAW.search(text)
    html5lib.HTMLParser(strict=True).parse(text)


CHECKS = {
    "text": _check_text,
    "json": _check_json,
    "junit": _check_junit,
    "sarif": _check_sarif,
    "html": _check_html,
    "markdown": check_markdown,
    "github": _check_github,
}


def check_format(name: str, report: dict[str, Any]) -> None:
    """``report`` as format ``name``, read back by a strict reader."""
    text = FORMATS[name](report)
    text.encode("utf-8")  # what a file or stdout holds: strict UTF-8
    CHECKS[name](text, report)
    if name == "markdown":  # uncut too: every row whole (the cap is checked above)
        whole = FORMATS[name](report, Shown(max_bytes=1 << 40))
        assert "more: see the report" not in whole
        check_markdown(whole, report, cap=None)


def _entry(url: str, value: str, outcome: str = "broken") -> dict[str, Any]:
    referrers = [
        {"url": f"http://site.test/{value}", "line": 3},
        {"url": "http://site.test/p", "line": None, "file": f"public/{value}.html"},
        # a page's link through a redirect, named by the redirect's URL
        {"url": "http://site.test/q", "line": 7, "via": f"http://site.test/{value}"},
    ]
    return {
        "url": url,
        "near": True,
        "outcome": outcome,
        "status": 404 if outcome == "broken" else None,
        "error": f"Invalid URL: {value}",
        "method": "GET",
        "content_type": value,
        "location": value,
        "depth": 1,
        "referrer_count": 2,
        "referrers": referrers,
        "warning": f"soft 404: {value}",
        "soft_404": True,
        "new": True,
        "missing_fragments": [{"fragment": value, "referrers": referrers[:1], "new": True}],
    }


def built_report(values: list[str]) -> dict[str, Any]:
    """A report with ``values`` in every field a page or a server fills."""
    outcomes = ("broken", "unchecked", "blocked", "redirect", "excluded", "ok")
    urls = [
        _entry(f"http://site.test/{i}/{v}", v, outcomes[i % len(outcomes)])
        for i, v in enumerate(values)
    ]
    summary = {"urls": len(urls), "pages": 1, "requests": 1, "missing_fragments": len(urls)}
    summary |= {o: sum(u["outcome"] == o for u in urls) for o in outcomes}
    summary |= {"soft_404": len(urls), "internal_errors": 0}
    fixes = [
        {"page": f"http://site.test/{v}", "line": 3, "from": f"http://site.test/{v}"}
        | {"to": v, "kind": "permanent", "statuses": [301], "hops": 1, "final_outcome": "ok"}
        | {"final_status": 200, "loop": False, "file": f"{v}.html"}
        for v in values
    ]
    groups = [
        {"target": u["url"], "kind": kind, "pages": 2, "block": v, "outcome": "broken"}
        | {"status": None, "error": v, "referrers": u["referrers"]}
        for u, v in zip(urls, values, strict=True)
        for kind in ("template", "page")
        if u["outcome"] == "broken"
    ]
    listed = [u["url"] for u in urls]
    return {
        "version": 1,
        "start_urls": [f"http://site.test/{v}" for v in values[:3]],
        "near_prefixes": ["http://site.test/"],
        "started_at": "2026-01-01T10:00:00+00:00",
        "finished_at": "2026-01-01T10:00:01+00:00",
        "finish_reason": "finished",
        "complete": False,
        "summary": summary,
        "baseline": "baseline.json",
        "fixed": listed,
        "sitemap": {"sitemaps": listed, "urls": len(listed), "broken": listed}
        | {"redirects": listed, "orphans": listed, "missing": listed},
        "redirect_fixes": fixes,
        "groups": groups,
        "urls": urls,
    }


# the corpus's 100 KB URLs cut (they go whole through the audit below): the
# built report repeats each value in some twenty places, and html5lib reads
# a few MB a second
SHORT = [v[:2000] for v in CORPUS]


@pytest.mark.parametrize("fmt", sorted(FORMATS))
@pytest.mark.parametrize("values", [SHORT, ODD], ids=["corpus", "surrogates-and-c1"])
def test_a_built_report_reads_back_strictly(values, fmt):
    check_format(fmt, built_report(values))


def test_a_report_file_holds_a_lone_surrogate_from_the_state(tmp_path):
    """What no page carries, a state may (a database, a feed): the report
    file is still written, valid UTF-8, and reads back the same URL."""
    state = MemoryState()
    odd = [v for v in ODD if v]
    for url in odd:
        state.discover(url, 1)
        state.add_referrer(url, "http://site.test/\ud800", 2)
    path = tmp_path / "report.json"
    times = {"started_at": "2026-01-01T10:00:00+00:00", "finished_at": "2026-01-01T10:00:01+00:00"}
    facts = ReportFacts(
        start_urls=["http://site.test/\udfff"],
        near_prefixes=["http://site.test/"],
        finish_reason="finished",
        pages=1,
        requests=1,
        **times,
    )
    write_report(str(path), state, facts)
    text = path.read_bytes().decode("utf-8")  # strict
    assert not _RAW.search(text)
    report = json.loads(text, strict=True)
    assert {u["url"] for u in report["urls"]} == {json.loads(json.dumps(u)) for u in odd}
    assert report["start_urls"] == ["http://site.test/\udfff"]


# -- one real audit of a site holding the whole corpus ---------------------


def _page(body: str, title: str = "page") -> str:
    return f"<!DOCTYPE html><html><head><title>{title}</title></head><body>\n{body}\n</body></html>"


def _readable(value: str) -> bool:
    """Whether the link reader takes ``value`` (as valid or invalid).  A
    value that makes it raise is another part of issue 23 (one odd link
    must not cost a page): left out here until that is fixed, then in."""
    try:
        canonicalize(value, "http://127.0.0.1/")
    except InvalidURL:
        pass
    except Exception:
        return False
    return True


# not the 100 KB URLs: they test the audit's bounds, not escaping, and each
# repeated in a 6 MB HTML report costs html5lib seconds
HREFS = [v for v in CORPUS if _readable(v) and v not in LONG]
# what XML 1.0 cannot hold, even escaped (a sitemap that holds it is not XML)
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _corpus_site(s: TestServer) -> None:
    """The corpus as hrefs (one per line), in a footer on two pages (a
    template group), as fragments of a page link, as a sitemap's <loc>s;
    a soft 404 whose title is hostile; a redirect whose Location is."""
    n = s.url
    links = "\n".join(f'<a href="{html.escape(v)}">x</a>' for v in HREFS)
    footer = '<footer id="footer">' + links + "</footer>"
    frags = "\n".join(f'<a href="/b#{html.escape(v)}">f</a>' for v in HREFS)
    nasty = html.escape("Page not found <img src=x> @octocat \u202egnp.exe `|` [a](b) {0}")
    s.add("/", _page(f'{footer}\n{frags}\n<a href="/soft">s</a>\n<a href="/moved">m</a>'))
    s.add("/b", _page(footer + '\n<a href="/c">c</a>'))
    s.add("/c", _page("<p>no links</p>"))
    s.add("/soft", _page("<h1>gone</h1>", title=nasty))
    odd = "/a%1B[31m%E2%80%AE|`@octocat`<img src=x>"
    s.add("/moved", Route(301, headers={"Location": f"{n}{odd}"}))
    locs = "".join(
        f"<url><loc>{html.escape(v)}</loc></url>" for v in HREFS if not _NOT_XML.search(v)
    )
    sitemap = f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{locs}</urlset>'
    s.add("/sitemap.xml", Route(body=sitemap, content_type="application/xml"))


@pytest.fixture(scope="module")
def audit(tmp_path_factory) -> tuple[Path, str]:
    tmp = tmp_path_factory.mktemp("corpus")
    with TestServer() as s:
        _corpus_site(s)
        crawl = run_crawl(
            tmp,
            "-a",
            f"start={s.url}/",
            "-a",
            "check_fragments=true",
            "-a",
            f"sitemap={s.url}/sitemap.xml",
            "-a",
            "skip_far=true",  # no DNS for example.com and its kind
            settings={"LINKAUDIT_DEPTH": "1"},
        )
    assert crawl.report is not None, crawl.stderr[-3000:]
    return tmp / "report.json", crawl.stderr


def test_a_corpus_audit_holds_the_values_raw(audit):
    """The values reached the report as a page wrote them (so the tests
    below see them), and the summary the crawl logs shows them escaped."""
    path, stderr = audit
    full = read_report(str(path))
    assert full["summary"]["broken"] > 20 and full.get("groups") and full.get("sitemap")
    assert full.get("redirect_fixes") and full["summary"].get("soft_404")
    urls = {u["url"] for u in full["urls"]}
    assert "http://exa\u202emple.com/" in urls  # an invalid href, as written
    fragments = {g["fragment"] for u in full["urls"] for g in u.get("missing_fragments", ())}
    assert {"\x1b[2J", "<img src=https://evil.example/track.png>", "@octocat please look"} <= (
        fragments
    )
    summary = stderr[stderr.index("linkaudit: ") :]
    assert all(line.isprintable() for line in summary.split("\n")), summary


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_a_corpus_audit_reads_back_strictly(audit, fmt):
    """Every format, from the report read whole and read lean (as the
    command reads it for the formats but JUnit and HTML)."""
    path, _stderr = audit
    check_format(fmt, read_report(str(path)))
    check_format(fmt, read_report(str(path), lean=True))


# -- a report file edited by anyone, shown again (linkaudit show) ----------

# what a hostile edit puts in every string: markup that would run, quotes
# that would close an attribute, controls, markdown and a mention
PAYLOAD = (
    "\"'><script>alert(1)</script><img src=x onerror=alert(2)>"
    "\x1b[31m\x01\x0b\x85\u202e|`**x**` @octocat [a](https://evil.example)"
)


def _tampered(value: Any, key: str = "") -> Any:
    """Every string with :data:`PAYLOAD` after it, every number as text
    holding it, every flag as text; lists and objects walked."""
    if isinstance(value, dict):
        return {k: _tampered(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_tampered(v, key) for v in value]
    if isinstance(value, bool):
        return f"{value}{PAYLOAD}"
    if isinstance(value, int | float):
        return f"{value}<script>alert({value})</script>"
    if isinstance(value, str):
        return value + PAYLOAD
    return value


def test_a_tampered_report_is_shown_with_a_fresh_audits_types_and_escaping(audit, tmp_path):
    """``linkaudit show`` of the corpus audit's report with every string
    given markup, quotes and controls, every number and flag made text:
    every format read back by its strict reader, no element or attribute
    of the payload's in the HTML, one warning naming what was not as
    linkaudit writes it."""
    path, _stderr = audit
    report = json.loads(path.read_text())
    report["complete"] = False  # its finish_reason is shown
    tampered = tmp_path / "tampered.json"
    # written raw: the C1 and bidi controls as characters, not escapes
    tampered.write_text(json.dumps(_tampered(report), ensure_ascii=False), encoding="utf-8")
    expected = _tampered(report)
    conform(expected)
    for fmt in sorted(FORMATS):
        out = run(tmp_path, "show", str(tampered), "--format", fmt)
        assert out.returncode in (0, 1, 3), (fmt, out.stderr[-2000:])
        (warning,) = out.stderr.splitlines()
        assert (
            warning.startswith(f"linkaudit show: warning: {tampered}: ") and "summary." in warning
        )
        assert warning.isprintable()
        if fmt == "json":  # the file as it is, what linkaudit escapes escaped
            assert not _RAW.search(out.stdout)
            assert json.loads(out.stdout) == json.loads(tampered.read_text(encoding="utf-8"))
            continue
        text = out.stdout.removesuffix("\n")
        CHECKS[fmt](text, expected)
        if fmt in ("html", "junit"):  # markup: the payload's only as text
            assert "<script>alert" not in text and "<img src=x" not in text, fmt
        if fmt == "html":
            tree = html5lib.parse(text, namespaceHTMLElements=False)
            assert not [e for e in tree.iter("img") if "onerror" in e.attrib]
            assert not [
                (e.tag, name) for e in tree.iter() for name in e.attrib if name.startswith("on")
            ]
            scripts = [e.text or "" for e in tree.iter("script")]
            assert not [s for s in scripts if "alert(" in s and not s.lstrip().startswith("{")]


def test_the_formats_escape_a_read_back_value_whatever_it_holds(audit):
    """Without the reading layer too: the audit's free text (its finish
    reason) and its times are escaped as any value, and the HTML escapes a
    count that is text (a report's values, however read)."""
    path, _stderr = audit
    report = read_report(str(path))
    report.update(complete=False, finish_reason=PAYLOAD, started_at="2026-01-01\x01\x1b<x>")
    check_format("markdown", report)
    check_format("junit", report)
    report["summary"].update(pages=PAYLOAD, requests="<script>alert(3)</script>")
    text = FORMATS["html"](report)
    _check_html(text, report)
    assert "<script>alert" not in text and "<img src=x" not in text


def test_a_fresh_reports_values_are_as_linkaudit_writes_them(audit):
    """The reading layer changes nothing of a report linkaudit wrote (the
    corpus audit: redirects, fragments, a sitemap, groups, soft 404s)."""
    path, _stderr = audit
    report = read_report(str(path))
    assert conform(report) == [] and report == read_report(str(path))


def test_a_tampered_place_is_no_place_of_another_kind(audit, tmp_path):
    """A place read back whose ``via`` is no URL and whose line is no number
    (a hand-edited report): shown, the line as no line, never "line 0",
    and never "not a linkaudit report"."""
    path, _stderr = audit
    report = json.loads(path.read_text())
    at, entry = next(
        (i, u) for i, u in enumerate(report["urls"]) if u["outcome"] == "broken" and u["referrers"]
    )
    entry["referrers"][0].update(line="seven", via={"x": 1})
    conformed = json.loads(json.dumps(report))
    altered = conform(conformed)
    assert altered == [f"urls[{at}].referrers[0].line", f"urls[{at}].referrers[0].via"], altered
    assert conformed["urls"][at]["referrers"][0]["line"] is None
    tampered = tmp_path / "r.json"
    tampered.write_text(json.dumps(report))
    for fmt in sorted(FORMATS):
        out = run(tmp_path, "show", str(tampered), "--format", fmt)
        assert out.returncode in (0, 1, 3), (fmt, out.stderr[-2000:])
        assert "{'x': 1}" not in out.stdout, fmt
