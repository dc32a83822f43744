"""Canonical URLs, as the report contract defines them."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from linkaudit.urls import InvalidURL, canonicalize, is_near


@pytest.mark.parametrize(
    "raw, canonical",
    [
        ("http://Example.COM:80/a/./b/../c#x", "http://example.com/a/c"),  # the contract's example
        ("HTTPS://example.com:443", "https://example.com/"),
        ("http://example.com:8080", "http://example.com:8080/"),
        ("http://www.example.com./", "http://www.example.com/"),  # trailing dot
        ("http://www..example...com/", "http://www.example.com/"),  # repeated dots
        ("http://127.0.0.1:8080/x", "http://127.0.0.1:8080/x"),
        ("http://[::1]:8080/", "http://[::1]:8080/"),
        ("http://[0:0::1]/", "http://[::1]/"),
        ("http://bücher.example/", "http://xn--bcher-kva.example/"),
        ("http://h/caf\u00e9?q=\u00fc", "http://h/caf%C3%A9?q=%C3%BC"),
        ("http://h/%7euser/%2f%41", "http://h/~user/%2FA"),  # unreserved decoded, reserved kept
        ("http://h/%e9", "http://h/%E9"),
        ("http://h/a b", "http://h/a%20b"),
        ("http://h/100%", "http://h/100%25"),
        ("http://h/?b=2&a=1", "http://h/?b=2&a=1"),  # query order kept
        ("http://h/p?", "http://h/p"),
        ("http://h/a/..", "http://h/"),
        ("http://h/a/.", "http://h/a/"),
        ("  http://h/x\n", "http://h/x"),
        ("http://h/a\tb", "http://h/ab"),
        ("MAILTO:someone@example.com", "mailto:someone@example.com"),
    ],
)
def test_canonical(raw, canonical):
    assert canonicalize(raw) == canonical
    assert canonicalize(canonical) == canonical


@pytest.mark.parametrize(
    "ref, resolved",
    [  # RFC 3986 section 5.4, base http://a/b/c/d;p?q
        ("g", "http://a/b/c/g"),
        ("./g", "http://a/b/c/g"),
        ("g/", "http://a/b/c/g/"),
        ("/g", "http://a/g"),
        ("//g", "http://g/"),
        ("?y", "http://a/b/c/d;p?y"),
        ("g?y", "http://a/b/c/g?y"),
        ("#s", "http://a/b/c/d;p?q"),
        ("", "http://a/b/c/d;p?q"),
        ("..", "http://a/b/"),
        ("../g", "http://a/b/g"),
        ("../../../g", "http://a/g"),
        ("/./g", "http://a/g"),
        ("g;x=1/../y", "http://a/b/c/y"),
        ("a//b", "http://a/b/c/a//b"),  # urljoin would drop the empty segment
    ],
)
def test_resolution(ref, resolved):
    assert canonicalize(ref, "http://a/b/c/d;p?q") == resolved


@pytest.mark.parametrize(
    "raw",
    [
        "http://exa mple.com/",
        "http://[::1",
        "http://host:99999/",
        "http:///path",
        "http://h/\x01",
        "http://bad_ho$t/",
        "relative/only",
    ],
)
def test_invalid(raw):
    with pytest.raises(InvalidURL):
        canonicalize(raw)


def test_near_is_a_prefix_of_the_canonical_form():
    # the seed: the oggs/ folder is the site, the consortium is not
    prefixes = (canonicalize("http://www.mybalalaika.com/oggs/"),)
    assert is_near(canonicalize("http://WWW.mybalalaika.com/oggs/studio_credits.html"), prefixes)
    assert not is_near(canonicalize("http://bazouki-consortium.int/"), prefixes)
    assert not is_near(canonicalize("http://www.mybalalaika.com/"), prefixes)


_url_text = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=40)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(["http://", "https://", "", "//", "/", "../", "mailto:"]), _url_text)
def test_fuzz_canonical_is_idempotent(prefix, tail):
    try:
        url = canonicalize(prefix + tail, "http://example.com/a/b")
    except InvalidURL:
        return
    assert canonicalize(url) == url
