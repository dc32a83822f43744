"""An HTML file of a build that is a template nobody rendered, not a page a
visitor gets: a theme's layout copied into the build as it is (MkDocs'
``overrides/main.html`` when the theme's ``custom_dir`` is inside
``docs_dir``, a Jekyll layout or include without front matter, a theme's
``static/`` folder), whose links are template expressions
(``href="{{ page.url_to_pdf }}"``).  Scanned, each would be a broken link
of its own.

The rule is strict, so that a real page that shows template code in its
text (Python's ``string.html``, Jinja's and Flask's docs, Underscore's
``<%= %>`` examples) stays a page: only what the HTML tokenizer reads as
markup counts, never text or code samples.  A file is a template when

- it begins, after blanks, with a template tag (``{% extends "base.html"
  %}``, ``{{ ... }}``, ``<% ... %>``): a page a browser gets begins with
  markup or text, never with a template's statement; or
- it has links, and at least half of them (the values of link
  attributes, as the tokenizer reads them: character references decoded)
  hold a template's delimiter: ``{{``, ``{%`` or ``<%``.

A real page with one mistaken ``{{ config.repo_url }}`` among its links
stays a page, and that link is reported broken.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from linkaudit.rules.html import RawLink

DELIMITERS = ("{{", "{%", "<%")
_MARKED = re.compile("|".join(map(re.escape, DELIMITERS)))
_BEGINS = re.compile(r"[\ufeff \t\r\n]*+(" + _MARKED.pattern + ")")


def marked(value: str) -> bool:
    """A template's delimiter in ``value``."""
    return _MARKED.search(value) is not None


def unrendered_template(text: str, links: Sequence[RawLink]) -> str | None:
    """Why ``text`` (an HTML file, with ``links`` as the tokenizer read
    them) is a template, not a page; None: a page.  What is searched is the
    text's beginning and the links' values, never the whole text (``<`` is
    everywhere in a page: a search for ``<%`` would cost as much as a
    scan)."""
    begins = _BEGINS.match(text)
    if begins is not None:
        return f"a template: it begins with {begins.group(1)!r}, not with markup"
    values = [link.value for link in links]
    joined = "\n".join(values)
    if "{{" not in joined and "{%" not in joined and "<%" not in joined:  # the common case
        return None
    templated = sum(map(bool, map(_MARKED.search, values)))
    if templated and 2 * templated >= len(values):
        return (
            f"a template: {templated} of its {len(values)} links are template expressions "
            f"({', '.join(DELIMITERS)})"
        )
    return None
