"""The HTML Standard's tokenizer, as far as links need it: start tags with
their attributes and the line each begins on, in one pass of regular
expressions (see ``linkaudit/rules/html/__init__.py`` for what it reads and
why).  Text, and every tag that cannot matter, is skipped inside one regular
expression (C speed); Python only sees the tags that matter."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import NamedTuple, cast

from linkaudit.rules.html.charrefs import decode_attribute
from linkaudit.rules.html.elements import TEXT_CONTENT, VOID
from linkaudit.rules.html.foreign import Stack, namespace_of, pop_to
from linkaudit.rules.html.skipping import ATTRS_RUNS
from linkaudit.rules.html.skipping import NAME as _NAME
from linkaudit.rules.html.skipping import skip_pattern as _skip_pattern

# -- the tokenizer's pieces ----------------------------------------------------------
_SPACE = "\t\n\f\r "
# The attributes of a tag up to its ">" (an end tag's too)
_ATTRS_SKIP = ATTRS_RUNS
_COMMENT = r"<!--(?:>|->|(?s:.*?)--!?>)"
_BOGUS = r"<[!?](?!--)[^>]*+>|</(?:>|[^A-Za-z>][^>]*+>)"
_END_TAG = r"</[A-Za-z]" + _NAME + _ATTRS_SKIP
_LONE_LT = r"<(?![A-Za-z!/?])|</\Z"


_SKIP = _skip_pattern()
_SKIPS: dict[tuple[str, ...], re.Pattern[str]] = {(): _SKIP}
# One attribute of a tag's attribute text: name, then a double-quoted,
# single-quoted or unquoted value (all empty: no value)
_ATTR_ITEM = re.compile(
    r"([^\t\n\f\r />][^\t\n\f\r /=>]*+)(?:[\t\n\f\r ]*+=[\t\n\f\r ]*+"
    r"""(?:"([^"]*+)"|'([^']*+)'|([^\t\n\f\r >]*+)))?"""
)
_START = re.compile(r"<([A-Za-z]" + _NAME + r")")
# One attribute, or the end of the tag: (separator, ">", name, "=", value
# double-quoted + its closing quote, single-quoted + quote, unquoted)
_ATTR = re.compile(
    r"([\t\n\f\r /]*+)(?:(>)|([^\t\n\f\r />][^\t\n\f\r /=>]*+)"
    r"(?:[\t\n\f\r ]*+(=)[\t\n\f\r ]*+"
    r"""(?:"([^"]*+)("?)|'([^']*+)('?)|([^\t\n\f\r >]*+)))?|\Z)"""
)
# Text, then what starts with "<", in foreign content (every tag matters
# there): comment, CDATA section, bogus comment, end tag (its name), lone
# "<"; or a start tag ahead, or the end of the text
_FOREIGN_TOKEN = re.compile(
    r"[^<]*+(?:(" + _COMMENT + r")|(<!\[CDATA\[(?s:.*?)(?:\]\]>|\Z))|(" + _BOGUS + r")"
    r"|</([A-Za-z]" + _NAME + r")" + _ATTRS_SKIP + r"|(" + _LONE_LT + r")|(?=<[A-Za-z])|\Z)"
)
_BARE_TOKEN = re.compile(r"[^<]++|" + "|".join((_COMMENT, _BOGUS, _END_TAG, _LONE_LT)))
_SCRIPT_TOKEN = re.compile(r"<!--|-->|<(/?)script(?=[\t\n\f\r />])", re.IGNORECASE)
_END_CACHE: dict[str, re.Pattern[str]] = {}


STYLE_TEXT = "#style"  # the pseudo-tag that carries a <style> element's text
# Start tags after which the tokenizer reads on differently (text content,
# foreign content) or that the tree builder renames
_OPENING = TEXT_CONTENT | {"svg", "math", "image"}


class _EndOfDocument(Exception):
    """An unterminated tag or quoted value: the rest is not content."""


# -- reading tags -----------------------------------------------------------------------
# the match of a pattern that matches anywhere (at the end of the text, or at
# an unterminated tag, a match with nothing in its groups): never None
_Matches = Callable[[str, int], "re.Match[str]"]


def _attributes(text: str, pos: int) -> tuple[dict[str, str], int, bool]:
    """The attributes from ``pos`` to the end of the start tag: (attributes,
    position after ``>``, self-closing).  Raises _EndOfDocument at EOF."""
    attrs: dict[str, str] = {}
    match = cast(_Matches, _ATTR.match)
    while True:
        m = match(text, pos)
        pos = m.end()
        sep, end, name, eq, dq, dq_end, sq, sq_end, unquoted = m.groups()
        if end:
            return attrs, pos, sep.endswith("/")
        if name is None:  # EOF inside the tag
            raise _EndOfDocument
        if eq is None:
            value = ""
        elif dq is not None:
            if not dq_end:
                raise _EndOfDocument
            value = dq
        elif sq is not None:
            if not sq_end:
                raise _EndOfDocument
            value = sq
        else:
            value = unquoted
        name = name.lower()
        if name not in attrs:
            attrs[name] = decode_attribute(value) if "&" in value or "\0" in value else value


def _parse_attributes(body: str) -> dict[str, str]:
    """The attributes of a whole tag's attribute text, its ">" included
    (quotes closed, NUL already U+FFFD)."""
    attrs: dict[str, str] = {}
    for name, dq, sq, unquoted in _ATTR_ITEM.findall(body):
        name = name.lower()
        if name not in attrs:
            value = dq or sq or unquoted
            attrs[name] = decode_attribute(value) if "&" in value else value
    return attrs


def _text_end(text: str, pos: int, tag: str) -> int:
    """Where the text content of ``tag`` ends (the start of its end tag)."""
    if tag == "plaintext":
        return len(text)
    if tag == "script":
        return _script_end(text, pos)
    pattern = _END_CACHE.get(tag)
    if pattern is None:
        pattern = _END_CACHE[tag] = re.compile(r"</" + tag + r"(?=[\t\n\f\r />])", re.I)
    m = pattern.search(text, pos)
    return m.start() if m else len(text)


def _script_end(text: str, pos: int) -> int:
    """Script data with its escaped and double-escaped states: inside
    ``<!-- <script> ... -->`` a ``</script>`` does not end the script."""
    escaped = double = False
    for m in _SCRIPT_TOKEN.finditer(text, pos):
        token = m.group(0)
        if token == "<!--":
            if not escaped:
                escaped = True
        elif token == "-->":
            escaped = double = False
        elif m.group(1):  # </script
            if double:
                double = False
            else:
                return m.start()
        elif escaped:  # <script inside an escaped section
            double = True
    return len(text)


def _text_content(
    text: str, pos: int, tag: str, line: int, line_pos: int, style_text: bool
) -> tuple[int, int, int, tuple[str, dict[str, str], int, str] | None]:
    """Past the text content of ``tag``, which starts at ``pos``: (where it
    ends, the line count and its position, the ``STYLE_TEXT`` pseudo-tag of
    an HTML ``<style>`` when ``style_text`` asks for it, else None).  One
    place for both of ``start_tags``' loops."""
    end = _text_end(text, pos, tag)
    if not (style_text and tag == "style"):
        return end, line, line_pos, None
    line += text.count("\n", line_pos, pos)
    return end, line, pos, (STYLE_TEXT, {"text": text[pos:end]}, line, "html")


class Tag(NamedTuple):
    """A start tag, as the tokenizer emits it (``start_tags`` yields plain
    tuples of these fields: the hot loop builds no objects)."""

    name: str
    attrs: dict[str, str]
    line: int
    namespace: str  # "html", "svg" or "math"


def start_tags(
    text: str,
    *,
    tree: bool = True,
    every: bool = False,
    attributes: tuple[str, ...] = (),
    style_text: bool = False,
) -> Iterator[tuple[str, dict[str, str], int, str]]:
    """The start tags of a page that can matter to links, in order.

    ``tree=False`` is the bare tokenizer (no text-content elements, no
    foreign content), for checking it against tokenizer tests; ``every``
    yields every start tag, not only those that may hold a link (an HTML
    ``<a>`` with no ``href`` is not one: half the tags of a Doxygen page);
    ``attributes``: also every tag with one of these attributes (``id``,
    ``style``); ``style_text``: after an HTML ``<style>``, its text as a
    ``STYLE_TEXT`` pseudo-tag (attribute ``text``, the line it starts on).
    """
    if "\r" in text:  # the input stream's newline normalisation
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if "\0" in text:  # U+FFFD in names and values (text content is not read)
        text = text.replace("\0", "\ufffd")
    line, line_pos = 1, 0
    pos, n = 0, len(text)
    stack = Stack()  # open elements in and around foreign content
    pattern = _SKIPS.get(attributes)
    if pattern is None:
        pattern = _SKIPS[attributes] = _skip_pattern(attributes)
    skip, count, parse = cast(_Matches, pattern.match), text.count, _parse_attributes
    try:
        while pos < n:
            if stack:
                m = _FOREIGN_TOKEN.match(text, pos)
                if m is None:  # an unterminated comment or tag
                    break
                pos = m.end()
                end_name = m.group(4)
                if end_name is not None:
                    pop_to(stack, end_name.lower())
                    continue
                if m.group(1) or m.group(2) or m.group(3) or m.group(5):
                    continue
                if pos >= n:
                    break
            elif tree and not every:
                while True:  # the common case, in a loop of its own: tags that open nothing
                    m = skip(text, pos)
                    name, body = m.groups()
                    if name is None:  # the end, or an unterminated comment or tag
                        return
                    start = m.start(1) - 1
                    line += count("\n", line_pos, start)
                    line_pos = start
                    pos = m.end()
                    name = name.lower()
                    if name in _OPENING:
                        break
                    yield (name, parse(body), line, "html")
                if name == "svg" or name == "math":  # self-closing matters
                    attrs, pos, self_closing = _attributes(text, m.end(1))
                else:
                    attrs, self_closing = parse(body), False
                namespace = "html"
                if name == "image":
                    name = "img"  # the tree builder's rename
                elif name == "svg" or name == "math":
                    namespace = name  # the element opens its own namespace
                yield (name, attrs, line, namespace)
                if namespace != "html":
                    if not self_closing:
                        stack.append((name, namespace))
                elif name in TEXT_CONTENT:
                    pos, line, line_pos, style = _text_content(
                        text, pos, name, line, line_pos, style_text
                    )
                    if style is not None:
                        yield style
                continue
            else:  # every construct, one at a time
                while (m := _BARE_TOKEN.match(text, pos)) is not None:
                    pos = m.end()
                if pos >= n:
                    break
            m = _START.match(text, pos)
            if m is None:  # an unterminated comment or tag ran to the end
                break
            line += text.count("\n", line_pos, pos)
            line_pos = pos
            name = m.group(1).lower()
            attrs, pos, self_closing = _attributes(text, m.end())
            namespace = namespace_of(stack, name, attrs) if tree else "html"
            if namespace == "html" and tree:
                if name == "image":
                    name = "img"  # the tree builder's rename
                elif name in ("svg", "math"):
                    namespace = name  # the element opens its own namespace
            yield (name, attrs, line, namespace)
            if not tree:
                continue
            if namespace != "html":
                if not self_closing:
                    stack.append((name, namespace))
            else:
                if stack and name not in VOID:
                    stack.append((name, "html"))
                if name in TEXT_CONTENT:
                    pos, line, line_pos, style = _text_content(
                        text, pos, name, line, line_pos, style_text
                    )
                    if style is not None:
                        yield style
    except _EndOfDocument:
        return
