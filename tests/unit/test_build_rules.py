"""The pure rules of a build's audit: what is a template, not a page
(``rules/unrendered.py``), where an audit starts (``localbuild/start.py``)
and what ``LINKAUDIT_LOCAL_START`` takes (``config/checks.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from linkaudit.localbuild.start import (
    NO_PAGE,
    ROOT_INDEX,
    SHALLOWEST_INDEX,
    SHALLOWEST_PAGE,
    find_start,
    given_start,
)
from linkaudit.rules.pagelinks import read_page
from linkaudit.rules.unrendered import unrendered_template


def _template(text: str) -> str | None:
    links = read_page(text, False, css=True, anchors=False, limit=1000, templates=False).links
    return unrendered_template(text, links)


@pytest.mark.parametrize(
    "text",
    [
        '{% extends "base.html" %}\n<a href="x.html">x</a>',
        '\ufeff  \n{{ page.content }}<a href="x.html">x</a>',
        "<% layout 'main' %>\n<p>x</p>",
        '<nav><a href="{{ nav.prev }}">p</a> <a href="{{ nav.next }}">n</a></nav>',
        '<a href="{{ a }}">a</a><a href="b.html">b</a>',  # half of its links
        '<a href="&#123;&#123; a }}">a</a>',  # a character reference decoded, as the scan reads it
        '<img src="<%= logo %>"><a href="{%url%}">x</a>',
    ],
)
def test_a_template_is_told_by_its_beginning_or_its_links(text):
    assert _template(text) is not None


@pytest.mark.parametrize(
    "text",
    [
        "<!doctype html>\n<p>Write <code>{{ page.url }}</code> or {% raw %}</p>",
        "<pre>{% extends 'base.html' %}\n{{ x }}</pre>",  # code samples: text, not markup
        '<a href="a.html">a</a> <a href="b.html">b</a> <a href="{{ c }}">c</a>',  # a mistake
        "<script>var t = '{{ x }}';</script><p>x</p>",
        "no links at all",
        "",
    ],
)
def test_a_page_that_shows_template_code_stays_a_page(text):
    assert _template(text) is None


def _tree(root: Path, names: list[str]) -> str:
    for name in names:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x")
    return str(root)


@pytest.mark.parametrize(
    ("names", "start"),
    [
        (["index.html", "en/index.html"], ("", ROOT_INDEX)),
        (
            ["b/index.html", "a/index.htm", "a/index.html", "c/d/index.html"],
            ("a/", SHALLOWEST_INDEX),
        ),
        (["b/index.htm", "c/x/index.html"], ("b/index.htm", SHALLOWEST_INDEX)),
        (["z/index.html", "a/b/index.html", "page.html"], ("z/", SHALLOWEST_INDEX)),
        (["docs/b.html", "docs/a.htm", "x/y/index.html"], ("x/y/", SHALLOWEST_INDEX)),
        (["docs/b.html", "docs/a.htm", "img/logo.png"], ("docs/a.htm", SHALLOWEST_PAGE)),
        ([".git/index.html", ".hidden/x/index.html", "logo.png"], ("", NO_PAGE)),
        ([], ("", NO_PAGE)),
    ],
)
def test_the_start_is_the_shallowest_index_page(tmp_path, names, start):
    assert tuple(find_start(_tree(tmp_path / "b", names))) == start


def test_a_link_to_a_folder_is_not_searched(tmp_path):
    root = _tree(tmp_path / "b", ["real/deep/index.html"])
    (tmp_path / "b" / "loop").symlink_to(tmp_path / "b")
    (tmp_path / "b" / "away").symlink_to(tmp_path / "elsewhere")
    _tree(tmp_path / "elsewhere", ["index.html"])
    assert tuple(find_start(root)) == ("real/deep/", SHALLOWEST_INDEX)


def test_start_takes_a_page_of_the_build_as_typed_or_inside_it(tmp_path, monkeypatch):
    root = _tree(tmp_path / "public", ["en/index.html", "en/a.html", "style.css"])
    monkeypatch.chdir(tmp_path)
    assert given_start("public", "en/a.html") == "en/a.html"
    assert given_start("public", "public/en/a.html") == "en/a.html"
    assert given_start("public", str(tmp_path / "public" / "en" / "a.html")) == "en/a.html"
    assert given_start("public", "en/index.html") == "en/"
    assert given_start("public", "en") == "en/"
    assert given_start(root, "en/") == "en/"
    for typed, words in (
        ("../public/en/a.html", None),  # leaves and comes back: inside
        ("style.css", "is not a page"),
        ("nothere.html", "no such file"),
        ("/etc/hostname", "outside the build"),
        ("public/../x.html", "no such file"),
    ):
        if words is None:
            assert given_start("public", typed) == "en/a.html"
            continue
        with pytest.raises(ValueError, match=words):
            given_start("public", typed)


@pytest.mark.parametrize(
    ("value", "taken"),
    [("en/index.html", "en/index.html"), ("./en//x.html", "en/x.html"), ("en/", "en/"), ("", "")],
)
def test_the_setting_takes_a_path_inside_the_build(value, taken):
    from linkaudit.config.checks import local_start

    assert local_start({"X": value}, "X") == taken


@pytest.mark.parametrize("value", ["/etc/passwd", "../x.html", "en/../../x.html", "a\0b"])
def test_the_setting_refuses_a_path_out_of_the_build(value):
    from linkaudit.config.checks import local_start

    with pytest.raises(ValueError):
        local_start({"X": value}, "X")
