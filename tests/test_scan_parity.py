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

import json
import random
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from linkaudit.rules.css import css_links, style_attribute_links
from linkaudit.rules.html import Tag, capped_links, links_in_tag, start_tags
from linkaudit.rules.html.landmarks import landmarks
from linkaudit.rules.html.links import (
    CappedExtracted,
    Extracted,
    RawLink,
    _style_attribute_url,
    form_method,
)
from linkaudit.rules.html.lowered import lowered
from linkaudit.rules.html.tokenizer import STYLE_TEXT
from linkaudit.rules.templates import BlockIndex, page_blocks, url_hash
from linkaudit.rules.urls import _SCHEME, C0_SPACE, HTTP_SCHEMES, _resolve, canonicalize, clean
from tests.helpers.cost import GROWTH, GROWTH_BOUND, least_cpu
from tests.helpers.landmarks import random_page as landmark_page
from tests.helpers.landmarks import slow_landmarks, slow_page_blocks
from tests.helpers.standards import unescaped, upstream

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
    method = "get"  # of the last <form>: its submit buttons' method
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
        if name == "form" and namespace == "html":
            method = form_method(attrs.get("method"))
        tag = Tag(name, attrs, line, namespace)
        values = [v for v in links_in_tag(tag, method) if v.strip(C0_SPACE)]
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
    # an "=" where a name may start starts one ("=" then a quote is a name)
    "<a =\" x>", "<a name=n =' x>", "<a id=i5 =\"", "<a/=' x>", "<a x=y=\" x>",
]  # fmt: skip
OTHERS = [
    "text ", "\n", "\r\n", "<p>", "</a>", "</p >", "<!-- <a href=/c1> -->", "<!-->", "<!", "<?x>",
    "<script>x('<a href=/c2>')</script>", "<script src=/j1></script>", "<style>p{background:url(/s3)}</style>",
    "<title><a href=/c3></title>", "<textarea><a href=/c4></textarea>", '<img src=/i1 srcset="/i2 2x">',
    "<base href=/b/>", '<link rel=stylesheet href=/l1>', "<meta http-equiv=refresh content='0;url=/m1'>",
    '<p style="background: url(/s4)" id=p1>', "<div id=d1 class=x>", "<svg><a href=/v1></a><a xlink:href=/v2>",
    "</svg>", "<math href=/mm1>", "</math>", "<p title='<a href=/c5>'>", "&amp;", "<", ">", "'", '"', "=",
    '<p =" x>', "<p a=1 =' x>", '</p =" x>', '<div =" style="background: url(/s5)" id=d2>', "<p a=b=' x>",
    # elements that hold a link only with one attribute (LINKED_BY)
    "<td background=/g1>", "<td bac\u212aground=/g6>", "<TD class=x>", '<td title="background">', "<table BACKGROUND='/g2'>",
    "<tr/background=/g3>", "<th =\" background=/x>", "<td style='background:url(/s6)' id=t1>", "<td",
    "<body background=/g4 id=b1>", "<tbody><thead><tfoot><tt>", "<td background=/g5 =' x>",
    "<form action=/f1>", "<form method=post action=/f2>", "<form id=f3 name=n>", "<FORM ACTION='/f4'",
    "<button formaction=/f5>", "<button>", "<button type=reset formaction=/x>", "<formx action=/x>",
    "<input type=submit formaction=/f6>", "<button formmethod=post formaction=/f7>",
    '<link rel=preload as=image imagesrcset="/p1 1x, /p2 2x">', '<link rel=preload imagesrcset="/x">',
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


def _word_page(rng: random.Random) -> str:
    """A page of the words a landmark's tag or attribute holds, in any case,
    next to what may or may not end a word (letters and digits in and out of
    ASCII, "_", "-", quotes), inside tags and in text."""
    words = ["nav", "navbar", "navigation", "menu", "header", "footer", "aside", "sidebar",
             "breadcrumb", "banner", "contentinfo", "complementary", "role", "headerlink"]
    edges = ["", "", "-", "_", "x", "1", " ", "\u00e9", "\u00c9", "\u4e41", "\u00b6", "\u2141", "'", '"']
    tags = ["div", "ul", "section", "nav", "header", "footer", "aside", "span", "li"]
    parts = []
    for _ in range(rng.randrange(1, 30)):
        word = rng.choice(words)
        word = rng.choice([word, word.upper(), word.title()])
        value = f"{rng.choice(edges)}{word}{rng.choice(edges)}"
        roll = rng.random()
        if roll < 0.5:
            attribute = rng.choice(["class", "id", "role", "ID", "title"])
            quote = rng.choice(['"', "'", ""])
            extra = rng.choice(["", " my_footer", " nav", " x"])
            parts.append(f"<{rng.choice(tags)} {attribute}={quote}{value}{extra}{quote}>")
        elif roll < 0.7:
            parts.append(f"<{word}{rng.choice([' ', '>', '/', 'x', '-'])}>")
        else:
            parts.append(f"<p>{value}</p>")
        parts.append(rng.choice(["\n", "", "</div>", f"</{rng.choice(tags)}>\n"]))
    return "".join(parts)


def test_landmark_words_found_as_a_case_blind_regex_finds_them():
    """The word search (a few patterns over the lowered page, word ends
    checked on ASCII) reads every stretch the case-blind regex would match
    in: on pages dense with the words in every context, and on real pages."""
    rng = random.Random(2424)
    for _ in range(1500):
        page = _word_page(rng)
        assert landmarks(page) == slow_landmarks(page), page
    real = list(PAGES)
    if PYTHON_DOCS.is_dir():
        real += sorted(PYTHON_DOCS.rglob("*.html"))[::25]
    for path in real:
        page = path.read_bytes().decode("utf-8", "replace")
        assert landmarks(page) == slow_landmarks(page), path


_AROUND_MAIN = [
    '<div role="main">', "<DIV ROLE=main>", "<main>", "</main>", "</MAIN >", "<div>", "</div>",
    "</div", '<div class="nav">', "<nav>", "</nav>", "<ul class='menu'>", "</ul>", "<header>",
    "</header>", "<footer id=footer>", "</footer>", "<aside>", "</aside>", "<divx>", "mainly",
    '<div id="sidebar" role="main">', "<section role=navigation>", "</section>", "<nav/>",
    "text main menu nav ", "\n", "\r\n", ">", "<", "</", "<a href=x>", "</a>", "_main_",
    "\u00e9", "\u4e2d", "\u0130", "\u212a", "\u017f", "\u0131", "<head>", "</head>", "<body>",
    '<div title="</div " class=nav>', '<span class="main">', "<p>header</p>", ' role="main"',
    '<div\u00a0role="main">', '<div class="x"', "<my-nav role=navigation>", "</my-nav>",
    '<div role="complementary">', '<div class="breadcrumb">', "</div/>", "</nav ",
    "<\u017fection role=main>", "</SECTION>", "</\u017fection>", '<div class="\u017fidebar">',
]


def test_landmarks_around_main_contents_as_before():
    """The word search skips the inside of each main content and the words
    in text, and finds end tags in the lower-cased page (with the letters a
    case-blind regex takes for ASCII ones, İ ı ſ K, in or out of names):
    the blocks of the plain way, on pages of mains, nested, unclosed,
    malformed, and words on both sides of their edges."""
    rng = random.Random(4343)
    for _ in range(3000):
        page = "".join(rng.choice(_AROUND_MAIN) for _ in range(rng.randrange(60)))
        assert landmarks(page) == slow_landmarks(page), page


def test_blocks_of_links_in_document_order_as_before():
    """Links in document order (each with a line, lines sorted: the fast
    path) and the same links shuffled or some without a line (the general
    one) give the blocks the plain algorithm gives."""
    rng = random.Random(2425)
    fast = 0
    for _ in range(400):
        page = landmark_page(rng)
        marks = landmarks(page)
        links = [(raw.value, raw.line) for raw in capped_links(page).extracted.links]
        # runs of links on one line and on consecutive lines, and gaps
        links += [(f"/r{i % 5}", (links[-1][1] if links else 1) + i // 3) for i in range(rng.randrange(9))]
        fast += len(links) > 3
        assert page_blocks(links, marks) == slow_page_blocks(links, marks), page
        shuffled = rng.sample(links, len(links))
        assert page_blocks(shuffled, marks) == slow_page_blocks(shuffled, marks), page
        unplaced = [(url, None if rng.random() < 0.2 else line) for url, line in links]
        assert page_blocks(unplaced, marks) == slow_page_blocks(unplaced, marks), page
    assert fast > 300


def slow_block_of(blocks, url, line):
    """``block_of`` as it was: every block of the page read for each link."""
    if line is None:
        return None
    found = None
    for block in blocks:
        signature, first, last, hashes = block
        if signature == "main" and first < line < last:
            return None  # the page's own content
        if signature == "main" or not first <= line <= last:
            continue
        if hashes is None:
            if found is None:
                found = block
            continue
        narrower = found is None or found[3] is None or last - first < found[2] - found[1]
        if narrower and url_hash(url) in hashes:
            found = block
    return found


def test_block_index_finds_the_block_each_link_sat_in_before():
    """The block of each link (the run by bisection, landmarks in turn) as
    the plain reading of every block: on the blocks of generated pages' links
    in document order (runs rising) and in any order, and on random blocks
    (runs that overlap, out of order; nested landmarks of equal widths)."""
    rng = random.Random(2426)
    urls = [f"/p{i}" for i in range(6)]
    cases = []
    for _ in range(200):
        page = landmark_page(rng)
        marks = landmarks(page) + [("nav", 3, 5), ("footer", 3, 5)]  # equal widths
        links = [(raw.value, raw.line) for raw in capped_links(page).extracted.links]
        links += [(f"/p{i % 4}", rng.randrange(1, 12)) for i in range(rng.randrange(12))]
        cases.append(page_blocks(sorted(links, key=lambda link: link[1]), marks) or [])
        cases.append(page_blocks(rng.sample(links, len(links)), marks) or [])
    for _ in range(300):
        blocks = []
        for k in range(rng.randrange(8)):
            first = rng.randrange(1, 12)
            last = first + rng.randrange(-1, 5)
            if rng.random() < 0.1:
                blocks.append(["main", first, last, None])
            elif rng.random() < 0.5:
                blocks.append([f"links:{k}", first, last, None])
            else:
                hashes = sorted({url_hash(u) for u in rng.sample(urls, rng.randrange(1, 4))})
                blocks.append([rng.choice(["nav", "footer"]), first, last, hashes])
        if rng.random() < 0.3:  # runs in line order, as page_blocks gives them
            blocks.sort(key=lambda block: (block[3] is None, block[1], block[2]))
        cases.append(blocks)
    rising = 0
    for blocks in cases:
        index = BlockIndex(blocks)
        rising += index.rising and len(index.runs) > 1
        for url in [*urls, "/elsewhere"]:
            for line in [None, *range(0, 17)]:
                assert index.of(url, line) is slow_block_of(blocks, url, line), (blocks, url, line)
    assert 50 < rising < len(cases) - 50  # both ways taken


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
def _anchors(n: int, tag: str = "a", word: str = "href") -> Callable[[], object]:
    """``n`` tags without the attribute ``word`` (``<a>`` without ``href``)
    whose attribute names and values are full of what starts the word
    (``h``, ``hre``), then one unterminated: the regex that skips them must
    stay linear."""
    w, stem = word[0], word[:-1]
    page = "".join(
        f'<{tag} name="n{i}" title="{w * 20}{stem}{w * 10}" {w * 5}{stem}=x class=x>x</{tag}>\n'
        for i in range(n)
    )
    page += f"<{tag} " + w * n + stem
    return lambda: capped_links(page, css=True)


@pytest.mark.parametrize("tag, word", [("a", "href"), ("td", "background"), ("button", "formaction")])
def test_skipping_tags_without_their_link_attribute_grows_linearly(tag, word):
    small, large = _anchors(1000, tag, word), _anchors(1000 * GROWTH, tag, word)
    large()  # warm up
    ratio = least_cpu(large) / max(least_cpu(small), 1e-4)
    assert ratio < GROWTH_BOUND, f"{GROWTH}x the {tag} tags cost {ratio:.1f}x the CPU"


def test_fast_scan_as_tag_by_tag_on_html5lib_tokenizer_tests():
    """Every input of html5lib-tests' tokenizer tests (``="`` as an attribute
    name among them), then a link (where a tag is misread to end, the link
    is lost): read by the fast path as tag by tag."""
    inputs = 0
    for path in sorted(upstream("html5lib-tests/tokenizer").glob("*.test")):
        for test in json.loads(path.read_text(encoding="utf-8")).get("tests", []):
            text = unescaped(test)["input"] if test.get("doubleEscaped") else test["input"]
            if "<" in text:
                _same(text + " <a href=/after> \"> ' <a href=/after2>")
                inputs += 1
    assert inputs > 1000
