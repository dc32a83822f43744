"""The faster page scan gives what the plain algorithms give (issue 24).

- The link reader's fast path (one regular expression skips text, end tags,
  tags that cannot matter and ``<a>`` without ``href``) against the same
  page read tag by tag (``start_tags(every=True)``: every start tag through
  the element tables), in every mode (CSS, anchors, a link limit), on
  generated pages full of tricky ``<a>`` tags and on real pages;
- ``canonicalize`` with its shared cache keys (a fragment-only reference is
  the base; a path-relative one depends on the base's directory) against
  resolving each value against its own base, uncached.

The landmarks' one-pass algorithm is checked against the old one in
tests/test_linear.py; here, pages whose blocks sit far apart (the pass
skips what lies between them).
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from linkaudit.rules.css import css_links, style_attribute_links
from linkaudit.rules.html import Tag, capped_links, links_in_tag, start_tags
from linkaudit.rules.html.landmarks import landmarks
from linkaudit.rules.html.links import CappedExtracted, Extracted, RawLink, _style_attribute_url
from linkaudit.rules.html.lowered import lowered
from linkaudit.rules.html.tokenizer import STYLE_TEXT
from linkaudit.rules.urls import _SCHEME, C0_SPACE, HTTP_SCHEMES, _resolve, canonicalize, clean
from tests.helpers import GROWTH, GROWTH_BOUND, least_cpu, slow_landmarks

PAGES = sorted((Path(__file__).resolve().parent / "data" / "pages").glob("*.html"))
PYTHON_DOCS = Path("/usr/share/doc/python3.11/html")


def reference(
    text: str, css: bool = False, anchors: bool = False, limit: int = sys.maxsize
) -> CappedExtracted:
    """``capped_links`` the plain way: every start tag, read one by one,
    through the element tables; the links cut at ``limit`` at the end."""
    lowered_text = text.lower()
    if css and "<style" not in lowered_text and "url(" not in lowered_text:
        css = False  # the old gate: nothing more to see
    styles = css and _style_attribute_url(text)
    links: list[RawLink] = []
    base = None
    images = 0
    names: set[str] | None = set() if anchors else None
    for name, attrs, line, namespace in start_tags(text, every=True, style_text=css):
        if name == STYLE_TEXT:
            links.extend(RawLink(v, n, "style") for v, n, _ in css_links(attrs["text"], line))
            continue
        if names is not None:
            if "id" in attrs:
                names.add(attrs["id"])
            if name == "a" and "name" in attrs and namespace == "html":
                names.add(attrs["name"])
        if name == "base" and namespace == "html":
            if base is None and "href" in attrs:
                base = attrs["href"]
            continue
        values = [v for v in links_in_tag(Tag(name, attrs, line, namespace)) if v.strip(C0_SPACE)]
        links.extend(RawLink(v, line, name) for v in values)
        images += name == "img" and namespace == "html" and bool(values)
        if styles and "style" in attrs:
            links.extend(
                RawLink(v, n, "style") for v, n, _ in style_attribute_links(attrs["style"], line)
            )
    dropped = max(len(links) - limit, 0)
    return CappedExtracted(Extracted(links[:limit], base, images, names), dropped)


MODES = [
    {},
    {"css": True},
    {"anchors": True},
    {"css": True, "anchors": True},
    {"css": True, "limit": 3},
    {"anchors": True, "limit": 1},
    {"limit": 0},
]


def _same(text: str) -> None:
    for mode in MODES:
        assert capped_links(text, **mode) == reference(text, **mode), (mode, text)


ANCHORS = [
    "<a href=/a1>", '<A HREF="/a2">', "<a\nhref='/a3'>", '<a title="t" href=/a4>',
    "<a title='>' href=/a5>", '<a title="href">', "<a name=n1>", "<a id=i1>",
    '<a NAME="n2" ID=i2>', '<a style="background: url(/s1.png)">', '<a x="1"href="/a6">',
    '<a =" href=/a7">', "<a hreflang=en>", "<a data-href=/a8>", "<a>", "<a/>", "<a href>",
    "<a href=>", "<a hr&#101;f=/a9>", "<a h=''ref=/a10>", "<a h\nref=/a11>", '<a id="x" href="">',
    "<a\tHrEf = /a12 >", "<a href=/a13 href=/a14>", "<a title='x\"y' href=/a15>",
    '<a title="x\'y" href=/a16>', "<a title=a'b href=/a17>", "<a NaMe=n3 href=/a18>",
    "<a Style='color: red'>", '<a ſtyle="url(/s2)">', "<a İd=i3>", "<a\x00href=/a19>",
    "<a href=/a20/>", "<a/href=/a21>", "<a\fhref=/a22>", "<a href='/a23", '<a title="',
    "<a hre", "<a", "<abbr href=/no>", "<a1 href=/no>", "<area href=/ar>", "<aside id=i4>",
]  # fmt: skip
OTHERS = [
    "text ", "\n", "\r\n", "<p>", "</a>", "</p >", "<!-- <a href=/c1> -->", "<!-->", "<!", "<?x>",
    "<script>x('<a href=/c2>')</script>", "<script src=/j1></script>", "<style>p{background:url(/s3)}</style>",
    "<title><a href=/c3></title>", "<textarea><a href=/c4></textarea>", '<img src=/i1 srcset="/i2 2x">',
    "<base href=/b/>", '<link rel=stylesheet href=/l1>', "<meta http-equiv=refresh content='0;url=/m1'>",
    '<p style="background: url(/s4)" id=p1>', "<div id=d1 class=x>", "<svg><a href=/v1></a><a xlink:href=/v2>",
    "</svg>", "<math href=/mm1>", "</math>", "<p title='<a href=/c5>'>", "&amp;", "<", ">", "'", '"', "=",
]  # fmt: skip


def random_page(rng: random.Random) -> str:
    parts = []
    for _ in range(rng.randrange(1, 30)):
        parts.append(rng.choice(ANCHORS if rng.random() < 0.5 else OTHERS))
        parts.append(rng.choice(["", " ", "\n", "x"]))
    return "".join(parts)


def test_fast_scan_as_tag_by_tag_on_generated_pages():
    rng = random.Random(2424)
    for _ in range(3000):
        _same(random_page(rng))


@pytest.mark.parametrize("anchor", ANCHORS)
def test_each_anchor_alone_and_in_company(anchor):
    for page in (anchor, f"<p>{anchor}x</a><a href=/after>", f"{anchor}\n{anchor.upper()}"):
        _same(page)


def test_fast_scan_as_tag_by_tag_on_tricky_and_real_pages():
    pages = list(PAGES)
    if PYTHON_DOCS.is_dir():  # every 25th page of the Python documentation
        pages += sorted(PYTHON_DOCS.rglob("*.html"))[::25]
    assert pages
    for path in pages:
        _same(path.read_bytes().decode("utf-8", "replace"))


# -- canonicalize ----------------------------------------------------------------------------
BASES = [
    "http://example.com/",
    "http://example.com/a/b.html",
    "http://example.com/a/b.html?q=/x/y",
    "https://u:p@example.com:8443/a/b/",
    "http://[::1]:8080/a/b",
    "http://xn--bcher-kva.example/dir/page",
    "http://example.com/a%20b/c%7E",
    # not canonical: resolved against in full
    "http://example.com/a/..", "http://example.com/a/%2e%2E", "http://example.com/a\\b",
    "HTTP://example.com/a/b", "http://example.com/a/b#f", "http://example.com/a/b c",
    "http://example.com/a/.\t.", " http://example.com/a/b", "http://example.com", "mailto:x",
]
VALUES = [
    "#", "#x", "#x#y", "#%41", "# x", "#\u00e9", "#\ud800", "c.html", "c.html#f", "./c", "../c",
    "../../../c", "..", ".", "", " c.html ", "c d", "c\td", "c\\d", "?q", "?q#f", "/abs", "//host/p",
    "\\\\host\\p", "c?x=1#f", "%7Ec", "%zz", "c:d", ":c", "C|/x", "\u00e9t\u00e9.html", "c\ud800",
    "http:c", "https:c", "mailto:x", "HTTP://Example.COM/./a/../b", "..\\c", "a/./b/../c",
]  # fmt: skip


def outcome(resolve, value: str, base: str) -> tuple[str, str]:
    try:
        return ("url", resolve(value, base))
    except ValueError as exc:  # InvalidURL, or what ada raises
        return (type(exc).__name__, str(exc))


def exact(value: str, base: str) -> str:
    """``canonicalize`` the old way: every value resolved against its own
    base, uncached."""
    value = clean(value)
    m = _SCHEME.match(value)
    if m is not None and m.group(1).lower() not in HTTP_SCHEMES:
        return m.group(1).lower() + value[len(m.group(1)) :]
    return _resolve.__wrapped__(value, base)


def test_canonicalize_as_resolving_each_value_against_its_base():
    _resolve.cache_clear()
    for _ in range(2):  # once filling the cache, once from it
        for base in BASES:
            for value in VALUES:
                got = outcome(canonicalize, value, base)
                assert got == outcome(exact, value, base), (value, base)
    rng = random.Random(5)
    pieces = ["c", "/", "..", ".", "#", "?", "%2e", "%", "\\", " ", "\t", "\u00e9", ":", "@", "x.html", "~", "-", "_", "A0"]
    for _ in range(3000):
        value = "".join(rng.choice(pieces) for _ in range(rng.randrange(0, 6)))
        base = rng.choice(BASES)
        assert outcome(canonicalize, value, base) == outcome(exact, value, base), (value, base)


# -- landmarks -------------------------------------------------------------------------------
def test_landmarks_far_apart_as_before():
    rng = random.Random(7)
    blocks = ['<div class="menu">', "<nav>", '<ul class="nav">', '<div role="navigation">', "<div>"]
    for _ in range(300):
        parts = []
        for _ in range(rng.randrange(1, 40)):
            roll = rng.random()
            if roll < 0.2:
                parts.append(rng.choice(blocks))
            elif roll < 0.45:
                parts.append(rng.choice(["</div>", "</nav>", "</ul>", "</DIV >"]))
            else:
                parts.append(rng.choice(["<p>text</p>\n", "<div>\n", "</div>\n", "\n" * 3, "<a href=/x>"]))
        page = "".join(parts)
        assert landmarks(page) == slow_landmarks(page), page


# -- the lowered page ------------------------------------------------------------------------
def test_lowered_page_is_str_lower_wherever_that_is_ascii():
    rng = random.Random(11)
    alphabet = "aZ<>sTyLeUrL(\u00e9\u00c9\u00b6\u0130\u212a\u0131\u017f\u4e41\u5a41\U0001f600\ud800 "
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 12)))
        if rng.random() < 0.5:  # most pages hold neither of the two
            text = text.replace("\u0130", "").replace("\u212a", "")
        lowered.cache_clear()
        got, want = lowered(text), text.lower()
        assert len(got) == len(want), repr(text)
        for a, b in zip(got, want, strict=True):
            assert a == b if b.isascii() else not a.isascii(), repr(text)


# -- growth ----------------------------------------------------------------------------------
def _anchors(n: int) -> Callable[[], object]:
    """``n`` anchors without ``href`` whose attribute text is full of what
    starts the word (``h``, ``hre``), then one unterminated: the regex that
    skips them must stay linear."""
    page = "".join(
        f'<a name="n{i}" title="{"h" * 20}hre{"hr" * 10}" class=x>x</a>\n' for i in range(n)
    )
    page += "<a " + "h" * n + "re"
    return lambda: capped_links(page, css=True)


def test_skipping_anchors_grows_linearly():
    small, large = _anchors(1000), _anchors(1000 * GROWTH)
    large()  # warm up
    ratio = least_cpu(large) / max(least_cpu(small), 1e-4)
    assert ratio < GROWTH_BOUND, f"{GROWTH}x the anchors cost {ratio:.1f}x the CPU"
