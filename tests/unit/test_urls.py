"""Canonical URLs: the URL a browser would request (the WHATWG URL
Standard), in the report contract's canonical form.  Each table is written
from the Standard; tests/test_standards.py runs the public test data."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from linkaudit.rules.urls import InvalidURL, _why, canonicalize, is_near
from tests.corpus import CORPUS, SURROGATES, UNICODE_DIGIT_PORTS

BASE = "http://example.org/foo/bar"


@pytest.mark.parametrize(
    "raw, canonical",
    [
        # the contract's examples
        ("http://Example.COM:80/a/./b/../c#x", "http://example.com/a/c"),
        ("https://Faß.example\\docs", "https://xn--fa-hia.example/docs"),
        ("HTTPS://example.com:443", "https://example.com/"),
        ("http://example.com:8080", "http://example.com:8080/"),
        ("http://127.0.0.1:8080/x", "http://127.0.0.1:8080/x"),
        ("http://[::1]:8080/", "http://[::1]:8080/"),
        ("http://[0:0::1]/", "http://[::1]/"),
        ("http://bücher.example/", "http://xn--bcher-kva.example/"),
        ("http://h/caf\u00e9?q=\u00fc", "http://h/caf%C3%A9?q=%C3%BC"),
        ("http://h/%7euser/%2f%41", "http://h/~user/%2FA"),  # unreserved decoded, reserved kept
        ("http://h/%e9", "http://h/%E9"),  # hex in upper case
        ("http://h/a b", "http://h/a%20b"),
        ("http://h/?b=2&a=1", "http://h/?b=2&a=1"),  # query order kept
        ("http://h/a/..", "http://h/"),
        ("http://h/a/.", "http://h/a/"),
        ("http://h/a/%2e%2E/b", "http://h/b"),  # encoded dot segments are dot segments
        ("MAILTO:someone@example.com", "mailto:someone@example.com"),
        # a host is kept as the Standard serialises it: a trailing dot is
        # another name, so are empty labels (browsers request them as written)
        ("http://www.example.com./", "http://www.example.com./"),
        # an empty query names no parameter: the URL without it (docs/urls.md),
        # so font-face's "x.eot?#iefix" and "x.eot" are one URL; a query of
        # one "?" is not empty
        ("http://h/p?", "http://h/p"),
        ("http://h/x.eot?#iefix", "http://h/x.eot"),
        ("http://h/?", "http://h/"),
        ("http://h/p??", "http://h/p??"),
        ("http://h/p?=", "http://h/p?="),
    ],
)
def test_canonical(raw, canonical):
    assert canonicalize(raw) == canonical
    assert canonicalize(canonical) == canonical


@pytest.mark.parametrize(
    "raw, canonical",
    [
        # whitespace: ASCII whitespace and C0 controls at the ends are
        # stripped, tabs and newlines removed anywhere; NBSP is data
        ("  http://h/x\n", "http://h/x"),
        ("\x01\x1f http://h/x \x00", "http://h/x"),
        ("http://h/a\tb\nc\rd", "http://h/abcd"),
        ("http://h/x\u00a0", "http://h/x%C2%A0"),
        ("\u00a0http://h/x", "INVALID"),  # not a scheme: relative, and no base here
        # backslashes are slashes in http(s) URLs
        ("http://example.com\\foo", "http://example.com/foo"),
        ("https:\\\\www.example.com\\watch?v=1", "https://www.example.com/watch?v=1"),
        # a % that starts no escape is left as it is (it is sent as is)
        ("http://h/foo%2zbar", "http://h/foo%2zbar"),
        ("http://h/100%", "http://h/100%"),
        # no empty user information
        ("https://user:@host/", "https://user@host/"),
        ("https://:@host/", "https://host/"),
        ("https://user:pw@host/", "https://user:pw@host/"),
        # IPv4 number forms are normalised
        ("http://0xffffffff/", "http://255.255.255.255/"),
        ("http://192.168.257/", "http://192.168.1.1/"),
        ("http://0177.0.0.1/", "http://127.0.0.1/"),
        ("http://127.1/", "http://127.0.0.1/"),
        # hosts by UTS #46, non-transitional: ß and final sigma are letters
        ("https://faß.example/", "https://xn--fa-hia.example/"),
        ("http://\u03c2.example/", "http://xn--3xa.example/"),
        ("https://%e2%98%83/", "https://xn--n3h/"),  # a percent-encoded host
        ("http://" + "a" * 70 + ".example/", "http://" + "a" * 70 + ".example/"),
        # what the path keeps raw and what it escapes (its percent-encode set)
        ("http://h/a|b[c]", "http://h/a|b[c]"),
        ("http://h/a^b`c{d}", "http://h/a%5Eb%60c%7Bd%7D"),
        ("http://h/?q=a'b\"c", "http://h/?q=a%27b%22c"),
        ("http://h/\x7f", "http://h/%7F"),
        ("http://h/\x01x", "http://h/%01x"),
        # hosts the Standard allows ($ and _ are not forbidden code points)
        ("http://bad_ho$t/", "http://bad_ho$t/"),
    ],
)
def test_what_a_browser_requests(raw, canonical):
    try:
        got = canonicalize(raw)
    except InvalidURL:
        got = "INVALID"
    assert got == canonical
    if canonical != "INVALID":
        assert canonicalize(got) == got


@pytest.mark.parametrize(
    "ref, base, resolved",
    [
        # a special scheme without // is absolute against another scheme...
        ("http:foo.com", "https://example.org/", "http://foo.com/"),
        ("https:example.com/", "http://example.org/", "https://example.com/"),
        # ...and relative against its own
        ("http:foo.com", BASE, "http://example.org/foo/foo.com"),
        ("http:", BASE, "http://example.org/foo/bar"),
        ("///host/path", BASE, "http://host/path"),
        ("\\\\host\\x", BASE, "http://host/x"),
        ("images\\logo.png", BASE, "http://example.org/foo/images/logo.png"),
        ("?a=1&sect=2", BASE, "http://example.org/foo/bar?a=1&sect=2"),
        ("http:///path", None, "http://path/"),
    ],
)
def test_resolution_as_a_browser(ref, base, resolved):
    assert canonicalize(ref, base) == resolved


@pytest.mark.parametrize(
    "ref, resolved",
    [  # RFC 3986 section 5.4, base http://a/b/c/d;p?q: the Standard agrees
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
        ("a//b", "http://a/b/c/a//b"),  # empty segments kept
    ],
)
def test_resolution(ref, resolved):
    assert canonicalize(ref, "http://a/b/c/d;p?q") == resolved


@pytest.mark.parametrize(
    "raw, why",
    [
        ("http://exa mple.com/", "bad host name 'exa mple.com'"),
        ("http://[::1", "bad IPv6 address"),
        ("http://[::1::2]/", "bad IPv6 address [::1::2]"),
        ("http://host:99999/", "port 99999 out of range"),
        ("http://host:8x/", "bad port '8x'"),
        ("http:///", "no host"),
        ("http://exa\x01mple.com/", "bad host name"),
        ("http://256.256.256.256/", "bad IPv4 address '256.256.256.256'"),
        ("http://1.2.3.08/", "bad IPv4 address '1.2.3.08'"),
        ("http://xn--/", "bad international host name"),
        ("http://a.b.c.xn--pokxncvks/", "bad international host name"),
        ("http://a\u200db.example/", "bad international host name"),  # a joiner out of place
        ("relative/only", "not an absolute URL"),
    ],
)
def test_invalid(raw, why):
    with pytest.raises(InvalidURL, match=why.replace("[", r"\[").replace("]", r"\]")):
        canonicalize(raw)


def test_near_is_a_prefix_of_the_canonical_form():
    # the seed: the oggs/ folder is the site, the consortium is not
    prefixes = (canonicalize("http://www.mybalalaika.com/oggs/"),)
    assert is_near(canonicalize("http://WWW.mybalalaika.com/oggs/studio_credits.html"), prefixes)
    assert not is_near(canonicalize("http://bazouki-consortium.int/"), prefixes)
    assert not is_near(canonicalize("http://www.mybalalaika.com/"), prefixes)


_url_text = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=40)


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(["http://", "https://", "", "//", "/", "../", "mailto:", "http:"]), _url_text
)
def test_fuzz_canonical_is_idempotent(prefix, tail):
    try:
        url = canonicalize(prefix + tail, "http://example.com/a/b")
    except InvalidURL:
        return
    assert canonicalize(url) == url


# -- odd and hostile hrefs (tests/corpus.py): a URL or InvalidURL, nothing else


@pytest.mark.parametrize("base", [None, BASE, "https://example.com/", "http://[::1]:8080/a"])
def test_every_corpus_href_is_a_url_or_invalid(base):
    """Never another exception: one would cost the page its other links."""
    for href in [*CORPUS, *SURROGATES]:
        try:
            url = canonicalize(href, base)
        except InvalidURL as exc:
            assert str(exc), href
            continue
        assert isinstance(url, str)
        if url.startswith(("http://", "https://")):
            assert canonicalize(url) == url, href


@pytest.mark.parametrize("href", [h for h in UNICODE_DIGIT_PORTS if not h.startswith("//")])
def test_a_port_is_ascii_digits(href):
    """The Standard's port is ASCII digits: "¹" and "٣" pass str.isdigit()
    (int() refuses the first and reads the second as 3), so the words must
    not be taken from it."""
    with pytest.raises(InvalidURL, match="bad port"):
        canonicalize(href, BASE)


def test_a_relative_unicode_port_is_a_bad_port():
    with pytest.raises(InvalidURL, match="bad port '⁹⁹'"):
        canonicalize("//host:⁹⁹/", BASE)


_any_text = st.text(st.characters(), max_size=60)  # surrogates and controls included
_pieces = st.sampled_from([":", "//", "[", "]", "@", "¹", "٣", "0", "65536", "\\", "%", "/", "?"])


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(["http://", "https://", "HTTP://", "//", "", "ftp://"]),
    st.lists(st.one_of(_pieces, _any_text), max_size=8).map("".join),
    st.sampled_from([None, BASE, "https://example.com/", "about:blank"]),
)
def test_fuzz_explaining_never_raises(prefix, tail, base):
    """``_why`` only explains; ``canonicalize`` is a URL or InvalidURL."""
    assert isinstance(_why(prefix + tail, base), str)
    try:
        canonicalize(prefix + tail, base)
    except InvalidURL:
        pass
