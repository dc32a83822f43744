"""Stored results drawn by Hypothesis: any :class:`UrlResult` a state may
be asked to keep."""

from __future__ import annotations

from hypothesis import strategies as st

from linkaudit.items import UrlResult

_text = st.text(max_size=40)
_maybe_text = st.none() | _text
_page = st.none() | st.fixed_dictionaries(
    {
        "bytes": st.integers(0, 10**7),
        "last_modified": st.none() | st.just("2015-10-21T07:28:00+00:00"),
        "links": st.integers(0, 10**5),
        "images": st.integers(0, 10**4),
    }
)
url_results = st.builds(
    UrlResult,
    url=st.text(min_size=1, max_size=60),
    near=st.booleans(),
    outcome=st.sampled_from(["ok", "redirect", "broken", "blocked", "excluded", "unchecked"]),
    depth=st.integers(0, 50),
    status=st.none() | st.integers(100, 999),
    error=_maybe_text,
    method=st.sampled_from([None, "HEAD", "GET"]),
    content_type=_maybe_text,
    location=_maybe_text,
    referrer_count=st.integers(0, 10**6),
    truncated=st.booleans(),
    page=_page,
    checked_at=_maybe_text,
    from_cache=st.booleans(),
    not_modified=st.booleans(),
    warning=_maybe_text,
    new=st.booleans(),
    etag=_maybe_text,
    stored_links=st.booleans(),
)
