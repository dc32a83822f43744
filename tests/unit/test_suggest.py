"""The ranking of suggestions for broken links (rules/suggest.py), the
report's builder (output/report/suggestions.py) and the formats that show them.
The end-to-end proof on a generated site is tests/test_suggest_site.py."""

from __future__ import annotations

import json
import tracemalloc

import pytest

from linkaudit.items import UrlResult
from linkaudit.output.formats import FORMATS
from linkaudit.output.report.build import build_report
from linkaudit.rules.suggest import Suggester, within_one
from linkaudit.state.memory import MemoryState
from tests.conftest import validate
from tests.helpers.cost import GROWTH, GROWTH_BOUND, least_cpu
from tests.helpers.reports import site_facts

H = "http://site.test"
PAGES = [
    "/docs/intro.html",
    "/docs/install.html",
    "/docs/guide/setup/",
    "/Blog/Post-One",
    "/news/2020/big-announcement",
    "/api/intro.html",
    "/help/faq",
    "/docs/index.html",
]


def suggest(broken: list[str], pages: list[str] = PAGES, min_score: float = 0.7) -> dict:
    suggester = Suggester([H + b for b in broken], min_score)
    for page in pages:
        suggester.offer(H + page, page=True)
    return {
        b.removeprefix(H): (s.url.removeprefix(H), s.why)
        for b, s in suggester.suggestions().items()
    }


@pytest.mark.parametrize(
    ("broken", "meant", "why"),
    [
        ("/docs/intor.html", "/docs/intro.html", "typo"),  # two letters swapped
        ("/docs/instal.html", "/docs/install.html", "typo"),  # one missing
        ("/docs/installl.html", "/docs/install.html", "typo"),  # one extra
        ("/docs/instull.html", "/docs/install.html", "typo"),  # one changed
        ("/dcos/install.html", "/docs/install.html", "typo"),  # in a folder's name
        ("/docs/Install.html", "/docs/install.html", "case"),
        ("/blog/post-one", "/Blog/Post-One", "case"),
        ("/DOCS/INTRO", "/docs/intro.html", "case"),  # case and .html
        ("/docs/intro", "/docs/intro.html", "extension"),
        ("/help/faq.html", "/help/faq", "extension"),
        ("/docs/guide/setup", "/docs/guide/setup/", "slash"),
        ("/docs/guide/setup/index.html", "/docs/guide/setup/", "slash"),
        ("/docs/", "/docs/index.html", "slash"),
        ("/guide/big-announcement", "/news/2020/big-announcement", "moved"),
        ("/support/faq", "/help/faq", "moved"),  # a name no other page has
    ],
)
def test_each_slip_is_undone(broken, meant, why):
    assert suggest([broken]) == {broken: (meant, why)}


@pytest.mark.parametrize(
    "broken",
    [
        "/docs/ostrich-quasar.html",  # deleted, nothing like it
        "/x/intro.html",  # intro is in two folders, neither shares one with it
        "/docs/fqa",  # a typo in a name of 3 letters: too many words are that close
        "/docs/intro.html?v=2",  # a query: not matched
        "/docs/inxtor.html",  # two slips at once (a letter added, two swapped)
    ],
)
def test_nothing_is_better_than_a_guess(broken):
    assert suggest([broken]) == {}


def test_another_number_is_no_typo():
    """A version, a day, a page of a list: one digit apart, another page."""
    pages = ["/docs/v1.2.3/", "/blog/2019-05-01-launch", "/releases/v10/notes"]
    assert suggest(["/docs/v1.2.4/", "/blog/2019-05-02-launch", "/releases/v11/notes"], pages) == {}
    assert suggest(["/docs/v1.2.3"], pages) == {"/docs/v1.2.3": ("/docs/v1.2.3/", "slash")}


def test_a_huge_name_costs_no_more_than_a_page():
    """A 2,000-letter last segment (a hostile href, a generated one): no
    typo is looked for (its one-letter deletions would be 4 MB for each
    such link), so 100 of them and 100 pages like them take little memory;
    their other forms still match."""
    name = "".join(chr(97 + i * 7 % 26) for i in range(2_000))
    broken = [f"/docs/{name}{i:03d}x" for i in range(100)]
    pages = [f"/docs/{name}{i:03d}" for i in range(100)] + [f"/docs/{name}000x.html"]
    tracemalloc.start()
    try:
        found = suggest(broken, pages)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 20 * 1024 * 1024, peak
    assert found == {broken[0]: (pages[-1], "extension")}


def test_ties_give_no_suggestion():
    """Two pages one letter from the link: which one was meant is a guess."""
    assert suggest(["/docs/cat-photos"], ["/docs/cat-photo", "/docs/cat-photon"]) == {}
    assert suggest(["/docs/cat-photos"], ["/docs/cat-photo"]) != {}


def test_another_site_is_never_suggested():
    suggester = Suggester([H + "/docs/intro"], 0.7)
    suggester.offer("http://other.test/docs/intro.html")
    assert suggester.suggestions() == {}


def test_the_threshold_is_honoured():
    assert suggest(["/docs/intor.html"], min_score=0.8) == {}  # a typo in 5 letters: 0.75
    assert suggest(["/docs/intro"], min_score=0.99) == {}


def test_within_one():
    assert within_one("install", "instal") and within_one("intro", "intor")
    assert within_one("abc", "abd") and within_one("abc", "abcd")
    assert not within_one("install", "instull-x") and not within_one("abcd", "badc")
    assert not within_one("intro", "intra-x")


def _grown(n: int) -> None:
    """n pages in one folder, n/10 broken links to typos of them."""
    pages = [f"{H}/docs/page-{i:07d}-{i * 7919 % 100003:06d}" for i in range(n)]
    broken = [p.replace("page-", "pgae-") for p in pages[::10]]
    suggester = Suggester(broken, 0.7)
    for page in pages:
        suggester.offer(page)
    assert len(suggester.suggestions()) == len(broken)


def _shared(n: int) -> None:
    """n pages and n/10 broken links, all named ``details``."""
    pages = [f"{H}/item/{i}/details" for i in range(n)]
    broken = [f"{H}/gone/{i}/details" for i in range(0, n, 10)]
    suggester = Suggester(broken, 0.7)
    for page in pages:
        suggester.offer(page)
    assert suggester.suggestions() == {}


def _case_variants(n: int) -> tuple[list[str], list[str]]:
    """n pages and n broken links, all one name in another case."""
    word = "installationsguide"  # 2**18 ways to write it
    spelt = [
        "".join(c.upper() if m >> i & 1 else c for i, c in enumerate(word)) for m in range(2 * n)
    ]
    return [f"{H}/docs/{w}.html" for w in spelt[:n]], [f"{H}/docs/{w}.html" for w in spelt[n:]]


def _cased(n: int) -> None:
    pages, broken = _case_variants(n)
    suggester = Suggester(broken, 0.7)
    for page in pages:
        suggester.offer(page)
    assert suggester.suggestions() == {}  # which of n was meant: a guess


def test_cost_grows_linearly():
    """8 times the pages and broken links cost about 8 times as much, not
    64 (each broken URL compared with every page in its folder)."""
    small = least_cpu(lambda: _grown(2_000), repeat=3)
    large = least_cpu(lambda: _grown(2_000 * GROWTH), repeat=3)
    assert large / small < GROWTH_BOUND, (small, large)
    # a name every page has: not every broken link against every page
    small = least_cpu(lambda: _shared(1_000), repeat=3)
    large = least_cpu(lambda: _shared(1_000 * GROWTH), repeat=3)
    assert large / small < GROWTH_BOUND, (small, large)
    # one name in many cases, pages and broken links (it was every broken
    # link against every page: 3,000 of each took 33 s and 1.6 GB)
    small = least_cpu(lambda: _cased(300), repeat=3)
    large = least_cpu(lambda: _cased(300 * GROWTH), repeat=3)
    assert large / small < GROWTH_BOUND, (small, large)


def test_case_variants_cost_little_memory():
    """3,000 pages and 3,000 broken links, one name in 6,000 cases: no
    pairs of them are kept; a few cases still find their page."""
    tracemalloc.start()
    try:
        _cased(3_000)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 20 * 1024 * 1024, peak
    found = suggest(["/docs/Install.html", "/docs/INSTALL"], [*PAGES, "/docs/INSTALL.HTM"])
    assert found == {
        "/docs/Install.html": ("/docs/install.html", "case"),
        "/docs/INSTALL": ("/docs/INSTALL.HTM", "extension"),
    }


def _state() -> MemoryState:
    """A hand-built audit: a home page linking to a typo of a page, and
    to a deleted page."""
    state = MemoryState()
    results = [
        UrlResult(
            f"{H}/",
            True,
            "ok",
            0,
            status=200,
            content_type="text/html",
            links=[(f"{H}/docs/intor.html", 3), (f"{H}/gone.html", 4)],
        ),
        UrlResult(f"{H}/docs/intro.html", True, "ok", 1, status=200, content_type="text/html"),
        UrlResult(f"{H}/docs/intor.html", True, "broken", 1, status=404, error="404 Not Found"),
        UrlResult(f"{H}/gone.html", True, "broken", 1, status=404, error="404 Not Found"),
    ]
    for r in results:
        state.discover(r.url, r.depth)
    for r in results:
        state.add_referrers(r.url, r.links)
        state.record(r, 0.0)
    return state


def _facts(**fields: object):
    when = "2026-11-24T20:00:00+00:00"
    return site_facts(
        start_urls=[f"{H}/"], near_prefixes=[f"{H}/"], started_at=when, finished_at=when, **fields
    )


def test_the_report_and_every_format_show_it():
    report = build_report(_state(), _facts(suggest=0.7))
    validate(report)
    entries = {u["url"]: u for u in report["urls"]}
    assert entries[f"{H}/docs/intor.html"]["suggestion"] == {
        "url": f"{H}/docs/intro.html",
        "score": 0.75,
        "why": "typo",
    }
    assert "suggestion" not in entries[f"{H}/gone.html"]
    words = "did you mean /docs/intro.html? (a typo)"
    assert f"{H}/docs/intor.html  [404 Not Found]  {words}" in FORMATS["text"](report)
    assert "did you mean `/docs/intro.html`? (a typo)" in FORMATS["markdown"](report)
    html = FORMATS["html"](report)
    assert f'Did you mean <a class="url" href="{H}/docs/intro.html">/docs/intro.html</a>?' in html
    sarif = json.loads(FORMATS["sarif"](report))
    (result,) = [r for r in sarif["runs"][0]["results"] if "intor" in r["message"]["text"]]
    assert words in result["message"]["text"]
    assert "fixes" not in result  # a live page: its text is not kept


def test_off_means_none():
    report = build_report(_state(), _facts())
    assert all("suggestion" not in u for u in report["urls"])
