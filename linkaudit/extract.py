"""Link extraction: every URL an HTML page points at, with the line where the
linking element's start tag begins.

This is a small tokenizer built on :mod:`re` rather than an lxml tree: lxml's
``sourceline`` is the line where a start tag *ends* and saturates at 65535,
and the report promises the line where it begins, on pages of any length.
A tokenizer also never fails on malformed HTML: what is not a start tag we
care about is skipped at C speed, and a body that is not HTML yields nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from html import unescape
from typing import NamedTuple

__all__ = ["Extracted", "RawLink", "extract_links", "parse_srcset", "parse_meta_refresh"]


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


# Which attributes of which elements are links.
LINK_ATTRIBUTES: dict[str, tuple[str, ...]] = {
    "a": ("href",),
    "area": ("href",),
    "audio": ("src",),
    "embed": ("src",),
    "frame": ("src",),
    "iframe": ("src",),
    "img": ("src", "srcset"),
    "link": ("href",),
    "object": ("data",),
    "script": ("src",),
    "source": ("src", "srcset"),
    "track": ("src",),
    "video": ("src", "poster"),
}
# <link rel=preconnect href=https://cdn/> names an origin, not a resource:
# checking it would report the origin's home page, a false positive.
_LINK_RELS_SKIPPED = frozenset({"preconnect", "dns-prefetch"})
# Elements whose content is raw text: a "<a" inside them is not a tag.
_RAW_TEXT = frozenset({"script", "style", "textarea", "title", "xmp"})

_TAGS = sorted(set(LINK_ATTRIBUTES) | _RAW_TEXT | {"base", "meta"}, key=len, reverse=True)
_TOKEN = re.compile(r"<(?:(!--)|(" + "|".join(_TAGS) + r")(?=[\s/>]))", re.IGNORECASE)
_COMMENT_END = re.compile(r"--!?>")
# One attribute (name, optional value) or the end of the start tag.
_ATTR = re.compile(
    r"""([^\s/>"'=][^\s/>"'=]*)(?:\s*=\s*(?:"([^"]*)"?|'([^']*)'?|([^\s>]*)))?|(>)"""
)
_RAW_END: dict[str, re.Pattern[str]] = {
    tag: re.compile(r"</" + tag + r"[\s/>]", re.IGNORECASE) for tag in _RAW_TEXT
}
_REFRESH = re.compile(
    r"""^\s*[0-9.]*\s*[;,]?\s*(?:url\s*=\s*)?(["']?)(.*?)\1\s*$""",
    re.IGNORECASE | re.DOTALL,
)


def _attributes(text: str, pos: int) -> tuple[dict[str, str], int]:
    """Parse attributes from ``pos`` to the end of the start tag.

    Returns the attributes (first occurrence wins, names lower-cased, values
    with character references decoded) and the position after the tag.
    """
    attrs: dict[str, str] = {}
    while True:
        m = _ATTR.search(text, pos)
        if m is None:
            return attrs, len(text)
        pos = m.end()
        if m.group(5):
            return attrs, pos
        name = m.group(1).lower()
        if name not in attrs:
            value = m.group(2)
            if value is None:
                value = m.group(3)
                if value is None:
                    value = m.group(4) or ""
            attrs[name] = unescape(value) if "&" in value else value


def parse_srcset(value: str) -> list[str]:
    """The URLs of a ``srcset`` value (HTML's candidate-list algorithm)."""
    urls = []
    pos, n = 0, len(value)
    while pos < n:
        while pos < n and (value[pos].isspace() or value[pos] == ","):
            pos += 1
        start = pos
        while pos < n and not value[pos].isspace():
            pos += 1
        url = value[start:pos]
        if url.endswith(","):
            url = url.rstrip(",")
        else:  # skip the descriptors, up to a comma outside parentheses
            depth = 0
            while pos < n and (value[pos] != "," or depth):
                depth += {"(": 1, ")": -1}.get(value[pos], 0)
                pos += 1
        if url:
            urls.append(url)
    return urls


def parse_meta_refresh(content: str) -> str:
    """The URL of a ``<meta http-equiv=refresh content=...>``, or ``""``."""
    m = _REFRESH.match(content)
    if not m:
        return ""
    url = m.group(2).strip()
    # "5" alone refreshes the page itself: no link.
    return "" if re.fullmatch(r"[0-9.]*", url) else url


def _links_in_tag(tag: str, attrs: dict[str, str]) -> Iterator[str]:
    if tag == "meta":
        if attrs.get("http-equiv", "").strip().lower() == "refresh":
            yield parse_meta_refresh(attrs.get("content", ""))
        return
    if tag == "link" and _LINK_RELS_SKIPPED.intersection(attrs.get("rel", "").lower().split()):
        return
    for attr in LINK_ATTRIBUTES.get(tag, ()):
        value = attrs.get(attr)
        if value is None:
            continue
        if attr == "srcset":
            yield from parse_srcset(value)
        else:
            yield value


def extract_links(text: str) -> Extracted:
    """All link values in ``text``, the first ``<base href>`` if any, and
    the number of images.

    Values are stripped of surrounding whitespace; empty ones are skipped.
    Lines are 1-based and name the line of the start tag's ``<``.
    """
    links: list[RawLink] = []
    base: str | None = None
    images = 0
    pos = 0
    line, line_pos = 1, 0  # line number of offset line_pos, counted lazily
    while True:
        m = _TOKEN.search(text, pos)
        if m is None:
            break
        if m.group(1):  # comment
            end = _COMMENT_END.search(text, m.end())
            pos = end.end() if end else len(text)
            continue
        tag = m.group(2).lower()
        attrs, pos = _attributes(text, m.end())
        line += text.count("\n", line_pos, m.start())
        line_pos = m.start()
        if tag == "base":
            if base is None and attrs.get("href", "").strip():
                base = attrs["href"].strip()
        else:
            found = len(links)
            for value in _links_in_tag(tag, attrs):
                value = value.strip()
                if value:
                    links.append(RawLink(value, line, tag))
            if tag == "img" and len(links) > found:
                images += 1
        if tag in _RAW_TEXT:
            end = _RAW_END[tag].search(text, pos)
            pos = end.end() if end else len(text)
    return Extracted(links, base, images)
