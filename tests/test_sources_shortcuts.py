"""--sources' shortcuts before a whole file's parse: a Markdown link found
without its parser (literal.py) and the part of a reST file a link needs
(blocks.py).  Each must refuse wherever the parser could read the file
otherwise; the proof that they agree with the whole parse on real projects
is bench/README.md's comparison (every place's source, old against new)."""

from __future__ import annotations

from linkaudit.sources.blocks import rest_part
from linkaudit.sources.literal import find, target_name
from linkaudit.sources.rest import rest_links


def test_literal_finds_the_one_link_in_a_plain_paragraph():
    text = "# T\n\nSome words and [the text](gone-page.md) here,\nwrapped `code`.\n"
    found = find(text, "gone-page")
    assert found is not None
    assert (found.line, found.href, found.text) == (3, "gone-page.md", "the text")
    assert found.block.split() == "Some words and the text here, wrapped code.".split()


def test_literal_refuses_what_the_parser_may_read_otherwise():
    refused = {
        "twice": "[a](gone.md)\n\n[b](gone.md)\n",
        "fenced": "```\n[a](gone.md)\n```\n",
        "long fence": "````\n```\n[a](gone.md)\n````\n",
        "indented code": "para\n\n    [a](gone.md)\n",
        "comment": "<!--\n\n[a](gone.md)\n-->\n",
        "front matter": "---\nx: [a](gone.md)\n---\n",
        "code span": "`[a](gone.md)`\n",
        "table": "| [a](gone.md) | b |\n",
        "escape": "\\[a](gone.md)\n",
        "image": "![a](gone.md)\n",
        "fence in a list": "- ```\n  [a](gone.md)\n  ```\n",
        "html block": "<div>\n[a](gone.md)\n</div>\n",
        "wrapped target": "[a](gone\n.md)\n",
    }
    for why, text in refused.items():
        assert find(text, "gone") is None, why


def test_literal_fragment_refused_where_a_role_may_make_the_id():
    assert find("[a](#my-part)\n", "#my-part".lstrip("#"), "my-part") is not None
    assert find("[a](#my-part)\n\n{ref}`My Part`\n", "my-part", "my-part") is None
    reST = "[a](#my-part)\n\n```{eval-rst}\nMy Part\n=======\n```\n"
    assert find(reST, "my-part", "my-part") is None


def test_target_name():
    assert target_name("http://build.invalid/a/gone/") == ("gone", None)
    assert target_name("http://build.invalid/a/Gone.html") == ("gone", None)
    assert target_name("http://build.invalid/a/b.html#Part.x") == ("part.x", "x")
    assert target_name("http://build.invalid/") is None


def _rest_file(extra: str = "") -> str:
    filler = "\n\n".join(
        f"Paragraph {n} with `a link <https://x.example/{n}>`_." for n in range(40)
    )
    return (
        "Title\n=====\n\n"
        + filler
        + "\n\nSee `the gone page`_ and\n`the gone page`_ again.\n\n"
        + "- item with `inline <gone-inline.html>`_\n  continued\n\n"
        + ".. _the gone page: gone-named.html\n"
        + extra
    )


def test_rest_part_keeps_the_blocks_of_the_word_and_its_names():
    text = _rest_file()
    part = rest_part(text, "gone")
    assert part is not None and len(part.split("\n")) == len(text.split("\n"))
    assert "Paragraph 3 " not in part
    whole = [(s.line, s.target, s.defined) for s in rest_links("f.rst", text) if "gone" in s.target]
    cut = [
        (s.line, s.target, s.defined)
        for s in rest_links("f.rst", text, part=part)
        if "gone" in s.target
    ]
    assert cut == whole and len(whole) == 3


def test_rest_part_refuses_what_pairs_across_blocks():
    assert rest_part(_rest_file("\n__ https://anonymous.example/\n"), "gone") is None
    assert rest_part(_rest_file("\n.. default-role:: code\n"), "gone") is None
    table = "\n=====  =====\na      b\n=====  =====\n"
    assert rest_part(_rest_file(table), "gone") is None
    assert rest_part("short `x <gone.html>`_\n", "gone") is None  # a short file: whole
