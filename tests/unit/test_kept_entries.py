"""The report's entries kept packed or as their URLs (``output/report/kept.py``)
read back as the entries they were, in URL order, and a replaced entry stays
as given; the memory state's flat referrer lists read back as pairs."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from linkaudit.items import Outcome, UrlResult
from linkaudit.output.report.kept import KeptEntries
from linkaudit.state.base import Entry
from linkaudit.state.memory import MemoryState
from tests.helpers.results import url_results

referrers = st.lists(
    st.tuples(st.text(min_size=1, max_size=20), st.one_of(st.none(), st.integers(1, 9999))),
    max_size=3,
)


@st.composite
def entries(draw):
    result = draw(st.one_of(st.none(), url_results))
    url = result.url if result is not None else draw(st.text(min_size=1, max_size=30))
    depth = result.depth if result is not None else draw(st.integers(0, 50))
    refs = draw(referrers)
    return Entry(
        url,
        depth,
        result,
        draw(st.integers(len(refs), len(refs) + 5)),
        refs,
        draw(st.one_of(st.none(), st.floats(0, 2e9, allow_nan=False))),
    )


@given(st.lists(entries(), max_size=8, unique_by=lambda e: e.url))
@settings(max_examples=200, deadline=None)
def test_kept_entries_read_back_equal_and_sorted(given_entries):
    kept = KeptEntries()
    for entry in given_entries:
        kept.append(entry)
    kept.sort()
    expected = sorted(given_entries, key=lambda e: e.url)
    assert list(kept) == expected
    assert len(kept) == len(expected)
    for at, entry in enumerate(expected):
        assert kept[at] == entry
        assert kept.position(entry.url) == at


def test_a_replaced_entry_is_read_as_given():
    kept = KeptEntries()
    for url in ("https://b.test/", "https://a.test/", "https://c.test/"):
        kept.append(Entry(url, 1, None, 0, []))
    kept.sort()
    at = kept.position("https://b.test/")
    assert at == 1
    replaced = Entry("https://b.test/", 1, None, 2, [("https://a.test/", 4)], 5.0)
    kept[at] = replaced
    assert kept[1] is replaced
    assert [e.url for e in kept] == ["https://a.test/", "https://b.test/", "https://c.test/"]
    assert kept.position("https://bb.test/") == 2  # where it would go


def _memory_state() -> MemoryState:
    """Four URLs: one never checked, one ok, one broken, one redirect; a
    page's links to each."""
    state = MemoryState()
    urls = [f"https://a.test/{name}" for name in ("zz-unchecked", "ok", "broken", "moved")]
    for url in urls:
        state.discover(url, 1)
    for line, url in enumerate(urls, 10):
        state.add_referrer(url, "https://a.test/", line)
        state.add_referrer(url, "https://a.test/other", None)
    outcomes = (Outcome.OK, Outcome.BROKEN, Outcome.REDIRECT)
    for url, outcome in zip(urls[1:], outcomes, strict=True):
        status = {Outcome.OK: 200, Outcome.BROKEN: 404, Outcome.REDIRECT: 301}[outcome]
        state.record(UrlResult(url=url, near=True, outcome=outcome, status=status, depth=1), 5.0)
    return state


def test_kept_entries_of_a_state_that_rereads_hold_only_urls():
    """The memory state reads an entry again by its URL: the pass keeps the
    state's URL strings, and reads each entry back as the state gave it."""
    state = _memory_state()
    assert state.rereads_entries
    kept = KeptEntries(state)
    given = list(state.entries())
    for entry in given:
        kept.append(entry)
    kept.sort()
    assert all(type(k) is str for k in kept._kept)  # noqa: SLF001 (what is held)
    assert list(kept) == sorted(given, key=lambda e: e.url)
    at = kept.position("https://a.test/broken")
    assert kept[at].result.outcome == Outcome.BROKEN
    assert kept[at].referrers == [("https://a.test/", 12), ("https://a.test/other", None)]
    replaced = kept[at]._replace(referrer_count=9)
    kept[at] = replaced
    assert kept[at] is replaced


def test_memory_state_referrers_kept_until_ok_in_order():
    """Flat referrer lists read back as (page, line) pairs in the order
    added; an ok URL keeps only its count."""
    state = _memory_state()
    assert state.referrers("https://a.test/ok") == (2, [])
    assert state.referrers("https://a.test/zz-unchecked") == (
        2,
        [("https://a.test/", 10), ("https://a.test/other", None)],
    )
    state.add_referrer("https://a.test/moved", "https://a.test/third", 7)
    assert state.referrers("https://a.test/moved") == (
        3,
        [("https://a.test/", 13), ("https://a.test/other", None), ("https://a.test/third", 7)],
    )
    assert state.referrers("https://a.test/never") == (0, [])
