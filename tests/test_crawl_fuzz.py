"""Whole crawls of odd and hostile pages (issue 23): pages of adversarial
markup and hrefs (tests/corpus.py, random text, random mixes) served by a
real server on 127.0.0.1 and audited by a real ``scrapy crawl``.

Whatever the pages hold, the audit finishes (no traceback, no internal
error), the report is written and valid, and every link of every page is
accounted for: its URL (or, not being one, its value as written) is an
entry whose referrers hold that page with that line (an ``ok`` one keeps
only the referrers known when it was checked: docs/guide/exports.md), and no
entry claims a line of the page that holds no link.  Far links are excluded
(``LINKAUDIT_SKIP_FAR``): no request leaves 127.0.0.1.

The whole corpus is one deterministic crawl; the property-based test draws
sites of random pages (few examples by default, where each is a crawl of a
second or two; ``make fuzz`` draws many: docs/contributing/tests.md)."""

from __future__ import annotations

import html
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from linkaudit.rules.guards import TrapGuards
from linkaudit.rules.judge import LinkRules
from linkaudit.rules.urls import HTTP_SCHEMES, scheme_of
from tests.conftest import run_crawl
from tests.corpus import CORPUS
from tests.server import TestServer

URL_LIMIT = 65536  # URLLENGTH_LIMIT's default: the 100 KB URLs are over it
KEYS = LinkRules((), TrapGuards(), URL_LIMIT)  # a link's key in the report
# how a link is written: each takes the value escaped for an attribute
FORMS = {
    "double": '<a href="{}">link</a>',
    "single": "<a href='{}'>link</a>",
    "upper": '<A class=x HREF="{}" data-y="z">link</A>',
    "duplicate": '<a href="{}" href="/second-is-ignored">link</a>',  # the first wins
    "split": '<a\nclass="x"\nhref="{}"\n>link</a>',  # the line where the tag starts
    "unquoted": "<a href={} >link</a>",
    "img": '<img alt="" src="{}">',
    "area": '<map><area href="{}"></map>',
    "iframe": '<iframe src="{}"></iframe>',
}
_NOT_UNQUOTED = set(" \t\n\x0c\r\"'<>=`\x00")
# markup around the links that holds no link a browser would follow, or
# breaks nothing after it (an unterminated quote would end the document)
NOISE = [
    "<p>text <b>unclosed <i>tags",
    "</div></span></p>",
    "a < b > c && d &bogus; &amp &#xZZ;",
    '<!-- <a href="/in-a-comment"> -->',
    "<script>var s = '<a href=\"/in-a-script\">';</script>",
    '<textarea><a href="/in-a-textarea"></textarea>',
    "<style>a::after { content: '<a href=\"/in-a-style\">' }</style>",  # url() would be one
    "<br/><hr><wbr>",
    "<?php echo 1 ?>",
    "<a>no href</a><a name=x>",
    '<svg><a xlink:title="t"/></svg>',
    "\u202e\u2066 bidi text \u2069 \x1b[31m",
]


def attribute(value: str) -> str:
    """``value`` escaped so the attribute holds it exactly (a CR as a
    reference: the input stream turns a raw one into a line feed)."""
    return html.escape(value, quote=True).replace("\r", "&#13;")


def seen(value: str) -> str:
    """What the HTML parser reads of the written value: NUL is U+FFFD."""
    return value.replace("\x00", "\ufffd")


def build_page(items: list[tuple[str, str]]) -> tuple[str, list[tuple[str, int]]]:
    """A page of ``items`` (("noise", text) or (form, href)), one a line,
    and its links: (the value the parser reads, the line of its tag)."""
    lines = ["<!doctype html>", '<title>odd &amp; <a href="/in-the-title"></title>']
    links: list[tuple[str, int]] = []
    for form, value in items:
        line = sum(part.count("\n") + 1 for part in lines) + 1
        if form == "noise":
            lines.append(value)
            continue
        if form == "unquoted" and (not value or _NOT_UNQUOTED & set(value)):
            form = "double"
        lines.append(FORMS[form].format(attribute(value)))
        links.append((seen(value), line))
    return "\n".join(lines), links


def check_accounted(report: dict, pages: dict[str, list[tuple[str, int]]]) -> None:
    """Every link of every page is an entry with that page and line among
    its referrers; every referrer from those pages is one of their links."""
    entries = {entry["url"]: entry for entry in report["urls"]}
    claimed: dict[str, set[tuple[str, int | None]]] = {page: set() for page in pages}
    for entry in report["urls"]:
        for ref in entry["referrers"]:
            if ref["url"] in claimed:
                claimed[ref["url"]].add((entry["url"], ref.get("line")))
    for page, links in pages.items():
        expected = set()
        for value, line in links:
            key = KEYS.resolve(value, page).key
            expected.add((key, line))
            entry = entries.get(key)
            assert entry is not None, f"{value[:200]!r} on {page} line {line}: no entry"
            check_outcome(entry, page)
            if entry["outcome"] != "ok":  # an ok URL keeps only the referrers known when checked
                where = f"{value[:200]!r}: {page} line {line} not a referrer"
                assert (key, line) in claimed[page], where
        assert claimed[page] <= expected, claimed[page] - expected


def check_outcome(entry: dict, page: str) -> None:
    """What a user reads of an odd link: never a fault of ours (run_crawl
    checks it), an invalid one broken, other schemes and far or overlong
    URLs excluded, never requested."""
    url, outcome, error = entry["url"], entry["outcome"], entry["error"] or ""
    if outcome == "broken" and error.startswith("Invalid URL: "):
        return
    origin = page.split("/", 3)[:3]
    if scheme_of(url) not in HTTP_SCHEMES:
        assert outcome == "excluded" and error.startswith("Excluded: "), entry
    elif len(url) > URL_LIMIT:
        assert outcome == "excluded" and "URLLENGTH_LIMIT" in error, entry
    elif url.split("/", 3)[:3] != origin:
        assert outcome == "excluded" and "LINKAUDIT_SKIP_FAR" in error, entry
    else:
        assert outcome in ("ok", "broken", "excluded"), entry


def audit_site(tmp_path: Path, pages: list[list[tuple[str, str]]]) -> dict:
    """Serve the pages (/p0, /p1... linked from /), audit them, check the
    report; the report comes back."""
    with TestServer() as server:
        server.add("/", "\n".join(f'<a href="/p{n}">{n}</a>' for n in range(len(pages))))
        expected = {}
        for n, items in enumerate(pages):
            text, links = build_page(items)
            server.add(f"/p{n}", text)
            expected[f"{server.url}/p{n}"] = links
        crawl = run_crawl(
            tmp_path, "-a", f"start={server.url}/", settings={"LINKAUDIT_SKIP_FAR": "True"}
        )  # fails on a traceback or an internal error; validates the report
        assert crawl.returncode in (0, 1), crawl.stderr[-3000:]
        assert crawl.report is not None, crawl.stderr[-3000:]
        for page in expected:
            assert crawl.url(page)["outcome"] == "ok", crawl.url(page)
        check_accounted(crawl.report, expected)
        return crawl.report


def test_the_whole_corpus_in_one_crawl(tmp_path):
    """Every corpus href, in every form of link, among noise: accounted for."""
    forms = list(FORMS)
    items = [(forms[n % len(forms)], href) for n, href in enumerate(CORPUS)]
    for n, noise in enumerate(NOISE):
        items.insert(n * 7, ("noise", noise))
    pages = [items[n : n + 40] for n in range(0, len(items), 40)]
    pages.append([(form, href) for form in forms for href in CORPUS[:6]])
    report = audit_site(tmp_path, pages)
    assert report["summary"]["excluded"] > 0 and report["summary"]["broken"] > 0


_text = st.text(st.characters(exclude_categories=("Cs",), exclude_characters="\r"), max_size=30)
_href = st.one_of(
    st.sampled_from(CORPUS),
    _text,
    st.tuples(st.sampled_from(CORPUS), _text).map("".join),
    st.tuples(st.sampled_from(["", "/", "?", "#", "//h:", "http://", "HTTP://0:"]), _text).map(
        "".join
    ),
)
_noise = st.one_of(st.sampled_from(NOISE), _text.map(lambda t: t.replace("<", "&lt;")))
_item = st.one_of(
    st.tuples(st.sampled_from(list(FORMS)), _href),
    st.tuples(st.just("noise"), _noise),
)
_site = st.lists(st.lists(_item, min_size=1, max_size=12), min_size=1, max_size=3)
# a crawl is a second or two: few examples by default, all of them with make fuzz
CRAWLS = 10 if settings.get_current_profile_name() == "ci" else settings.default.max_examples


@settings(max_examples=CRAWLS)
@given(_site)
def test_fuzz_sites_of_odd_pages(pages):
    with tempfile.TemporaryDirectory() as tmp:
        audit_site(Path(tmp), pages)
