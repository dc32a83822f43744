"""JSON as linkaudit writes it: UTF-8, with what should not be written raw
as \\u escapes (the report, SARIF, the HTML report's table data)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

# Characters written as JSON \\u escapes, though JSON may hold them raw: lone
# surrogates (UTF-8 cannot write them), and what a terminal or an editor
# showing the file would act on or hide: C1 controls (json escapes C0
# itself), bidi controls, invisible format characters, line separators.
_ESCAPED_IN_JSON = re.compile(
    "[\x7f-\x9f\xad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff"
    "\ufff9-\ufffb\ud800-\udfff\U000e0000-\U000e007f]"
)


def json_text(value: Any, **options: Any) -> str:
    """``json.dumps`` as the report writes it (UTF-8, not ASCII), with the
    characters of ``_ESCAPED_IN_JSON`` as their \\u escapes: the file is
    valid UTF-8 whatever a state or a feed held (a lone surrogate), ``cat``
    shows no bidi trick, and ``json.loads`` reads back the same strings.
    Outside strings JSON has no character beyond ASCII, so every match is
    inside a string."""
    text = json.dumps(value, ensure_ascii=False, **options)
    if _ESCAPED_IN_JSON.search(text) is None:  # nearly always: one pass in C
        return text
    return _ESCAPED_IN_JSON.sub(_json_escape, text)


def json_pieces(value: Any, **options: Any) -> Iterator[str]:
    """:func:`json_text`'s text a piece at a time (as ``json`` makes it:
    a string is always one piece whole), to be written as it is made: a
    large value is never one string, nor the list of its pieces
    ``json.dumps`` joins (the report's head, its groups: bench/README.md,
    "A million URLs")."""
    for piece in json.JSONEncoder(ensure_ascii=False, **options).iterencode(value):
        yield escaped_raw(piece)


def escaped_raw(text: str) -> str:
    """JSON text someone else wrote (a report file read back), with the
    characters linkaudit writes as \\u escapes escaped so: a piece of a
    file at a time (each is one character; JSON has them in strings only)."""
    if _ESCAPED_IN_JSON.search(text) is None:
        return text
    return _ESCAPED_IN_JSON.sub(_json_escape, text)


def _json_escape(match: re.Match[str]) -> str:
    return json_escape(match[0])


def json_escape(char: str) -> str:
    """A character as JSON's \\u escape (a pair of them past U+FFFF)."""
    point = ord(char)
    if point < 0x10000:
        return f"\\u{point:04x}"
    point -= 0x10000  # a pair of escapes, as JSON writes past U+FFFF
    return f"\\u{0xD800 + (point >> 10):04x}\\u{0xDC00 + (point & 0x3FF):04x}"
