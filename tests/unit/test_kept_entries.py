"""The report's entries kept packed (``output/report/kept.py``) read back as
the entries they were, in URL order, and a replaced entry stays as given."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from linkaudit.output.report.kept import KeptEntries
from linkaudit.state.base import Entry
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
