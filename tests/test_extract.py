"""Link extraction: every link form, with the line its start tag begins on."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from linkaudit.extract import extract_links, parse_meta_refresh, parse_srcset
from linkaudit.urls import InvalidURL, canonicalize


def values(html):
    return [(link.value, link.line) for link in extract_links(html)[0]]


def test_every_link_form():
    html = """<a href="a.html">a</a><area href=area.html>
<frame src=frame.html><iframe src='iframe.html'></iframe>
<img src=img.png srcset="x1.png 1x, x2.png 2x">
<link rel=stylesheet href=style.css>
<script src=app.js></script>
<video src=v.mp4><source src=s.webm srcset="s1.webp"><track src=t.vtt></video>
<audio src=a.ogg></audio><embed src=e.swf><object data=o.bin></object>
<meta http-equiv="refresh" content="2;URL=next.html">"""
    assert values(html) == [
        ("a.html", 1),
        ("area.html", 1),
        ("frame.html", 2),
        ("iframe.html", 2),
        ("img.png", 3),
        ("x1.png", 3),
        ("x2.png", 3),
        ("style.css", 4),
        ("app.js", 5),
        ("v.mp4", 6),
        ("s.webm", 6),
        ("s1.webp", 6),
        ("t.vtt", 6),
        ("a.ogg", 7),
        ("e.swf", 7),
        ("o.bin", 7),
        ("next.html", 8),
    ]


def test_line_is_where_the_start_tag_begins():
    html = "<p>\n<a\n  class=x\n  href='late.html'\n>x</a>"
    assert values(html) == [("late.html", 2)]


def test_lines_past_65535():
    html = "<br>\n" * 100_000 + '<a href="far-down.html">x</a>'
    assert values(html) == [("far-down.html", 100_001)]


def test_base_whitespace_entities_and_empty_values():
    links, base, _images = extract_links(
        '<base href=" /root/ "><base href="/second/"><a href="  x.html\n">x</a>'
        '<a href="">e</a><a href="   ">w</a><a>none</a><A HREF="q?a=1&amp;b=2">'
    )
    assert base == "/root/"
    assert [link.value for link in links] == ["x.html", "q?a=1&b=2"]


def test_not_links_in_comments_scripts_and_text():
    html = """<!-- <a href="commented.html"> -->
<script>document.write('<a href="scripted.html">')</script>
<style>a[href="styled.html"]{}</style><textarea><a href="text.html"></textarea>
<title><a href=title.html></title><a href="real.html">"""
    assert values(html) == [("real.html", 4)]


def test_preconnect_names_an_origin_not_a_link():
    assert values('<link rel="preconnect dns-prefetch" href="https://cdn.example">') == []


def test_malformed_html_still_yields_links():
    html = "<a href=unquoted.html>x<a href=\"unclosed.html\" <a href='single.html'> < stray <img src=i.png"
    got = [v for v, _ in values(html)]
    assert got[0] == "unquoted.html" and "unclosed.html" in got and got[-1] == "i.png"


def test_images_are_counted_per_img_element():
    html = """<img src=a.png srcset="a.png 1x, a2.png 2x"><img srcset=b.png>
<img alt="no source"><img src="  "><!-- <img src=c.png> --><picture><source srcset=d.png></picture>
<IMG SRC=e.png><a href=f.html><img src=g.png></a>"""
    extracted = extract_links(html)
    assert extracted.images == 4  # a, b, e, g: not the empty ones, nor the commented one
    assert len(extracted.links) == 8  # srcset candidates and the picture source are links


def test_srcset_and_meta_refresh_parsing():
    # per HTML, a candidate URL runs to whitespace: commas inside it stay
    assert parse_srcset("a.png 1x,b.png 2x, c,d.png 100w") == ["a.png", "b.png", "c,d.png"]
    assert parse_srcset("data:image/png;base64,AAA 1x") == ["data:image/png;base64,AAA"]
    assert parse_meta_refresh("0; url=http://x/") == "http://x/"
    assert parse_meta_refresh("5;URL='quoted.html'") == "quoted.html"
    assert parse_meta_refresh("10") == ""


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("<>'\"=/ \nahrefsciptmgd!-x.&;#")), max_size=200))
def test_fuzz_extractor_never_raises(html):
    links, base, _images = extract_links(html)
    for link in links:
        assert link.value and link.value == link.value.strip() and link.line >= 1


_href = st.one_of(
    st.text(max_size=60),
    st.builds(
        lambda scheme, host, path: f"{scheme}{host}{path}",
        st.sampled_from(["http://", "https://", "HTTP://", "//", "", "mailto:", "javascript:"]),
        st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=20),
        st.text(max_size=30),
    ),
)
_body = st.lists(
    st.one_of(
        st.builds(lambda h: f'<a href="{h}">x</a>', _href),
        st.builds(lambda h: f"<img src='{h}' srcset='{h} 2x, {h}'>", _href),
        st.builds(lambda h: f"<base href={h}><link rel=stylesheet href={h}>", _href),
        st.text(alphabet=st.sampled_from(list("<>!-/\n &;#\0\ufeffé")), max_size=20),
    ),
    max_size=12,
).map("\n".join)


@settings(max_examples=300, deadline=None)
@given(_body)
def test_fuzz_every_link_of_a_page_canonicalises_idempotently(html):
    """Extractor and canonicaliser together, on whole pages: no exception,
    and every URL they produce is canonical (canonicalising again changes
    nothing)."""
    links, base, _images = extract_links(html)
    page = "http://example.com/dir/page.html"
    try:
        base_url = canonicalize(base, page) if base else page
    except InvalidURL:
        base_url = page
    for link in links:
        try:
            url = canonicalize(link.value, base_url)
        except InvalidURL:
            continue
        assert canonicalize(url) == url, (link.value, url)
