"""Link extraction: every URL an HTML page points at, read as a browser's HTML
parser reads it, with the line where the linking element's start tag begins.

A single pass of regular expressions over the page, following the HTML
Standard's tokenizer where it decides what is a link and what it says:

- comments (``<!-->`` and ``<!--->`` end at once), bogus comments (``<?...>``,
  ``<![CDATA[...]`` outside SVG and MathML, ``</ x>``), doctypes and end tags
  (quoted attribute values may hold a ``>``) hide nothing they should not;
- the content of ``script`` (with its escaped states), ``style``, ``xmp``,
  ``iframe``, ``noembed``, ``noframes`` (raw text), ``textarea``, ``title``
  (RCDATA) and ``plaintext`` is text, never tags;
- attributes: names lower-cased, the first of duplicates wins, values with
  character references decoded by the attribute rule (``&sect=2`` stays as
  written, ``&sect;`` is ``§``), NUL as U+FFFD, an unterminated quote or tag
  ends the document;
- SVG and MathML (foreign content): ``<a href>`` / ``xlink:href``,
  ``<image>``, ``<use>``, ``<feImage>``, ``<script>``; CDATA sections;
  integration points (``foreignObject``, ``desc``, ``title``, MathML text)
  hold HTML; an HTML element such as ``<p>`` breaks out;
- ``<image src>`` is ``<img>``; the first ``<base>`` with an ``href`` (an empty
  one included, not one inside SVG) is the base;
- ``srcset`` and ``<meta http-equiv=refresh>`` by the Standard's algorithms;
- CR, LF and CRLF each end a line.

lxml is not used: its ``sourceline`` is where a start tag ends, saturates at
65535, and its tree drops the positions.  Text, and every tag that cannot be
a link, is skipped inside one regular expression (C speed); Python only sees
the tags that matter.  ``<noscript>`` is read as markup (a browser without
scripts, or a crawler, follows its links).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from html.entities import html5 as _ENTITIES
from typing import NamedTuple

__all__ = [
    "Extracted",
    "RawLink",
    "decode_attribute",
    "extract_links",
    "parse_meta_refresh",
    "parse_srcset",
    "start_tags",
]


class RawLink(NamedTuple):
    """A link as written in the page: its attribute value, unresolved."""

    value: str
    line: int
    tag: str


class Extracted(NamedTuple):
    """What a page holds: its links, its first ``<base href>`` and how many
    ``<img>`` elements point somewhere (the report's page statistics)."""

    links: list[RawLink]
    base: str | None
    images: int


# Which attributes of which HTML elements are links.
LINK_ATTRIBUTES: dict[str, tuple[str, ...]] = {
    "a": ("href",),
    "area": ("href",),
    "audio": ("src",),
    "embed": ("src",),
    "frame": ("src",),
    "iframe": ("src",),
    "img": ("src", "srcset"),
    "input": ("src",),  # type=image only
    "link": ("href",),
    "object": ("data",),
    "script": ("src",),
    "source": ("src", "srcset"),
    "track": ("src",),
    "video": ("src", "poster"),
}
# SVG elements that point somewhere (SVG 2 href, else xlink:href)
SVG_LINKS = frozenset({"a", "image", "use", "feimage", "script"})
# <link rel=preconnect href=https://cdn/> names an origin, not a resource:
# checking it would report the origin's home page, a false positive.
_LINK_RELS_SKIPPED = frozenset({"preconnect", "dns-prefetch"})
# HTML elements whose content the tokenizer reads as text
_RAWTEXT = frozenset({"style", "xmp", "iframe", "noembed", "noframes"})
_RCDATA = frozenset({"textarea", "title"})
_TEXT_CONTENT = _RAWTEXT | _RCDATA | {"script", "plaintext"}
# An HTML start tag in SVG or MathML content that ends that content
_BREAKOUT = frozenset(
    "b big blockquote body br center code dd div dl dt em embed h1 h2 h3 h4 h5 h6 head hr i "
    "img li listing menu meta nobr ol p pre ruby s small span strong strike sub sup table tt "
    "u ul var".split()
)
_HTML_CONTAINERS = _BREAKOUT | frozenset(
    "html article aside body button details dialog fieldset figure footer form header li "
    "main nav section summary table tbody td tfoot th thead tr".split()
)
_SVG_HTML_POINTS = frozenset({"foreignobject", "desc", "title"})
_MATH_TEXT_POINTS = frozenset({"mi", "mo", "mn", "ms", "mtext"})
# HTML elements that never have content (no end tag to wait for)
_VOID = frozenset(
    "area base br col embed hr img image input keygen link meta param source track wbr".split()
)

_INTERESTING = (
    set(LINK_ATTRIBUTES) | _TEXT_CONTENT | {"base", "meta", "svg", "math", "image", "font"}
)

# -- the tokenizer's pieces ----------------------------------------------------------
_SPACE = "\t\n\f\r "
_NAME = r"[^\t\n\f\r />]*+"
# The attributes of a tag up to its ">": quotes open a value only after "="
_ATTRS_SKIP = r"""(?:[^>=]++|=[\t\n\f\r ]*+(?:"[^"]*+"|'[^']*+'|(?!["'])))*+>"""
_COMMENT = r"<!--(?:>|->|(?s:.*?)--!?>)"
_BOGUS = r"<[!?](?!--)[^>]*+>|</(?:>|[^A-Za-z>][^>]*+>)"
_END_TAG = r"</[A-Za-z]" + _NAME + _ATTRS_SKIP
_LONE_LT = r"<(?![A-Za-z!/?])|</\Z"


def _trie(names: set[str]) -> str:
    """A regular expression for ``names``, case-insensitive, factored by
    first letters (a long alternation is tried name by name)."""
    if "" in names:
        rest = _trie({n for n in names if n})
        return f"(?:{rest})?" if rest else ""
    groups: dict[str, set[str]] = {}
    for name in names:
        groups.setdefault(name[0], set()).add(name[1:])
    parts = [
        (f"[{c}{c.upper()}]" if c.isalpha() else re.escape(c)) + _trie(tails)
        for c, tails in sorted(groups.items())
    ]
    return parts[0] if len(parts) == 1 else "(?:" + "|".join(parts) + ")"


# Text and everything that cannot be a link, in one match (HTML content):
# text runs; after "<", a comment, a bogus comment, an end tag, a start tag
# whose name cannot matter, or a "<" that starts nothing
_BORING = r"(?!" + _trie(_INTERESTING) + r"[\t\n\f\r />])[A-Za-z]" + _NAME + _ATTRS_SKIP
_SKIP = re.compile(
    r"(?:[^<]++|<(?:!--(?:>|->|(?s:.*?)--!?>)|(?!!--)[!?][^>]*+>"
    r"|/(?:[A-Za-z]" + _NAME + _ATTRS_SKIP + r"|>|[^A-Za-z>][^>]*+>|\Z)"
    r"|" + _BORING + r"|(?![A-Za-z!/?])))*+"
    # and the start tag it stopped at, if any: its name and its attributes
    r"(?:<([A-Za-z]" + _NAME + r")(" + _ATTRS_SKIP[:-1] + r")>)?"
)
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


class _EndOfDocument(Exception):
    """An unterminated tag or quoted value: the rest is not content."""


# -- character references in attribute values ----------------------------------------
_CHARREF = re.compile(r"&(?:#([xX][0-9A-Fa-f]*|[0-9]*)(;?)|([A-Za-z][A-Za-z0-9]*;?))")
_LONGEST_NAME = max(map(len, _ENTITIES))
# Numeric references to C1 controls mean windows-1252 (the HTML Standard's table)
_C1 = {
    n: bytes([n]).decode("cp1252")
    for n in range(0x80, 0xA0)
    if n not in (0x81, 0x8D, 0x8F, 0x90, 0x9D)
}


def _charref(m: re.Match[str]) -> str:
    digits, name = m.group(1), m.group(3)
    if digits is not None:
        hex_ = digits[:1] in ("x", "X")
        number = digits[1:] if hex_ else digits
        if not number:  # "&#" or "&#x" with no digits: not a reference
            return m.group(0)
        value = int(number, 16 if hex_ else 10)
        if value == 0 or value > 0x10FFFF or 0xD800 <= value <= 0xDFFF:
            return "\ufffd"
        return _C1.get(value) or chr(value)
    # the longest name in the table; without ";" and followed by "=" or an
    # alphanumeric, an attribute keeps it as written (&sect=2, &copy2)
    for size in range(min(len(name), _LONGEST_NAME), 1, -1):
        candidate = name[:size]
        if candidate in _ENTITIES:
            if candidate[-1] != ";":
                after = name[size : size + 1] or m.string[m.end() : m.end() + 1]
                if after == "=" or after.isascii() and after.isalnum():
                    return m.group(0)
            return _ENTITIES[candidate] + name[size:]
    return m.group(0)


def decode_attribute(value: str) -> str:
    """An attribute value as the tokenizer hands it on."""
    if "&" in value:
        value = _CHARREF.sub(_charref, value)
    if "\0" in value:
        value = value.replace("\0", "\ufffd")
    return value


# -- reading tags -----------------------------------------------------------------------
def _attributes(text: str, pos: int) -> tuple[dict[str, str], int, bool]:
    """The attributes from ``pos`` to the end of the start tag: (attributes,
    position after ``>``, self-closing).  Raises _EndOfDocument at EOF."""
    attrs: dict[str, str] = {}
    match = _ATTR.match
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
    """The attributes of a whole tag's attribute text (quotes closed)."""
    attrs: dict[str, str] = {}
    for name, dq, sq, unquoted in _ATTR_ITEM.findall(body):
        name = name.lower()
        if name not in attrs:
            value = dq or sq or unquoted
            attrs[name] = decode_attribute(value) if "&" in value or "\0" in value else value
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


class Tag(NamedTuple):
    """A start tag, as the tokenizer emits it (``start_tags`` yields plain
    tuples of these fields: the hot loop builds no objects)."""

    name: str
    attrs: dict[str, str]
    line: int
    namespace: str  # "html", "svg" or "math"


def start_tags(
    text: str, *, tree: bool = True, every: bool = False
) -> Iterator[tuple[str, dict[str, str], int, str]]:
    """The start tags of a page that can matter to links, in order.

    ``tree=False`` is the bare tokenizer (no text-content elements, no
    foreign content), for checking it against tokenizer tests; ``every``
    yields every start tag, not only those that may hold a link.
    """
    if "\r" in text:  # the input stream's newline normalisation
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if "\0" in text:  # U+FFFD in names and values (text content is not read)
        text = text.replace("\0", "\ufffd")
    line, line_pos = 1, 0
    pos, n = 0, len(text)
    stack: list[tuple[str, str]] = []  # open elements in and around foreign content
    skip = _SKIP.match
    try:
        while pos < n:
            if stack:
                m = _FOREIGN_TOKEN.match(text, pos)
                if m is None:  # an unterminated comment or tag
                    break
                pos = m.end()
                end_name = m.group(4)
                if end_name is not None:
                    _pop_to(stack, end_name.lower())
                    continue
                if m.group(1) or m.group(2) or m.group(3) or m.group(5):
                    continue
                if pos >= n:
                    break
            elif tree and not every:
                m = skip(text, pos)
                name, body = m.groups()
                if name is None:  # the end, or an unterminated comment or tag
                    break
                start = m.start(1) - 1
                line += text.count("\n", line_pos, start)
                line_pos = start
                pos = m.end()
                name = name.lower()
                if name == "svg" or name == "math":  # self-closing matters
                    attrs, pos, self_closing = _attributes(text, m.end(1))
                else:
                    attrs, self_closing = _parse_attributes(body), False
                namespace = "html"
                if name == "image":
                    name = "img"  # the tree builder's rename
                elif name == "svg" or name == "math":
                    namespace = name  # the element opens its own namespace
                yield (name, attrs, line, namespace)
                if namespace != "html":
                    if not self_closing:
                        stack.append((name, namespace))
                elif name in _TEXT_CONTENT:
                    pos = _text_end(text, pos, name)
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
            namespace = _namespace(stack, name, attrs) if tree else "html"
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
                if stack and name not in _VOID:
                    stack.append((name, "html"))
                if name in _TEXT_CONTENT:
                    pos = _text_end(text, pos, name)
    except _EndOfDocument:
        return


def _namespace(stack: list[tuple[str, str]], name: str, attrs: dict[str, str]) -> str:
    """The namespace a start tag opens an element in (the tree builder's
    rules for foreign content, reduced to what links need)."""
    if not stack:
        return "html"
    top, top_ns = stack[-1]
    if top_ns == "html":
        return "html"
    if top_ns == "svg" and top in _SVG_HTML_POINTS:
        return "html"
    if top_ns == "math":
        if top in _MATH_TEXT_POINTS and name not in ("mglyph", "malignmark"):
            return "html"
        if top == "annotation-xml" and name == "svg":
            return "svg"
    if name in _BREAKOUT or (name == "font" and {"color", "face", "size"} & attrs.keys()):
        # back to the nearest HTML element or integration point
        while stack and stack[-1][1] != "html" and not _is_integration_point(stack[-1]):
            stack.pop()
        return "html"
    return top_ns


def _is_integration_point(element: tuple[str, str]) -> bool:
    name, ns = element
    return (ns == "svg" and name in _SVG_HTML_POINTS) or (
        ns == "math" and name in _MATH_TEXT_POINTS
    )


def _pop_to(stack: list[tuple[str, str]], name: str) -> None:
    """An end tag: close the element it names, and everything opened in it.
    An HTML container's end tag with no match closes the foreign content it
    was opened around (``<div><svg>...</div>``)."""
    for i in range(len(stack) - 1, -1, -1):
        if stack[i][0] == name:
            del stack[i:]
            return
    if name in _HTML_CONTAINERS:
        stack.clear()


# -- which attributes are links ----------------------------------------------------------
_ASCII_SPACE = "\t\n\f\r "
_C0_SPACE = "".join(map(chr, range(0x21)))
_FLOAT = re.compile(r"-?(?:[0-9]+(?:\.[0-9]+)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_INTEGER = re.compile(r"[0-9]+")


def parse_srcset(value: str) -> list[str]:
    """The URLs of a ``srcset`` value: the HTML Standard's "parse a srcset
    attribute", which drops a candidate whose descriptors are invalid."""
    urls: list[str] = []
    pos, n = 0, len(value)
    while True:
        while pos < n and (value[pos] in _ASCII_SPACE or value[pos] == ","):
            pos += 1
        if pos >= n:
            return urls
        start = pos
        while pos < n and value[pos] not in _ASCII_SPACE:
            pos += 1
        url = value[start:pos]
        descriptors: list[str] = []
        if url.endswith(","):
            url = url.rstrip(",")
        else:
            pos = _descriptors(value, pos, descriptors)
        if _valid_descriptors(descriptors):
            urls.append(url)


def _descriptors(value: str, pos: int, out: list[str]) -> int:
    """The descriptor tokenizer: words up to a comma outside parentheses."""
    n = len(value)
    while pos < n and value[pos] in _ASCII_SPACE:
        pos += 1
    current, in_parens = "", False
    while pos < n:
        c = value[pos]
        pos += 1
        if in_parens:
            current += c
            if c == ")":
                in_parens = False
        elif c in _ASCII_SPACE:
            if current:
                out.append(current)
                current = ""
        elif c == ",":
            break
        else:
            current += c
            if c == "(":
                in_parens = True
    if current:
        out.append(current)
    return pos


def _valid_descriptors(descriptors: list[str]) -> bool:
    width = density = height = False
    for d in descriptors:
        kind, number = d[-1:], d[:-1]
        if kind == "w" and not (width or density) and _INTEGER.fullmatch(number):
            width = int(number) > 0
            if not width:
                return False
        elif kind == "x" and not (width or density or height) and _FLOAT.fullmatch(number):
            density = True
            if float(number) < 0:
                return False
        elif kind == "h" and not (height or density) and _INTEGER.fullmatch(number):
            height = int(number) > 0
            if not height:
                return False
        else:
            return False
    return not (height and not width)


def parse_meta_refresh(content: str) -> str:
    """The URL of a ``<meta http-equiv=refresh content=...>`` (the Standard's
    "shared declarative refresh steps"), or ``""`` when browsers ignore the
    value or it refreshes the page itself."""
    pos, n = 0, len(content)

    def skip_space() -> None:
        nonlocal pos
        while pos < n and content[pos] in _ASCII_SPACE:
            pos += 1

    def digits(dots: bool) -> int:
        nonlocal pos
        start = pos
        while pos < n and (content[pos] in "0123456789" or dots and content[pos] == "."):
            pos += 1
        return pos - start

    skip_space()
    if not digits(False) and content[pos : pos + 1] != ".":
        return ""  # no time: not a refresh
    digits(True)
    if pos < n:
        if content[pos] not in ";," + _ASCII_SPACE:
            return ""
        skip_space()
        if content[pos : pos + 1] in (";", ","):
            pos += 1
        skip_space()
    if pos >= n:
        return ""  # a time alone: the page refreshes itself
    url = content[pos:]
    if content[pos] in "Uu":
        pos += 1
        if content[pos : pos + 1] not in ("R", "r"):
            return url
        pos += 1
        if content[pos : pos + 1] not in ("L", "l"):
            return url
        pos += 1
        skip_space()
        if content[pos : pos + 1] != "=":
            return url
        pos += 1
        skip_space()
    quote = content[pos : pos + 1]
    if quote in ("'", '"'):
        return content[pos + 1 :].split(quote, 1)[0]
    return content[pos:]


def _links_in_tag(tag: Tag) -> list[str]:
    name, attrs, namespace = tag.name, tag.attrs, tag.namespace
    if namespace == "svg":
        if name in SVG_LINKS:
            value = attrs.get("href", attrs.get("xlink:href"))
            if value is not None:
                return [value]
        return []
    if namespace == "math":
        return [attrs["href"]] if "href" in attrs else []
    if name == "meta":
        if attrs.get("http-equiv", "").lower() == "refresh":
            return [parse_meta_refresh(attrs.get("content", ""))]
        return []
    if name == "link" and _LINK_RELS_SKIPPED.intersection(attrs.get("rel", "").lower().split()):
        return []
    if name == "input" and attrs.get("type", "").lower() != "image":
        return []
    values = []
    for attr in LINK_ATTRIBUTES.get(name, ()):
        value = attrs.get(attr)
        if value is None:
            continue
        if attr == "srcset":
            values.extend(parse_srcset(value))
        else:
            values.append(value)
    return values


# HTML elements whose one link attribute needs no further rule
_SIMPLE = {
    name: attrs[0]
    for name, attrs in LINK_ATTRIBUTES.items()
    if len(attrs) == 1 and name not in ("link", "input")
}


def extract_links(text: str) -> Extracted:
    """All link values in ``text``, the first ``<base href>`` if any, and
    the number of images.

    Values are as the tokenizer reads them (character references decoded);
    the URL parser strips what it strips.  Values that are empty once
    stripped (a link to the page itself) are skipped.  Lines are 1-based
    and name the line of the start tag's ``<``.
    """
    links: list[RawLink] = []
    base: str | None = None
    images = 0
    append = links.append
    simple_attribute = _SIMPLE.get
    for name, attrs, line, namespace in start_tags(text):
        if namespace == "html":
            simple = simple_attribute(name)
            if simple is not None:  # a href, script src...: the common case
                value = attrs.get(simple)
                if value is not None and value.strip(_C0_SPACE):
                    append(RawLink(value, line, name))
                continue
            if name == "base":
                if base is None and "href" in attrs:
                    base = attrs["href"]
                continue
        found = len(links)
        for value in _links_in_tag(Tag(name, attrs, line, namespace)):
            if value.strip(_C0_SPACE):
                append(RawLink(value, line, name))
        if name == "img" and namespace == "html" and len(links) > found:
            images += 1
    return Extracted(links, base, images)
