"""The URLs of a stylesheet (``css_links``) and of a ``style`` attribute
(``style_attribute_links``), by the CSS Syntax Module Level 3 tokenizer
(https://www.w3.org/TR/css-syntax-3/) as far as URLs need it.

One regex reads the tokens that matter whole (comments, strings, names an
escape starts, ``url(...)``, ``@import``) and jumps over the rest in C; the
Python loop only sees them (a 1 MB stylesheet with 11,000 links: about 30 ms).
Decisions where the tokenizer leaves a choice:

- Fast path: a text without ``url(`` and ``@import`` (ASCII case-insensitive)
  has no link.  So names written with escapes (``u\\72l(``, ``@\\69mport``),
  valid CSS that no real stylesheet uses, are not recognised.
- ``url(`` counts only as a whole name: not after a name code point, ``#``
  or ``@`` (``myurl(``, ``5url(``, ``#url(``; ``<!--url(`` is one), nor
  inside a name an escape started (``\\41 url(``).
- A URL must be complete: a string or an unquoted ``url(`` that reaches the
  end of the text is dropped, although the tokenizer accepts it there (a page
  cut at LINKAUDIT_PAGE_MAXSIZE would give a truncated URL).  A quoted URL
  whose ``)`` is missing keeps its complete string.
- ``url("a.png" ...)``: the string is the link whatever follows it.
- Bare strings are not links, even in ``image-set("a.png" 1x)`` (only its
  ``url()`` are): a string is a link only as the argument of ``url(`` or
  ``@import``.
- ``@import`` is recognised anywhere outside strings and comments (its place
  before other rules is not checked); its link has the ``@import``'s line.
- Values are decoded but not stripped; values empty once the URL parser's
  stripping is done (C0 controls and space: a link to the stylesheet itself)
  are skipped, like ``extract_links`` does.  U+0000 and surrogates become
  U+FFFD (the tokenizer's preprocessing).
- A ``style`` attribute is a declaration list: only ``url()`` tokens there.
"""

from __future__ import annotations

import re
import sys
from typing import NamedTuple

from linkaudit.rules.repeats import possessive


class CssLink(NamedTuple):
    """A URL of a stylesheet as written: escapes decoded, not resolved."""

    value: str
    line: int  # the line of the url( or @import token
    kind: str  # "import" for @import, "url" for url(...)


_C0_SPACE = "".join(map(chr, range(0x21)))
_NAME = "a-zA-Z0-9_\\-\x00\x80-\U0010ffff"  # name code points (U+0000 is U+FFFD)
_HEX = r"[0-9a-fA-F]{1,6}[ \t\n]?"  # a hex escape after its "\"
_ESC = rf"\\(?>{_HEX}|[^\n])"  # a valid escape outside strings
# in a string "\" + newline is a line continuation, "\" at the end does nothing
_STRING_ESC = rf"\\(?>{_HEX}|[\s\S]?)"


def _string_body(quote: str) -> str:
    """The characters and escapes of a string token, up to its ``quote``."""
    return possessive(rf"(?>[^{quote}\\\n]+|{_STRING_ESC})")


def _strings(group: str) -> str:
    """Both string tokens: ``group`` is ``"("`` for the body and the closing
    quote of each as groups (no quote: a bad or unterminated string), or
    ``"(?:"`` to skip them."""
    return "|".join(f"{q}{group}{_string_body(q)}){group}{q}?)" for q in "\"'")


# after "url": the url(...) tokens, 5 groups: the body and closing quote of a
# "string" argument (a function token), of a 'string', or an unquoted url
# token; a bad url (to its ")") has no group
_URL = (
    r"[rR][lL]\([ \t\n]*+(?:"
    + _strings("(")
    + "|("
    + possessive(rf"(?>[^\"'()\\\x01-\x08\x0b\x0e-\x1f\x7f \t\n]+|{_ESC})")
    + r")[ \t\n]*+\)"
    + "|"
    + possessive(r"(?>[^)\\]+|\\[\s\S]?)")
    + r"\)?)"
)
# A scanner matches a character that may start a token that matters, then the
# token whole.  The character class first lets the regex engine jump from one
# such character to the next; matches without a group (comments, strings, the
# name an escape starts) are skipped.  "url(" after a name code point, "#" or
# "@" is part of a longer name ("myurl(", "5url(", "#url("), but not after
# the "<!--" token.
_SKIPPED = (
    r"(?<=/)\*"
    + possessive(r"(?>[^*]+|\*+(?!/))")
    + r"(?:\*/)?"
    + rf"|(?<=\\)(?>{_HEX}|[^\n])"
    + possessive(rf"(?>[{_NAME}]+|{_ESC})")
    + "".join(f"|(?<={q}){_string_body(q)}{q}?" for q in "\"'")
    + rf"|(?<=[uU])(?:(?<=<!--[uU])|(?<![{_NAME}#@][uU])){_URL}"
)
_SCAN_DECLARATIONS = re.compile(rf"""[/"'\\uU](?:{_SKIPPED})""")
# @import, whitespace and comments, then a string (groups 6 to 9) or url(
_SCAN_SHEET = re.compile(
    rf"""[/"'\\uU@](?:{_SKIPPED}"""
    + rf"|(?<=@)[iI][mM][pP][oO][rR][tT](?![{_NAME}]|\\[^\n])"
    + possessive(r"(?>[ \t\n]+|/\*[\s\S]*?(?:\*/|\Z))")
    + "(?:"
    + _strings("(")
    + rf"|[uU]{_URL}))"
)
# the group that closes last in a link's match -> the group of its value
_VALUE_GROUP = {2: 1, 4: 3, 5: 5, 7: 6, 9: 8, 11: 10, 13: 12, 14: 14}
_ESCAPE = re.compile(r"\\(?:([0-9a-fA-F]{1,6})[ \t\n]?|\n|(.))")
_REPLACED = re.compile("[\x00\ud800-\udfff]")


def _unescape(m: re.Match[str]) -> str:
    digits = m.group(1)
    if digits is None:
        return m.group(2) or ""  # "\" + newline in a string: a line continuation
    cp = int(digits, 16)
    return "\ufffd" if cp == 0 or 0xD800 <= cp <= 0xDFFF or cp > 0x10FFFF else chr(cp)


class CappedLinks(NamedTuple):
    """A stylesheet's first links, and how many more it holds."""

    links: list[CssLink]
    dropped: int


def _scan(
    text: str, first_line: int, scanner: re.Pattern[str], limit: int = sys.maxsize
) -> CappedLinks:
    """The links of ``text``: the first ``limit`` kept, the rest counted."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if "\f" in text:
        text = text.replace("\f", "\n")
    clean = text.isascii() and "\x00" not in text  # no U+0000, no surrogate
    links: list[CssLink] = []
    count = text.count
    counted = 0
    line = first_line
    dropped = 0
    for m in scanner.finditer(text):
        last = m.lastindex
        if last is None:  # a comment, a string, a name, a bad url
            continue
        value = m.group(_VALUE_GROUP[last])
        if last != 5 and last != 14 and not m.group(last):
            continue  # a bad string (a newline in it) or the end of the text in it
        if "\\" in value:
            value = _ESCAPE.sub(_unescape, value)
        if not clean:
            value = _REPLACED.sub("\ufffd", value)
        if value.strip(_C0_SPACE):
            if len(links) >= limit:
                dropped += 1
                continue
            start = m.start()
            line += count("\n", counted, start)
            counted = start
            links.append(CssLink(value, line, "url" if last < 6 else "import"))
    return CappedLinks(links, dropped)


def css_links(text: str, first_line: int = 1) -> list[CssLink]:
    """Every URL a stylesheet points at: url(...) tokens (unquoted, "double"
    or 'single' quoted, including url("...") which CSS Syntax tokenizes as a
    function) and @import "string" / @import url(...)."""
    return capped_css_links(text, first_line).links


def capped_css_links(text: str, first_line: int = 1, limit: int = sys.maxsize) -> CappedLinks:
    """``css_links``, keeping the first ``limit`` (LINKAUDIT_PAGE_MAXLINKS):
    the others are counted, never held (a stylesheet of 300,000 ``url()``)."""
    lowered = text.lower()
    if "url(" not in lowered and "@import" not in lowered:
        return CappedLinks([], 0)
    return _scan(text, first_line, _SCAN_SHEET, limit)


def style_attribute_links(value: str, line: int) -> list[CssLink]:
    """The URLs of a style="..." attribute value (a declaration list); every
    link gets the given line (the line of the element's start tag)."""
    if "url(" not in value.lower():
        return []
    return [link._replace(line=line) for link in _scan(value, line, _SCAN_DECLARATIONS).links]
