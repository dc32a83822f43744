"""Every page's cost linear (issue 24): template detection, landmarks,
soft-404 titles and fingerprints, CSS reading, fragment anchors and
sitemaps grow linearly with the page (more links, more nested landmarks,
longer text), and give what the slower algorithms they replace gave.

The growth test compares CPU time on an input and on one 8 times larger,
in the same process: about 8x when linear, about 64x when quadratic (the
old ``page_blocks`` tested every link against every landmark, the old
``landmarks`` counted newlines from the top of the page for each).  The
bound, 16x, is a ratio, never an absolute time."""

from __future__ import annotations

import gzip
import random
import re
import zlib
from collections.abc import Callable

import pytest

from linkaudit.rules.css import css_links
from linkaudit.rules.html import capped_links
from linkaudit.rules.html.landmarks import landmarks
from linkaudit.rules.html.links import _style_attribute_url
from linkaudit.rules.sitemap import parse_sitemap, robots_sitemaps
from linkaudit.rules.soft404 import _NOT_FOUND, fingerprint, says_not_found
from linkaudit.rules.templates import page_blocks
from tests.helpers.cost import GROWTH, GROWTH_BOUND, least_cpu
from tests.helpers.landmarks import random_page, slow_landmarks, slow_page_blocks

# -- the slow algorithms, kept as the reference ------------------------------------
_HIDDEN = re.compile(r"<(script|style|template)\b.*?</\1\s*>|<!--.*?-->", re.S | re.I)
_TAG = re.compile(r"<[^>]*>")
_TITLES = [re.compile(rf"<{t}\b[^>]*>(.*?)</{t}\s*>", re.S | re.I) for t in ("title", "h1")]


def slow_words(html: str) -> list[str]:
    return _TAG.sub(" ", _HIDDEN.sub(" ", html)).lower().split()


def slow_title(html: str) -> str | None:
    for pattern in _TITLES:
        m = pattern.search(html)
        if m:
            text = " ".join(_TAG.sub(" ", m.group(1)).split())
            if _NOT_FOUND.search(text):
                return text
    return None


def slow_style_attribute_url(text: str) -> bool:
    lowered = text.lower()
    at = lowered.find("url(")
    while at >= 0:
        if re.compile(r"""[\t\n\f\r /"']style[\t\n\f\r ]*=""", re.I).search(
            text, text.rfind("<", 0, at) + 1, at
        ):
            return True
        at = lowered.find("url(", at + 4)
    return False


# -- generated pages ---------------------------------------------------------------------
def test_landmarks_and_blocks_as_before_on_generated_pages():
    rng = random.Random(24)
    nested = 0
    for _ in range(400):
        page = random_page(rng)
        marks = landmarks(page)
        assert marks == slow_landmarks(page), page
        nested += any(a[1] <= b[1] and b[2] <= a[2] for a in marks for b in marks if a != b)
        links = [
            (raw.value, raw.line if rng.random() > 0.05 else None)
            for raw in capped_links(page).extracted.links
        ]
        assert page_blocks(links, marks) == slow_page_blocks(links, marks), page
    assert nested > 100  # the pages did nest landmarks


def test_soft_404_text_and_css_as_before_on_generated_pages():
    rng = random.Random(404)
    pieces = [
        "<title>", "</title>", "<TITLE lang=en>", "<h1>", "</h1 >", "Not found", "404 ",
        "<script>", "</script>", "<STYLE>", "</style\n>", "<template>", "</template>",
        "<!--", "-->", "<!-->", "<", ">", "words", "\n", "<b>", "url(", " style=", "'style =",
    ]  # fmt: skip
    for _ in range(1500):
        page = "".join(rng.choice(pieces) for _ in range(rng.randrange(1, 40)))
        assert says_not_found(page) == slow_title(page), page
        assert fingerprint(page) == _slow_fingerprint(page), page
        assert _style_attribute_url(page) == slow_style_attribute_url(page), page


def _slow_fingerprint(html: str) -> list[int]:
    import heapq

    words = slow_words(html)[:2000]
    shingles = (
        {" ".join(words)}
        if len(words) < 3
        else {" ".join(words[i : i + 3]) for i in range(len(words) - 2)}
    )
    return heapq.nsmallest(16, {zlib.crc32(s.encode("utf-8", "replace")) for s in shingles})


def test_robots_sitemap_lines():
    body = b"User-agent: *\n\nSitemap: /a.xml\r\nsitemap:/b.xml\n# c\n  Sitemap: /c.xml"
    assert robots_sitemaps(body) == [("/a.xml", 3), ("/b.xml", 4), ("/c.xml", 6)]


# -- growth ---------------------------------------------------------------------------------
def api_page(n: int) -> str:
    """An API reference page of ``n`` members: each a nested navigation
    (a landmark in a landmark), a run of links, a paragraph of text with
    links, and an anchor; a stylesheet of ``n`` rules and a style attribute."""
    style = "".join(f".m{i} {{ background: url(img/m{i}.png) }}\n" for i in range(n))
    parts = [f"<!DOCTYPE html>\n<html><head><title>API</title>\n<style>\n{style}</style></head>"]
    parts.append('<body>\n<header><a href="/">Home</a></header>\n<p style="color: red">x</p>\n')
    for i in range(n):
        parts.append(
            f'<div class="menu" id="menu{i}">\n<nav>\n<a href="/api/{i}">{i}</a>\n'
            f'<a href="/api/{i}#members">members</a>\n</nav>\n<ul class="nav">\n'
            f'<li><a href="/api/{i + 1}">next</a></li>\n</ul>\n</div>\n'
            f'<h2 id="m{i}">member {i}</h2>\n'
            f'<a href="/src/{i}.h">source</a>\n<a href="/src/{i}.c">impl</a>\n'
            f'<a href="/src/{i}.txt">text</a>\n'
            f"<p>The member {i} takes words and returns more words, as the"
            f' <a href="#m{max(i - 1, 0)}">previous one</a> did.</p>\n'
        )
    parts.append('<footer><a href="/about">About</a></footer>\n</body></html>\n')
    return "".join(parts)


def _per_page(n: int) -> Callable[[], object]:
    page = api_page(n)

    def work() -> object:
        raw = capped_links(page, css=True, anchors=True).extracted.links
        links = [(link.value, link.line) for link in raw]
        return page_blocks(links, landmarks(page)), says_not_found(page), fingerprint(page)

    return work


def _hostile_text(n: int) -> Callable[[], object]:
    """Starts without ends: titles, headings, scripts, comments, ``<``."""
    page = "<title>x\n" + "<h1>word <script>x <!-- y <p " * n

    def work() -> object:
        return says_not_found(page), fingerprint(page), landmarks(page)

    return work


def _foreign(n: int) -> Callable[[], object]:
    """SVG nested ``n`` deep, then ``n`` end tags of elements not open."""
    page = "<svg>" + "<g>" * n + "</x>" * n + '<a href="/after">x</a>'
    return lambda: capped_links(page)


def _stylesheet_in_page(n: int) -> Callable[[], object]:
    """A ``<style>`` of ``n`` ``url()``, no style attribute with one."""
    page = '<p style="color: red">\n<style>\n' + "a { background: url(x.png) }\n" * n + "</style>"
    return lambda: (_style_attribute_url(page), capped_links(page, css=True))


def _sitemaps(n: int) -> Callable[[], object]:
    robots = b"User-agent: *\n" + b"".join(b"Sitemap: /s%d.xml\n" % i for i in range(n))
    urls = "".join(f"<url><loc>http://h/{i}</loc></url>\n" for i in range(n))
    xml = gzip.compress(
        f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n{urls}</urlset>'.encode()
    )
    return lambda: (robots_sitemaps(robots), parse_sitemap(xml, 1 << 30))


def _stylesheet(n: int) -> Callable[[], object]:
    sheet = "".join(f'@import "s{i}.css";\n.a{i} {{ background: url("i{i}.png") }}\n' for i in range(n))
    return lambda: css_links(sheet)


@pytest.mark.parametrize(
    "feature, make, n",
    [
        ("page: links, landmarks, blocks, soft 404", _per_page, 150),
        ("starts without ends", _hostile_text, 2000),
        ("style element of url()", _stylesheet_in_page, 2000),
        ("foreign content", _foreign, 2000),
        ("sitemaps", _sitemaps, 2000),
        ("stylesheet", _stylesheet, 2000),
    ],
)
def test_work_grows_linearly(feature, make, n):
    small, large = make(n), make(n * GROWTH)
    large()  # warm up: compiled patterns, caches
    ratio = least_cpu(large) / max(least_cpu(small), 1e-4)
    assert ratio < GROWTH_BOUND, f"{feature}: {GROWTH}x the input cost {ratio:.1f}x the CPU"
