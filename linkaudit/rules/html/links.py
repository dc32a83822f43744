"""Which start tags hold links, and the links of a page (``extract_links``)."""

from __future__ import annotations

from typing import NamedTuple

from linkaudit.rules.html.elements import LINK_ATTRIBUTES, LINK_RELS_SKIPPED, SVG_LINKS
from linkaudit.rules.html.microsyntax import parse_meta_refresh, parse_srcset
from linkaudit.rules.html.tokenizer import Tag, start_tags
from linkaudit.rules.urls import C0_SPACE


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


def links_in_tag(tag: Tag) -> list[str]:
    """The link values a start tag holds, by the element tables."""
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
    if name == "link" and LINK_RELS_SKIPPED.intersection(attrs.get("rel", "").lower().split()):
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
                if value is not None and value.strip(C0_SPACE):
                    append(RawLink(value, line, name))
                continue
            if name == "base":
                if base is None and "href" in attrs:
                    base = attrs["href"]
                continue
        found = len(links)
        for value in links_in_tag(Tag(name, attrs, line, namespace)):
            if value.strip(C0_SPACE):
                append(RawLink(value, line, name))
        if name == "img" and namespace == "html" and len(links) > found:
            images += 1
    return Extracted(links, base, images)
