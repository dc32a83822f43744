"""CSS links: url() and @import by the CSS Syntax tokenizer, with the line
each token is on."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from linkaudit.rules.css import CssLink, css_links, style_attribute_links


def values(css, first_line=1):
    return [(link.value, link.line, link.kind) for link in css_links(css, first_line)]


def urls(css):
    return [link.value for link in css_links(css)]


def test_every_url_form():
    css = """@import "first.css";
@import url(second.css) screen;
body { background: url(bg.png) }
.a { background-image: url( "double.png" ) }
.b { background-image: url('single.png') }
@font-face { src: url(a.woff2) format("woff2"), url("a.woff") format("woff") }
.c { background: url(one.png), url(two.png) }
.d { background-image: image-set(url(x1.png) 1x, url("x2.png") 2x) }
"""
    assert values(css) == [
        ("first.css", 1, "import"),
        ("second.css", 2, "import"),
        ("bg.png", 3, "url"),
        ("double.png", 4, "url"),
        ("single.png", 5, "url"),
        ("a.woff2", 6, "url"),
        ("a.woff", 6, "url"),
        ("one.png", 7, "url"),
        ("two.png", 7, "url"),
        ("x1.png", 8, "url"),
        ("x2.png", 8, "url"),
    ]


def test_link_is_a_named_tuple():
    assert css_links("a{b:url(x.png)}") == [CssLink(value="x.png", line=1, kind="url")]


def test_no_link_at_all():
    assert css_links("") == []
    assert css_links("body { color: red }\n/* nothing */") == []
    assert css_links("a { b: url (x.png) }") == []  # a space before "(": not url(


def test_lines_count_from_first_line():
    css = "a{}\n\n\nb { background: url(b.png) }\nc{}\n@import 'c.css';"
    assert values(css) == [("b.png", 4, "url"), ("c.css", 6, "import")]
    assert values(css, first_line=10) == [("b.png", 13, "url"), ("c.css", 15, "import")]


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r", "\f"])
def test_each_line_break_counts_once(newline):
    css = newline.join(["a{}", "b{}", "c{background:url(c.png)}", "", "url(e.png)"])
    assert values(css) == [("c.png", 3, "url"), ("e.png", 5, "url")]


def test_mixed_line_breaks():
    assert values("a\r\n\rb\n\f\r\nurl(x)") == [("x", 6, "url")]


def test_line_is_where_the_token_starts():
    css = "a {\n  background: url(\n    'a.png'\n  );\n}\n@import\n  url(b.css);"
    assert values(css) == [("a.png", 2, "url"), ("b.css", 6, "import")]


def test_lines_past_65535():
    css = "a{}\n" * 100_000 + "b{background:url(far.png)}"
    assert values(css) == [("far.png", 100_001, "url")]


def test_url_is_case_insensitive():
    assert urls("a{b:URL(a.png);c:Url(b.png);d:uRl('c.png')}") == ["a.png", "b.png", "c.png"]


def test_whitespace_around_the_url():
    assert urls("a{b:url(  a.png\t\n)}") == ["a.png"]
    assert urls('a{b:url(\n  "b.png"  \n)}') == ["b.png"]


def test_value_is_not_stripped_beyond_css():
    assert urls('a{b:url(" a.png ")}') == [" a.png "]
    assert urls("a{b:url(\x01a.png)}") == []  # a non-printable code point: a bad url


@pytest.mark.parametrize(
    ("css", "value"),
    [
        (r"url(a\)b.png)", "a)b.png"),
        (r"url(a\ b.png)", "a b.png"),
        (r"url(a\(b\'c\"d)", "a(b'c\"d"),
        (r"url(a\26 b)", "a&b"),  # a hex escape eats one whitespace
        (r"url(a\26  )", "a&"),
        (r"url(\41\42)", "AB"),
        (r"url(\0000411)", "A1"),  # six hex digits at most
        (r"url(\0)", "\ufffd"),
        (r"url(\D800)", "\ufffd"),
        (r"url(\110000)", "\ufffd"),
        (r"url(\1F600)", "\U0001f600"),
        (r'url("a\"b")', 'a"b'),
        (r"url('a\'b')", "a'b"),
        (r'url("\26 amp")', "&amp"),
        ('url("a\\\nb")', "ab"),  # a line continuation
        ('url("\\41\nb")', "Ab"),  # the newline ends the hex escape
        (r'url("a\\b")', "a\\b"),
        (r'url("a\qb")', "aqb"),
        ('@import "q\\3F x";', "q?x"),
    ],
)
def test_escapes(css, value):
    assert urls(css) == [value]


def test_escaped_line_continuation_does_not_end_the_string():
    assert values('a{content:"x\\\nurl(no)"}\nb{c:url(yes)}') == [("yes", 3, "url")]


def test_comments_hide_links():
    css = "/* url(a.png) @import 'b.css'; */ a{b:url(c.png)} /* \"*/ d{e:url(d.png)}"
    assert urls(css) == ["c.png", "d.png"]
    assert urls("a{b:url(c.png)} /* url(d.png) never closed") == ["c.png"]
    assert urls("/**/url(a)/***/url(b)/* ** */url(c)") == ["a", "b", "c"]


def test_comments_inside_an_unquoted_url_are_its_text():
    assert urls("a{b:url(/*x*/a.png)}") == ["/*x*/a.png"]
    assert urls('a{b:url(/*x*/"a.png")}') == []  # a quote in it: a bad url


def test_strings_are_not_links():
    assert css_links('a::before{content:"url(x.png)"}') == []
    assert css_links("a{content:'@import \"x.css\"'}") == []
    assert urls('a{content:"/*"} b{c:url(after.png)} /*"*/') == ["after.png"]


def test_bare_strings_are_not_links():
    # image-set("a.png" 1x) names images with strings: not read as links
    assert urls('a{b:image-set("a.png" 1x, url(b.png) 2x)}') == ["b.png"]
    assert urls('a{font-family:"x.woff"}') == []


def test_a_newline_ends_a_string():
    assert css_links('a{b:url("a\nb.png")}') == []
    assert values('a{content:"url(x)\nurl(y)}') == [("y", 2, "url")]
    assert css_links("@import 'a\n.css';") == []


@pytest.mark.parametrize(
    "css",
    [
        "a{b:url(a b.png)}",
        'a{b:url(a"b.png)}',
        "a{b:url(a'b.png)}",
        "a{b:url(a(b.png)}",
        "a{b:url(a\\\nb.png)}",  # "\" + newline is no escape in a url
        "a{b:url(a.png x)}",
        "a{b:url(\x7fa.png)}",
    ],
)
def test_bad_urls(css):
    assert css_links(css) == []


def test_a_bad_url_runs_to_its_closing_parenthesis():
    assert urls("a{b:url(a b url(c.png)) url(d.png)}") == ["d.png"]
    assert urls("a{b:url(a b\\) url(c.png)) url(d.png)}") == ["d.png"]


def test_unterminated_urls_and_strings_are_not_links():
    # a page cut at its maximum size: the URL may be cut too
    assert css_links("a{b:url(a.png") == []
    assert css_links("a{b:url(a.png  ") == []
    assert css_links('a{b:url("a.png') == []
    assert css_links("@import 'a.css") == []
    assert css_links("/* a */ @import url(a.css") == []
    # the string is whole: its ")" only is missing
    assert urls('a{b:url("a.png"') == ["a.png"]


def test_empty_values_are_skipped():
    css = "a{b:url();c:url( );d:url(\"\");e:url('');f:url(\" \")} @import ''; @import url();"
    assert css_links(css) == []


def test_data_urls_are_links():
    css = "a{b:url(data:image/png;base64,iVBORw0KGgo=);c:url('data:image/svg+xml,<svg/>')}"
    assert urls(css) == ["data:image/png;base64,iVBORw0KGgo=", "data:image/svg+xml,<svg/>"]


@pytest.mark.parametrize(
    "prefix", ["my", "a-", "-", "--", "_", "5", "1e", "#", "@", "\u00e9", "\\41 "]
)
def test_url_inside_a_longer_name_is_not_a_url(prefix):
    assert css_links(f"a{{b:{prefix}url(x.png)}}") == []


@pytest.mark.parametrize("prefix", ["+", ".", ">", ",", "(", ":", "%", "5%", "/**/", '"a"', "<!--"])
def test_url_after_other_tokens(prefix):
    assert urls(f"a{{b:{prefix}url(x.png)}}") == ["x.png"]


def test_an_escaped_quote_starts_no_string():
    # \" is a name: "url(x)" is no string and url( no url
    assert css_links('a{b:\\"url(x)" url(y)}') == []
    assert urls('a{b:\\"c url(y)}') == ["y"]


def test_import_forms():
    css = """@import "a.css";
@import 'b.css' screen;
@import url(c.css);
@import url("d.css") print;
@IMPORT URL(e.css);
@Import/* comment */"f.css";
@import
  /* on the next line */
  'g.css';
"""
    assert values(css) == [
        ("a.css", 1, "import"),
        ("b.css", 2, "import"),
        ("c.css", 3, "import"),
        ("d.css", 4, "import"),
        ("e.css", 5, "import"),
        ("f.css", 6, "import"),
        ("g.css", 7, "import"),
    ]


def test_import_needs_a_string_or_url_first():
    assert values('@import layer(x) "a.css";') == []
    assert values("@import foo url(a.css);") == [("a.css", 1, "url")]
    assert values("@importx 'a.css'; @import-x 'b.css'; @\\69mport 'c.css';") == []
    assert values("@import url(a b.css); @import url('c\n.css');") == []


def test_import_in_strings_and_comments_is_no_import():
    css = "a{content:\"@import 'a.css'\"} /* @import 'b.css'; */ \\@import 'c.css';"
    assert css_links(css) == []


def test_import_then_other_urls():
    css = '@import url("a.css") supports(background: url(x.png));\nb{c:url(y.png)}'
    assert values(css) == [("a.css", 1, "import"), ("x.png", 1, "url"), ("y.png", 2, "url")]


def test_u0000_and_surrogates_become_replacement_characters():
    assert urls("a{b:url(a\x00b)}") == ["a\ufffdb"]
    assert urls("a{b:url('a\ud800b')}") == ["a\ufffdb"]
    assert urls("a{b:url(\u00e9t\u00e9.png)}") == ["\u00e9t\u00e9.png"]


def test_style_attribute():
    assert style_attribute_links("background: url(a.png); color: red", 7) == [
        CssLink("a.png", 7, "url")
    ]
    value = "background:\n  url('a.png'),\n  URL(\"b.png\");\n/* url(c.png) */"
    assert [(link.value, link.line) for link in style_attribute_links(value, 3)] == [
        ("a.png", 3),
        ("b.png", 3),
    ]
    assert style_attribute_links("color: red", 1) == []
    assert style_attribute_links('content: "url(a.png)"', 1) == []


def test_style_attribute_has_no_import():
    links = style_attribute_links("@import 'a.css'; @import url(b.css)", 2)
    assert links == [CssLink("b.css", 2, "url")]


CSS_CHARS = st.sampled_from(
    list("url(URL)@import\"'\\/* \t\n\r\f;:{},a0fé\x00\x7f") + ["url(", "@import ", "/*", "*/"]
)
CSS_TEXT = st.one_of(st.text(), st.lists(CSS_CHARS, max_size=60).map("".join))


def line_breaks(text):
    return text.replace("\r\n", "\n").replace("\r", "\n").replace("\f", "\n").count("\n")


@settings(max_examples=500, deadline=None)
@given(CSS_TEXT, st.integers(min_value=-5, max_value=10**6))
def test_any_text_gives_links_within_its_lines(text, first_line):
    links = css_links(text, first_line)
    last = first_line + line_breaks(text)
    for link in links:
        assert first_line <= link.line <= last
        assert link.kind in ("url", "import")
        assert link.value.strip("".join(map(chr, range(0x21))))
    assert [link.line for link in links] == sorted(link.line for link in links)
    assert all(link.line == 9 for link in style_attribute_links(text, 9))


@settings(max_examples=300, deadline=None)
@given(
    st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), min_size=1)
)
def test_escaped_values_decode_to_themselves(value):
    escaped = "".join(f"\\{ord(c):x} " for c in value)
    expected = [value] if value.strip("".join(map(chr, range(0x21)))) else []
    assert urls(f'a{{b:url("{escaped}")}}') == expected
    assert urls(f"a{{b:url({escaped})}}") == expected
    assert urls(f"@import '{escaped}';") == expected
