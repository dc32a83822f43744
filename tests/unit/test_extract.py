"""Link extraction: every link form, with the line its start tag begins on."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from linkaudit.rules.html import decode_attribute, extract_links, parse_meta_refresh, parse_srcset
from linkaudit.rules.urls import C0_SPACE as _C0_SPACE
from linkaudit.rules.urls import InvalidURL, canonicalize


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
    links, base, _images, _anchors = extract_links(
        '<base href=" /root/ "><base href="/second/"><a href="  x.html\n">x</a>'
        '<a href="">e</a><a href="   ">w</a><a>none</a><A HREF="q?a=1&amp;b=2">'
    )
    # values as the tokenizer reads them: the URL parser strips the spaces
    assert base == " /root/ "
    assert [link.value for link in links] == ["  x.html\n", "q?a=1&b=2"]


def test_not_links_in_comments_scripts_and_text():
    html = """<!-- <a href="commented.html"> -->
<script>document.write('<a href="scripted.html">')</script>
<style>a[href="styled.html"]{}</style><textarea><a href="text.html"></textarea>
<title><a href=title.html></title><a href="real.html">"""
    assert values(html) == [("real.html", 4)]


def test_preconnect_names_an_origin_not_a_link():
    assert values('<link rel="preconnect dns-prefetch" href="https://cdn.example">') == []


def test_malformed_html_still_yields_links():
    html = "<a href=unquoted.html>x<a href=\"unclosed.html\" <a href='single.html'> < stray <img src=i.png>"
    got = [v for v, _ in values(html)]
    # <a is an attribute name in the second tag, its href a duplicate (ignored)
    assert got == ["unquoted.html", "unclosed.html", "i.png"]
    # a tag the end of the page cuts is not a tag (the Standard's eof-in-tag)
    assert values("<a href=x.html>x</a><img src=cut.png") == [("x.html", 1)]


def test_images_are_counted_per_img_element():
    html = """<img src=a.png srcset="a.png 1x, a2.png 2x"><img srcset=b.png>
<img alt="no source"><img src="  "><!-- <img src=c.png> --><picture><source srcset=d.png></picture>
<IMG SRC=e.png><a href=f.html><img src=g.png></a>"""
    extracted = extract_links(html)
    assert extracted.images == 4  # a, b, e, g: not the empty ones, nor the commented one
    assert len(extracted.links) == 8  # srcset candidates and the picture source are links


@pytest.mark.parametrize(
    "srcset, urls",
    [  # the HTML Standard's "parse a srcset attribute"
        ("a.png 1x,b.png 2x, c,d.png 100w", ["a.png", "b.png", "c,d.png"]),  # commas in a URL
        ("data:image/png;base64,AAA 1x", ["data:image/png;base64,AAA"]),
        ("a.png, b.png,,, c.png", ["a.png", "b.png", "c.png"]),  # trailing commas end a URL
        ("img.webp 1000px", []),  # not a density: dropped by browsers
        ("w.png 0w, x.png -1x, y.png 1.5x", ["y.png"]),
        ("h.png 100h", []),  # a height needs a width
        ("hw.png 100w 50h", ["hw.png"]),
        ("two.png 1x 2x", []),  # two densities
        ("f.png 1e1x, g.png .5x", ["f.png", "g.png"]),
        ("p.png (a, b) 1x, q.png", ["q.png"]),  # a descriptor in parentheses is invalid
        ("  \t\n ", []),
    ],
)
def test_srcset_by_the_standard(srcset, urls):
    assert parse_srcset(srcset) == urls


@pytest.mark.parametrize(
    "content, url",
    [  # the HTML Standard's "shared declarative refresh steps"
        ("0; url=http://x/", "http://x/"),
        ("5;URL='quoted.html'", "quoted.html"),
        ("0;url='r7' x", "r7"),  # the quote ends the URL
        ('3, url="a b"c', "a b"),
        ("0;URL = next.html", "next.html"),
        ("0; http://x/", "http://x/"),  # no url=
        ("0;urlx=y", "urlx=y"),  # not "url=": the whole rest
        (".5;u", "u"),
        ("10", ""),  # refreshes the page itself
        ("10;", ""),
        ("-2;url=x", ""),  # ignored by browsers: no time
        ("x;url=y", ""),
        ("5x;url=y", ""),  # a time, then neither ; , nor space
    ],
)
def test_meta_refresh_by_the_standard(content, url):
    assert parse_meta_refresh(content) == url


@pytest.mark.parametrize(
    "raw, decoded",
    [  # character references in an attribute value (the attribute rule)
        ("/s?q=tea&section=2&currency=EUR&lte=5", "/s?q=tea&section=2&currency=EUR&lte=5"),
        ("?a=1&sect=2", "?a=1&sect=2"),  # a legacy name before "=" stays
        ("&copy2 &reg9", "&copy2 &reg9"),  # ... before an alphanumeric too
        ("&sect;&copy;", "\u00a7\u00a9"),  # with ";" decoded
        ("&sect &not", "\u00a7 \u00ac"),  # before a space or at the end: decoded
        ("&amp;&amp&AMP;&ampx", "&&&&ampx"),
        ("&notin;&notit;", "\u2209&notit;"),  # the longest name; legacy "not" then "i"
        ("&bogus;&#;&#x;", "&bogus;&#;&#x;"),
        ("&#65;&#x42&#X43;", "ABC"),
        ("&#0;&#xD800;&#x110000;", "\ufffd\ufffd\ufffd"),
        ("&#x80;&#x9f;&#x81;", "\u20ac\u0178\x81"),  # C1 controls mean windows-1252
        ("a\0b", "a\ufffdb"),
    ],
)
def test_character_references_in_attributes(raw, decoded):
    assert decode_attribute(raw) == decoded


@pytest.mark.parametrize(
    "html, links",
    [
        # comments, bogus comments, doctypes, attributes, end tags
        ('<!--><a href="/a">', ["/a"]),
        ('<!---><a href="/a">', ["/a"]),
        ('<!-- <a href="/x"> --!><a href="/a">', ["/a"]),
        ("<?php echo '<a href=\"/x\">'; ?><a href=/a>", ["/a"]),
        ('<![CDATA[<a href="/x">]]><a href=/a>', ["/a"]),
        ('<!DOCTYPE html "x>y"><a href=/a>', ["/a"]),
        ("<div title=\"<a href='/x'>\"><a href=/a>", ["/a"]),
        ('</p title=">"><a href=/a>', ["/a"]),
        ('</ <a href="/x">><a href=/a>', ["/a"]),
        ("<a\x0bhref=/x>", []),  # a vertical tab does not end a tag name
        # text content
        ('<noframes><a href="/x"></noframes><a href=/a>', ["/a"]),
        ('<noembed><a href="/x"></noembed><a href=/a>', ["/a"]),
        ('<iframe src=/f><a href="/x"></iframe><a href=/a>', ["/f", "/a"]),
        ('<xmp><a href="/x"></xmp><style>a{}</style><a href=/a>', ["/a"]),
        ('<textarea><a href="/x"></textarea><title><a href=/x></title><a href=/a>', ["/a"]),
        ('<script><!-- <script> </script> <a href="/x"> --></script><a href=/a>', ["/a"]),
        ('<script>"</scriptx>"; "<a href=/x>"</script><a href=/a>', ["/a"]),
        ("<plaintext><a href=/x>", []),
        ('<noscript><img src="/a.png"></noscript>', ["/a.png"]),  # read with scripting off
        # elements and attributes
        ('<a href="/a" href="/x">', ["/a"]),  # the first of duplicates
        ('<image src="/i.png">', ["/i.png"]),  # the tree builder's img
        ('<input type=image src="/a.png"><input src="/x">', ["/a.png"]),
        ('<template><a href="/a"></a></template>', ["/a"]),
        ('<a href="/x"', []),  # the end of the page in a tag
        ('<a title="x href=/y', []),  # ... or in a quoted value
        # an "=" where an attribute name may start (after the tag name, a
        # value or "/") starts a name: "=" then a quote is not a value
        ('<p =" x> <a href=/a> ">', ["/a"]),
        ('<p a="1" =" x> <a href=/a> ">', ["/a"]),
        ("<p a=1 =' x><a href=/a>'>", ["/a"]),
        ('<p/=" x><a href=/a>">', ["/a"]),
        ('<p a =" x> <a href=/x> "> <a href=/a>', ["/a"]),  # after a name: a value
        ('<p a=b=" x><a href=/a>">', ["/a"]),  # an unquoted value opens nothing
        ('</p =" x> <a href=/a> ">', ["/a"]),  # end tags alike
        ('<svg><g></g =" x><a href=/a>"></svg>', ["/a"]),
        # SVG and MathML
        ('<svg><a xlink:href="/a"/><a href="/b" xlink:href="/x"/></svg>', ["/a", "/b"]),
        (
            '<svg><image href="/i.png"/><use xlink:href="/s.svg#i"/><feImage href="/f"/></svg>',
            ["/i.png", "/s.svg#i", "/f"],
        ),
        ('<svg><![CDATA[<a href="/x">]]><style><a href="/a"></style></svg>', ["/a"]),
        ('<svg><foreignObject><img src="/i"></foreignObject></svg>', ["/i"]),
        ('<svg><g><p><a href="/a">', ["/a"]),  # a <p> breaks out: an HTML link
        ('<math><mi><a href="/a"></a></mi><mrow href="/m"></mrow></math>', ["/a", "/m"]),
        ('<svg/><img src="/i">', ["/i"]),
    ],
)
def test_what_the_tokenizer_makes_a_link(html, links):
    assert [link.value for link in extract_links(html).links] == links


def test_svg_elements_are_svg_and_html_ones_html():
    tags = {
        (link.value, link.tag)
        for link in extract_links('<svg><image href="/s"/></svg><image src="/h">').links
    }
    assert tags == {("/s", "image"), ("/h", "img")}
    # an svg image is not an <img> for the page statistics
    assert extract_links('<svg><image href="/s"/></svg><img src="/h">').images == 1


@pytest.mark.parametrize(
    "html, base",
    [
        ('<base href="/a/"><base href="/b/">', "/a/"),
        ('<base target=_top><base href="/b/">', "/b/"),  # the first with an href
        ('<base href=""><base href="/b/">', ""),  # an empty href counts
        ('<svg><base href="/x/"></svg><base href="/b/">', "/b/"),  # not one in SVG
        ("<a href=/a>", None),
    ],
)
def test_base_by_the_standard(html, base):
    assert extract_links(html).base == base


def test_cr_lf_and_crlf_each_end_a_line():
    html = "x\r<a href=/2>\r\r<a href=/4>\r\n<a href=/5>\n<a\r href=/6>"
    assert values(html) == [("/2", 2), ("/4", 4), ("/5", 5), ("/6", 6)]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("<>'\"=/ \nahrefsciptmgd!-x.&;#")), max_size=200))
def test_fuzz_extractor_never_raises(html):
    links, base, _images, _anchors = extract_links(html)
    for link in links:
        assert link.value.strip(_C0_SPACE) and link.line >= 1


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
    links, base, _images, _anchors = extract_links(html)
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


@pytest.mark.parametrize(
    "html, links",
    [
        # <link rel=preload as=image imagesrcset>: every candidate (the
        # browser preloads one, by the viewport), by "parse a srcset
        # attribute"; imagesizes holds sizes, never a URL
        (
            '<link rel=preload as=image href=/h.png imagesrcset="/a.png 480w, /b.png 800w,'
            ' /c%20d.png 1600w" imagesizes="(max-width: 600px) 480px, 800px">',
            ["/h.png", "/a.png", "/b.png", "/c%20d.png"],
        ),
        ('<LINK REL="Preload Foo" AS=IMAGE IMAGESRCSET="/a.png 1x,/b.png 2x">', ["/a.png", "/b.png"]),
        ('<link rel=preload as=image imagesrcset="/a.png 1000px, /b.png">', ["/b.png"]),
        ('<link rel=preload as=image imagesrcset="/a.png" imagesizes="50vw">', ["/a.png"]),
        # elsewhere a browser ignores it
        ('<link rel=preload as=font imagesrcset="/x.png" href=/f.woff2>', ["/f.woff2"]),
        ('<link rel=stylesheet imagesrcset="/x.png" href=/s.css>', ["/s.css"]),
        ('<link rel=preconnect as=image imagesrcset="/x.png" href=https://cdn/>', []),
        ('<img imagesrcset="/x.png"><source imagesrcset="/x.png">', []),
        # background: obsolete, still a background image to browsers
        ("<body background=/b.png>", ["/b.png"]),
        (
            "<table background=/t.png><thead background=/th.png><tr background=/r.png>"
            "<th background=/h.png><td background=/d.png><tbody background=/tb.png>"
            "<tfoot background=/tf.png>",
            ["/t.png", "/th.png", "/r.png", "/h.png", "/d.png", "/tb.png", "/tf.png"],
        ),
        ("<TD BackGround='/d.png'><td class=background><td>", ["/d.png"]),
        ("<div background=/x.png><p background=/x.png><svg><td background=/x></svg>", []),
        # <form action>: navigated to when sent with GET (the default; an
        # unknown method is GET), not with POST or dialog
        ("<form action=/s>", ["/s"]),
        ("<form action=/s method=GET><form action=/t method=bogus>", ["/s", "/t"]),
        ("<form action=/x method=post><form action=/y method=DIALOG>", []),
        # formaction: a submit button's, by its formmethod, else its form's
        ("<form action=/s><button formaction=/b>", ["/s", "/b"]),
        ("<form action=/x method=post><button formaction=/p>", []),
        ("<form method=post><button formaction=/b formmethod=get>", ["/b"]),
        ("<form><button formaction=/p formmethod=post><button formaction=/b type=submit>", ["/b"]),
        ("<form><button type=button formaction=/x><button type=reset formaction=/y>", []),
        ("<form><button type=bogus formaction=/b>", ["/b"]),
        (
            "<form><input type=submit formaction=/s><input type=image src=/i.png formaction=/i>"
            "<input type=text formaction=/x><input formaction=/y>",
            ["/s", "/i.png", "/i"],
        ),
        ("<form method=post></form><form><button formaction=/b>", ["/b"]),
        # what the Standard has no browser fetch or navigate to
        (
            '<a ping="/p1 /p2" href=/a><blockquote cite=/c><q cite=/c></q><ins cite=/c>'
            "<del cite=/c><div itemscope itemid=/i itemtype=https://schema.org/X>"
            "<img longdesc=/l src=/i.png><html manifest=/m.appcache>",
            ["/a", "/i.png"],
        ),
    ],
)
def test_links_a_browser_fetches_or_navigates_to(html, links):
    assert [link.value for link in extract_links(html).links] == links


@pytest.mark.parametrize("css", [False, True])
@pytest.mark.parametrize("anchors", [False, True])
def test_new_link_attributes_in_every_mode_with_their_tags_and_lines(css, anchors):
    html = (
        '<link rel=preload as=image imagesrcset="/a.png 1x, /b.png 2x">\n'
        '<body id=top background="/bg.png" style="color: red">\n'
        '<td background=/d.png style="background: url(/s.png)">\n'
        "<form id=f action=/s><button name=b formaction=/b>"
    )
    found = extract_links(html, css=css, anchors=anchors)
    assert [(link.value, link.line, link.tag) for link in found.links] == [
        ("/a.png", 1, "link"),
        ("/b.png", 1, "link"),
        ("/bg.png", 2, "body"),
        ("/d.png", 3, "td"),
        *([("/s.png", 3, "style")] if css else []),
        ("/s", 4, "form"),
        ("/b", 4, "button"),
    ]
    assert found.anchors == ({"top", "f"} if anchors else None)
