"""--sources' shortcuts before a whole file's parse: a Markdown link found
without its parser (literal.py) and the part of a reST file a link needs
(blocks.py).  Each must refuse wherever the parser could read the file
otherwise; the proof that they agree with the whole parse on real projects
is bench/README.md's comparison (every place's source, old against new)."""

from __future__ import annotations

from linkaudit.sources.blocks import rest_part
from linkaudit.sources.links import WILD, words_agree
from linkaudit.sources.literal import find, target_name
from linkaudit.sources.rest import rest_links
from linkaudit.sources.restliteral import find_rest, find_role


def test_literal_finds_the_one_link_in_a_plain_paragraph():
    text = "# T\n\nSome words and [the text](gone-page.md) here,\nwrapped `code`.\n"
    found = find(text, "gone-page")
    assert found is not None
    assert (found.line, found.href, found.text) == (3, "gone-page.md", "the text")
    assert found.block.split() == "Some words and the text here, wrapped code.".split()


def test_literal_reads_code_spans_in_the_link_text_as_the_parser_does():
    """Jekyll's docs write ``[`jekyll-import` docs site](x.html)``: the
    text the page shows is the code's, as markdown-it reads it."""
    from linkaudit.sources.markdown import markdown_links

    text = "# T\n\nTo learn more,\nvisit our [`jekyll-import` docs site](gone.html) and `code`.\n"
    found = find(text, "gone")
    assert found is not None
    (link,) = [x for x in markdown_links("a.md", text, "gfm") if x.target == "gone.html"]
    assert (found.line, found.href, found.text) == (link.line, link.target, link.text)
    assert found.text == "jekyll-import docs site"
    assert found.block.split() == link.block.split()
    text = "A [run of `x` and ``y``](gone.md).\n"
    found = find(text, "gone")
    assert found is not None and found.text == "run of x and y"
    assert find("A `[b](gone.md)` c\n", "gone") is None  # the link in a code span: none


def test_literal_finds_the_href_as_written_where_the_name_is_common():
    """Jekyll's plugins page: ``[Commands](#Commands)`` in a file that says
    "commands" again and again is the one link written ``](#Commands)``."""
    from linkaudit.sources.markdown import markdown_links

    text = "# Commands\n\n1. [Commands](#Commands)\n2. [Tags](#Tags)\n\nCommands run.\n"
    assert find(text, "commands", "Commands") is None  # the name: four times
    found = find(text, "commands", "Commands", href="#Commands")
    assert found is not None
    (link,) = [x for x in markdown_links("a.md", text, "gfm") if x.target == "#Commands"]
    assert (found.line, found.href, found.text) == (link.line, link.target, link.text)
    assert found.block == "Commands"
    refused = {
        "twice": "[a](#Commands) and [b](#Commands)\n",
        "also a definition": "[a](#Commands)\n\n[b]: #Commands\n",
        "also elsewhere": "[a](#Commands)\n\nThe id #Commands.\n",
        "fenced": "```\n[a](#Commands)\n```\n",
        "code span": "`[a](#Commands)`\n",
        "html": "[a](#Commands)\n\n<!-- x -->\n",
    }
    for why, text in refused.items():
        assert find(text, "commands", "Commands", href="#Commands") is None, why


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
        "image in a link": "[![a](gone.md)](x.md)\n",
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


def test_literal_in_a_jekyll_file_refuses_liquid_around_the_link():
    plain = "{% include note.html %}\n\nSome words and [the text](gone-page.md) here.\n"
    assert find(plain, "gone-page", liquid=True) is not None
    refused = {
        "highlight": "{% highlight md %}\n\n[a](gone.md)\n\n{% endhighlight %}\n",
        "raw": "{% raw %}\n[a](gone.md)\n{% endraw %}\n",
        "comment": "{%- comment -%}\n\n[a](gone.md)\n\n{% endcomment %}\n",
        "not closed": "{% capture x %}\n\n[a](gone.md)\n",
        "in the block": "Version {{ site.version }}:\n[a](gone.md)\n",
        "a tag in the block": "[a](gone.md) {% if x %}b{% endif %}\n",
    }
    for why, text in refused.items():
        assert find(text, "gone", liquid=True) is None, why
    assert find(refused["highlight"], "gone") is not None  # (not Jekyll: no Liquid)


def test_literal_in_a_jekyll_file_reads_a_raw_block_as_text():
    """Jekyll's history: ``{% raw %}`{% highlight %}`{% endraw %}`` names
    a tag, opens no block; the link on a later line is found."""
    text = (
        "- Strip the {% raw %}`{% highlight %}`{% endraw %} block ([#1](x.html))\n"
        "- Fix it ([@someone](gone.html))\n"
    )
    found = find(text, "gone", liquid=True)
    assert found is not None and (found.line, found.text) == (2, "@someone")
    assert find(text.replace("{% endraw %}", ""), "gone", liquid=True) is None  # not closed


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


def test_rest_literal_finds_what_docutils_finds():
    """An inline reference and a named one (``Name`_`` and ``word_``): the
    line, target and definition line docutils' parse gives, no docutils."""
    text = (
        "Title\n=====\n\nSome words and `the text <gone-page.html>`_ here,\n"
        "wrapped ``code``.\n\nIt runs with `Nginx uWSGI`_ and *fast*\nservers.\n\n"
        "See gunicorn_ too.\n\n.. _Nginx uWSGI: missing-s11.html\n"
        ".. _gunicorn: https://x.example/gunicorn-page\n"
    )
    parsed = {link.target: link for link in rest_links("a.rst", text)}
    cases = {
        "gone-page": ("the text", "Some words and the text here, wrapped code."),
        "missing-s11": ("Nginx uWSGI", "It runs with Nginx uWSGI and fast servers."),
        "gunicorn-page": ("gunicorn", "See gunicorn too."),
    }
    for name, (words, block) in cases.items():
        found = find_rest(text, name)
        assert found is not None, name
        literal, defined = found
        link = parsed[literal.href]
        assert (literal.line, defined) == (link.line, link.defined), name
        assert (literal.text, literal.block) == (words, block), name
        assert literal.block == link.block


def test_rest_literal_refuses_what_docutils_may_read_otherwise():
    named = ".. _Lost: gone.html\n"
    refused = {
        "twice": "`a <gone.html>`_\n\n`b <gone.html>`_\n",
        "referenced twice": "`Lost`_ and\n\nLost_ again.\n\n" + named,
        "across lines": "the `Lost\nPage`_ link.\n\n.. _Lost Page: gone.html\n",
        "defined twice": "`Lost`_.\n\n" + named + ".. _lost: other.html\n",
        "an alias": "`x <Lost_>`_ and `Lost`_.\n\n" + named,
        "a substitution": "|Lost|_ and `Lost`_.\n\n" + named,
        "indented": "para\n\n    `a <gone.html>`_\n",
        "section title": "`a <gone.html>`_\n================\n",
        "escape": "\\* `a <gone.html>`_\n",
        "table": "| `a <gone.html>`_ |\n",
        "inline literal": "``Lost_`` only.\n\n" + named,
        "footnote": "`a <gone.html>`_ [1]_\n",
        "anonymous": "`a <gone.html>`_\n\n`b`__\n\n__ x.html\n",
        "include": "`a <gone.html>`_\n\n.. include:: x.rst\n",
        "quoted literal": "Code::\n\n`a <gone.html>`_\n",
        "wrapped URL": "`Lost`_.\n\n.. _Lost:\n   gone.html\n",
    }
    for why, text in refused.items():
        assert find_rest(text, "gone") is None, why
    for text in ("`Lost`_.\n\n" + named, "para\n\n`a <gone.html>`_\n"):  # without them
        assert find_rest(text, "gone") is not None


def test_rest_role_finds_what_docutils_finds():
    """A ``:ref:`` and a ``:doc:`` with a title (Python's ``whatsnew``
    files link their changelog so): the line, target, title and block
    docutils' parse gives, without docutils; the title may hold the name."""
    text = (
        "Title\n=====\n\nThis article explains it.\n"
        "For full details, see the :ref:`changelog <changelog>`.\n\n"
        "Read :doc:`the tutorial <../tutorial/index-page>` first, ``x`` and `y <z.html>`_.\n"
    )
    parsed = {link.target: link for link in rest_links("a.rst", text)}
    for name, role, target in (
        ("changelog", "ref", "changelog"),
        ("index-page", "doc", "../tutorial/index-page"),
    ):
        found = find_role(text, name, role)
        assert found is not None, name
        link = parsed[target]
        assert (found.line, found.href, found.text) == (link.line, link.target, link.text)
        assert found.block == link.block.replace("``", "")
    assert find_role(text, "changelog", "doc") is None  # a :ref: is no :doc:


def test_rest_role_refuses_what_docutils_may_read_otherwise():
    refused = {
        "no title": "see :ref:`gone`.\n",
        "short form": "see :ref:`x <~gone>`.\n",
        "twice": "see :ref:`a <gone>`.\n\nand :ref:`b <gone>`.\n",
        "the name elsewhere": "see :ref:`a <gone>`.\n\n.. _gone:\n",
        "markup in the title": "see :ref:`*a* <gone>`.\n",
        "indented": "para\n\n    see :ref:`a <gone>`.\n",
        "nested list item": "- x\n\n  - see :ref:`a <gone>`.\n",
        "in a word": "see x:ref:`a <gone>`.\n",
        "include": "see :ref:`a <gone>`.\n\n.. include:: x.rst\n",
        "a role defined": ".. role:: ref\n\nsee :ref:`a <gone>`.\n",
        "quoted literal": "Code::\n\nsee :ref:`a <gone>`.\n",
    }
    for why, text in refused.items():
        assert find_role(text, "gone", "ref") is None, why
    assert find_role("see :ref:`a <gone>`.\n", "gone", "ref") is not None


def test_rest_literal_finds_list_items_roles_and_wrapped_references():
    """Flask's proof build: a bullet list item (its continuation indented
    under its text), a role in the paragraph (the page shows what Sphinx
    makes of it: a wildcard in the block's words), a reference wrapped
    over lines, a name beside an inline literal, an anonymous reference
    with its URL: the line, target and definition line docutils' parse
    gives, no docutils."""
    text = (
        "Title\n=====\n\n"
        "* `Werkzeug`_ implements WSGI.\n* `Jinja`_ is a template language that\n"
        "  renders the pages.\n\n"
        "-   Use a tool like `fabric`_ to push code\n    to the server(s).\n\n"
        "- `Google App Engine <missing-s9.html>`_\n\n"
        "`Apache httpd`_ is a server. With one of the servers listed in\n"
        ":doc:`index`, it is often good.\n\n"
        "Use a question mark, see `SQL Injections\n<missing-s29.html>`_.\n\n"
        "using `gevent`_. This is not ``async/await``. See :doc:`/gevent` for\nmore.\n\n"
        "-   `Flask-specific documentation <missing-s15.html>`__\n\n"
        ".. _Werkzeug: https://x.example/werkzeug\n.. _Jinja: missing-s19.html\n"
        ".. _fabric: fabric-page.html\n.. _Apache httpd: missing-s3.html\n"
        ".. _gevent: missing-s13.html\n"
    )
    parsed = {link.target: link for link in rest_links("a.rst", text)}
    cases = {
        "missing-s19": ("Jinja", "Jinja is a template language that renders the pages."),
        "fabric-page": ("fabric", "Use a tool like fabric to push code to the server(s)."),
        "missing-s9": ("Google App Engine", "Google App Engine"),
        "missing-s3": ("Apache httpd", f"Apache httpd is a server. With one of the servers listed in {WILD}, it is often good."),
        "missing-s29": ("SQL Injections", "Use a question mark, see SQL Injections."),
        "missing-s13": ("gevent", f"using gevent. This is not async/await. See {WILD} for more."),
        "missing-s15": ("Flask-specific documentation", "Flask-specific documentation"),
    }  # fmt: skip
    for name, (words, block) in cases.items():
        found = find_rest(text, name)
        assert found is not None, name
        literal, defined = found
        link = parsed[literal.href]
        assert (literal.line, defined) == (link.line, link.defined), name
        assert (literal.text, literal.block) == (words, block), name
        assert words_agree(literal.block, link.block.replace("index", "Deploying")), name


def test_rest_literal_refuses_lists_and_roles_docutils_may_read_otherwise():
    named = ".. _Lost: gone.html\n"
    refused = {
        "continuation unindented": "- `Lost`_ and\nmore.\n\n" + named,
        "continuations unlike": "- `Lost`_ and\n  more\n    again.\n\n" + named,
        "nested list": "- a\n\n  - `Lost`_ and\n\n" + named,
        "list in the item": "- `Lost`_ and\n  - b\n\n" + named,
        "another marker": "- a\n* `Lost`_\n\n" + named,
        "a directive in the item": "- `Lost`_\n  .. note:: x\n\n" + named,
        "enumerated": "1. `Lost`_\n\n" + named,
        "item of a quoted literal": "Code::\n\n- `Lost`_\n\n" + named,
        "in an inline literal": "``Lost_`` and `x`.\n\n" + named,
        "a literal wrapped": "``a\nLost_`` b.\n\n" + named,
        "anonymous without URL": "`a <gone.html>`_ and `b`__\n",
        "a role's suffix form": "`a <gone.html>`_ and `x`:doc:\n",
        "wrapped, twice": "`a\n<gone.html>`_ `b <gone.html>`_\n",
    }
    for why, text in refused.items():
        assert find_rest(text, "gone") is None, why
    item = "- `Lost`_ and\n  more.\n\n" + named
    assert find_rest(item, "gone") is not None


def test_words_agree_wildcards_only_what_a_role_shows():
    block = f"servers listed in {WILD}, it is good."
    assert words_agree(block, "servers listed in Deploying to Production, it is good.")
    assert words_agree(block, "servers listed in x, it is good")
    assert not words_agree(block, "servers listed, it is good.")  # a fixed word missing
    assert not words_agree(block, "servers listed in x, it is good. More")
    assert not words_agree(block, "Some servers listed in x, it is good.")
    assert not words_agree("a b", "a c") and words_agree("A, b!", "a b")


def test_rest_literal_maps_a_name_referenced_twice_in_turn():
    """Flask's deploying/gevent.rst references `gevent`_ twice: the built
    page's two links to it, in order, are the file's two references, as
    docutils makes them; refused where one is in no paragraph read or
    the counts differ."""
    text = (
        "Title\n=====\n\nPrefer :doc:`x` rather than using `gevent`_ directly.\n\n"
        "`gevent`_ allows writing asynchronous code.\n\n.. _gevent: missing-s5.html\n"
    )
    parsed = [link for link in rest_links("a.rst", text) if "missing-s5" in link.target]
    found = [find_rest(text, "missing-s5", nth, 2) for nth in (0, 1)]
    assert [(f[0].line, f[1], f[0].text) for f in found if f] == [
        (link.line, link.defined, link.text) for link in parsed
    ]
    assert [f[0].line for f in found if f] == [4, 6]
    assert find_rest(text, "missing-s5") is None  # one built link: the counts differ
    assert find_rest(text, "missing-s5", 0, 3) is None
    in_code = text.replace("\n\n`gevent`_ allows", "::\n\n    `gevent`_ allows")
    assert find_rest(in_code, "missing-s5", 0, 2) is None  # one in a literal block
    aliased = text + "\n`x <gevent_>`_\n"
    assert find_rest(aliased, "missing-s5", 0, 2) is None


def test_literal_finds_table_cells_images_wrapped_texts_and_roles():
    """click's MyST proof build: a link and an image in a table's cells
    (the block is the cell, as the page's ``<td>``; an image's alt is its
    text and no text of the block), link text wrapped over lines holding
    a code span, a list item holding a role (the page shows the section's
    title: a wildcard): the line, target and text markdown-it gives."""
    from linkaudit.sources.markdown import markdown_links

    text = (
        "# T\n\nSome are listed below:\n\n"
        "| Project | Description | Activity |\n|---|:---:|---|\n"
        "| [Typer](https://x.example/typer) | Type hints. | ![Last commit](gone-s1.md) |\n"
        "| [rich-click](gone-rich.md) | Format `help` output. | ![Last commit](x.svg) |\n\n"
        "Redirects it via {func}`os.dup2`, inspired by [Pytest's\n`capfd`](gone-s37.md).\n"
        "This catches output.\n\n"
        "- [aliases](gone-s29.md) : An advanced example that implements\n  {ref}`aliases`.\n"
        "- [b](x.md) : other.\n\n"
        "A badge ![PyPI - Version](gone-s23.svg) here.\n"
    )
    parsed = {link.target: link for link in markdown_links("a.md", text, "myst")}
    cases = {
        "gone-s1": ("Last commit", "", True),
        "gone-rich": ("rich-click", "rich-click", False),
        "gone-s37": ("Pytest's capfd", f"Redirects it via {WILD}, inspired by Pytest's capfd. "
                     "This catches output.", False),
        "gone-s29": ("aliases", f"aliases : An advanced example that implements {WILD}.", False),
        "gone-s23": ("PyPI - Version", "A badge  here.", True),
    }  # fmt: skip
    for name, (words, block, image) in cases.items():
        found = find(text, name)
        assert found is not None, name
        link = parsed[found.href]
        assert (found.line, found.text) == (link.line, link.text), name
        assert (found.text, found.block, found.image) == (words, block, image), name
        assert image == (link.kind == "image"), name
    assert words_agree(
        find(text, "gone-s37").block, parsed["gone-s37.md"].block.replace("os.dup2", "os.dup2()")
    )


def test_literal_refuses_tables_the_parser_may_read_otherwise():
    head = "| a | b |\n|---|---|\n"
    refused = {
        "no delimiter row": "| [a](gone.md) | b |\n| c | d |\n",
        "the header row": "| [a](gone.md) | b |\n|---|---|\n| c | d |\n",
        "an escaped pipe": head + "| [a](gone.md) | b \\| c |\n",
        "a pipe in a code span": head + "| [a](gone.md) | `b|c` |\n",
        "a row of more cells": head + "| [a](gone.md) | b | c |\n",
        "a row not begun with a pipe": head + "[a](gone.md) | b\n",
        "in a list": "- | a | b |\n  |---|---|\n  | [a](gone.md) | b |\n",
        "a tab": head + "| [a](gone.md) |\tb |\n",
    }
    for why, text in refused.items():
        assert find(text, "gone") is None, why
    assert find(head + "| [a](gone.md) | b |\n", "gone") is not None


def test_literal_a_fence_after_a_quote_is_at_the_margin():
    """click's faqs.md: a fenced block whose last line is ">" then the
    closing fence at the margin; the link below is found, as markdown-it
    finds it, and a fence on a quote's or an item's line still refuses."""
    from linkaudit.sources.markdown import markdown_links

    text = "```{code-block} text\n> a\n>\n```\nWords (see [PEP 686](gone-s19.md)).\n"
    found = find(text, "gone-s19")
    (link,) = [x for x in markdown_links("a.md", text, "myst") if "gone" in x.target]
    assert found is not None and (found.line, found.text) == (link.line, link.text) == (
        5,
        "PEP 686",
    )
    assert find("> ```\n> x\n\n[a](gone.md)\n", "gone") is None
    assert find("- ```\n  x\n\n[a](gone.md)\n", "gone") is None


def test_rest_literal_aliases_substitutions_and_simple_tables():
    """Flask's mongoengine.rst (`Name`_ and an alias `text <Name_>`_ to the
    same target), gevent.rst (|gevent.spawn|_, its text a replace::
    substitution's), quickstart.rst (a simple table elsewhere in the file):
    the lines, texts and blocks docutils' parse gives, no docutils."""
    table = "=====  =====\nA      B\n\nC      D\n=====  =====\n\n"
    text = (
        "Title\n=====\n\nA server and `Flask-MongoEngine`_ are required. ::\n\n    pip x\n\n"
        + table
        + "Check out their `documentation <Flask-MongoEngine_>`_ as well.\n\n"
        "To run tasks, use\n|gevent.spawn|_:\n\n"
        ".. |gevent.spawn| replace:: ``gevent.spawn()``\n"
        ".. _gevent.spawn: gone-spawn.html\n.. _Flask-MongoEngine: gone-mongo.html\n\n"
        "Configures the `Jinja\n<gone-jinja.html>`_ engine.\n"
    )
    parsed: dict[str, list] = {}
    for link in rest_links("a.rst", text):
        parsed.setdefault(link.target, []).append(link)
    for name, count in (("gone-mongo", 2), ("gone-spawn", 1), ("gone-jinja", 1)):
        links = parsed[name + ".html"]
        assert len(links) == count
        for nth, link in enumerate(links):
            found = find_rest(text, name, nth, count)
            assert found is not None, (name, nth)
            assert (found[0].line, found[1], found[0].text) == (link.line, link.defined, link.text)
            assert words_agree(found[0].block, link.block), (name, nth)
    assert find_rest(text, "gone-spawn")[0].text == "gevent.spawn()"  # type: ignore[index]
    refused = {
        "in the table": "=====  =====\n`a <gone.html>`_  B\n=====  =====\n",
        "after a blank line in the table": "=====  =====\nA      B\n\n`a <gone.html>`_  x\n"
        "=====  =====\n",
        "a table not closed": "=====  =====\nA      B\n\n`a <gone.html>`_ x\n",
        "a substitution of markup": "|Lost|_ x\n\n.. |Lost| replace:: *a*\n.. _Lost: gone.html\n",
        "a substitution undefined": "|Lost|_ x\n\n.. _Lost: gone.html\n",
        "a substitution anonymous": "|Lost|__ x\n\n.. |Lost| replace:: a\n.. _Lost: gone.html\n",
        "an image substitution": "|Lost|_ x\n\n.. |Lost| image:: a.png\n.. _Lost: gone.html\n",
    }  # fmt: skip
    for why, text in refused.items():
        assert find_rest(text, "gone") is None, why
