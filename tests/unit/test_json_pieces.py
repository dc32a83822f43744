"""The report's head written a piece at a time is the text json_text makes
(escapes included), less its closing brace."""

from __future__ import annotations

import io

from hypothesis import given, settings
from hypothesis import strategies as st

from linkaudit.output.jsontext import json_pieces, json_text
from linkaudit.output.report.atomic import write_head

values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),  # lone surrogates, bidi...
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@given(values)
@settings(max_examples=200, deadline=None)
def test_pieces_join_to_json_text(value):
    assert "".join(json_pieces(value, indent=1)) == json_text(value, indent=1)


@given(st.dictionaries(st.text(), values, min_size=1, max_size=5))
@settings(max_examples=200, deadline=None)
def test_the_head_is_the_report_text_less_its_closing_brace(report):
    out = io.StringIO()
    write_head(out, report)
    assert out.getvalue() == json_text(report, indent=1)[:-2]


def test_escapes_in_a_piece():
    head = {"summary": {"urls": 1}, "groups": [{"target": "http://a.test/\u202e\ud800"}]}
    out = io.StringIO()
    write_head(out, head)
    assert "\\u202e\\ud800" in out.getvalue()
    assert out.getvalue() == json_text(head, indent=1)[:-2]
