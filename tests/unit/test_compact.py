"""A result stored compactly (the memory state, Redis) gives back every field."""

from __future__ import annotations

from hypothesis import given, settings

from linkaudit.items import UrlResult
from linkaudit.rules.recheck import iso
from linkaudit.state.compact import decode_result, encode_result
from tests.helpers.results import url_results


@given(url_results)
@settings(max_examples=300, deadline=None)
def test_every_result_survives_the_compact_form(r):
    assert decode_result(r.url, r.depth, encode_result(r, None)) == (r, None)
    assert decode_result(r.url, r.depth, encode_result(r, 12.5)) == (r, 12.5)


def test_an_ok_page_takes_about_fifty_bytes():
    page = UrlResult(
        url="https://example.com/a/b.html",
        near=True,
        outcome="ok",
        depth=3,
        status=200,
        method="GET",
        content_type="text/html",
        checked_at=iso(1_795_000_000),
        page={"bytes": 15234, "last_modified": None, "links": 27, "images": 3},
    )
    text = encode_result(page, None)
    assert text == '[1,"ok",200,"GET","text/html",1795000000,[15234,null,27,3]]'
    assert decode_result(page.url, 3, text) == (page, None)
