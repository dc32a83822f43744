"""Which start tags hold links, and the links of a page (``extract_links``)."""

from __future__ import annotations

import re
import sys
from typing import NamedTuple

from linkaudit.rules.css import capped_css_links, style_attribute_links
from linkaudit.rules.html.elements import LINK_ATTRIBUTES, LINK_RELS_SKIPPED, RULED, SVG_LINKS
from linkaudit.rules.html.lowered import lowered as lower
from linkaudit.rules.html.microsyntax import parse_meta_refresh, parse_srcset
from linkaudit.rules.html.tokenizer import STYLE_TEXT, Tag, start_tags
from linkaudit.rules.urls import C0_SPACE


class RawLink(NamedTuple):
    """A link as written in the page: its attribute value, unresolved."""

    value: str
    line: int
    tag: str


class Extracted(NamedTuple):
    """What a page holds: its links, its first ``<base href>``, how many
    ``<img>`` elements point somewhere (the report's page statistics) and,
    when asked for, the names a fragment can point at."""

    links: list[RawLink]
    base: str | None
    images: int
    anchors: set[str] | None = None


class CappedExtracted(NamedTuple):
    """What a page holds, its links cut at a limit, and how many more it has."""

    extracted: Extracted
    dropped: int


def links_in_tag(tag: Tag, form_method: str = "get") -> list[str]:
    """The link values a start tag holds, by the element tables.

    ``form_method``: the method of the form a submit button sits in (of
    the last ``<form>`` start tag before it, :func:`form_method`): its
    ``formaction`` is navigated to only by a form sent with GET."""
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
    if name in RULED:
        return _ruled_links(name, attrs, form_method)
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


def form_method(value: str | None, default: str = "get") -> str:
    """A form's ``method`` (or a button's ``formmethod``): ``get``, ``post``
    or ``dialog`` (ASCII case-insensitive; another value is GET); absent,
    ``default``."""
    if value is None:
        return default
    value = value.lower()
    return value if value in ("post", "dialog") else "get"


def _ruled_links(name: str, attrs: dict[str, str], method: str) -> list[str]:
    """The links of ``<link>`` (``href`` unless it names an origin;
    ``imagesrcset`` when ``rel=preload as=image``: the candidate a browser
    preloads), ``<form action>`` (sent with GET) and a submit button's
    ``formaction`` (its form sent with GET), ``<input type=image src>``."""
    if name == "link":
        rels = attrs.get("rel", "").lower().split()
        if LINK_RELS_SKIPPED.intersection(rels):
            return []
        values = [attrs["href"]] if "href" in attrs else []
        if "imagesrcset" in attrs and "preload" in rels and attrs.get("as", "").lower() == "image":
            values.extend(parse_srcset(attrs["imagesrcset"]))
        return values
    if name == "form":
        action = attrs.get("action")
        return [action] if action is not None and form_method(attrs.get("method")) == "get" else []
    kind = attrs.get("type", "").lower()
    values = []
    if name == "input":
        if kind == "image" and "src" in attrs:
            values.append(attrs["src"])
        submits = kind in ("submit", "image")
    else:  # <button>: submit unless it says reset or button
        submits = kind not in ("reset", "button")
    if submits and "formaction" in attrs and form_method(attrs.get("formmethod"), method) == "get":
        values.append(attrs["formaction"])
    return values


# HTML elements whose one link attribute needs no further rule
_SIMPLE = {
    name: attrs[0]
    for name, attrs in LINK_ATTRIBUTES.items()
    if len(attrs) == 1 and name not in RULED
}


_STYLE_ATTRIBUTE = re.compile(r"""[\t\n\f\r /"']style[\t\n\f\r ]*=""", re.IGNORECASE)


def _style_attribute_url(text: str) -> bool:
    """Some ``url(`` may sit in a style attribute (a ``style=`` between it
    and the ``<`` before it): only then is every tag read.

    One pass: each ``style=`` is followed by a ``url(`` before the next
    ``<``, or not; the next ``url(`` and the next ``<`` are found again only
    once passed (looking back from each ``url(`` to its ``<`` scanned a
    stylesheet of many ``url(`` once per ``url(``)."""
    lowered = lower(text)  # then a plain search (a case-blind regex is 10x slower)
    url = lowered.find("url(")
    if url < 0:  # the common case: no url( at all, no style= looked for
        return False
    lt = -1
    for m in _STYLE_ATTRIBUTE.finditer(text, lowered.rfind("<", 0, url) + 1):
        at = m.end()
        if url < at:
            url = lowered.find("url(", at)
            if url < 0:
                return False
        if lt < at:
            lt = text.find("<", at)
            if lt < 0:
                lt = len(text)
        if url < lt:
            return True
    return False


def extract_links(text: str, *, css: bool = False, anchors: bool = False) -> Extracted:
    """Every link of ``text``: :func:`capped_links` without a limit."""
    return capped_links(text, css=css, anchors=anchors).extracted


def capped_links(
    text: str, *, css: bool = False, anchors: bool = False, limit: int = sys.maxsize
) -> CappedExtracted:
    """All link values in ``text``, the first ``<base href>`` if any, and
    the number of images; with ``css``, the URLs of ``<style>`` elements and
    ``style`` attributes too (tag ``style``, at their lines); with
    ``anchors``, every ``id`` and every ``<a name>`` (what the HTML
    Standard's "indicated part of the document" looks for).

    Values are as the tokenizer reads them (character references decoded);
    the URL parser strips what it strips.  Values that are empty once
    stripped (a link to the page itself) are skipped.  Lines are 1-based
    and name the line of the start tag's ``<``.

    ``limit``: at most that many links are kept; the rest of the page is
    still read (its images, anchors and base) and its further links only
    counted (``dropped``), so a page of 300,000 links costs no more memory
    than one of ``limit`` (LINKAUDIT_PAGE_MAXLINKS) would.
    """
    # with no url( in a style attribute (one str.find in most pages), the
    # only CSS to read is that of <style> elements: the tokenizer hands
    # their text on in the common pass
    styles = css and _style_attribute_url(text)
    if styles or anchors:
        return _extract_more(text, css, styles, anchors, limit)
    # the common case: only link attributes and <style> elements to read
    links: list[RawLink] = []
    base: str | None = None
    images = dropped = 0
    method = "get"  # of the last <form>
    append = links.append
    simple_attribute = _SIMPLE.get
    new = tuple.__new__  # RawLink(...) runs a Python-level __new__: twice the cost per link
    for name, attrs, line, namespace in start_tags(text, style_text=css):
        if namespace == "html":
            simple = simple_attribute(name)
            if simple is not None:  # a href, script src...: the common case
                value = attrs.get(simple)
                if value is not None and value.strip(C0_SPACE):
                    if len(links) < limit:
                        append(new(RawLink, (value, line, name)))
                    else:
                        dropped += 1
                continue
            if name == "base":
                if base is None and "href" in attrs:
                    base = attrs["href"]
                continue
            if name == STYLE_TEXT:
                dropped += _style_links(links, attrs["text"], line, limit)
                continue
        if name == "form" and namespace == "html":  # its buttons' method
            method = form_method(attrs.get("method"))
        images += _tag_links(links, name, attrs, line, namespace, method)
        if len(links) > limit:
            dropped += _cut(links, limit)
    return CappedExtracted(Extracted(links, base, images), dropped)


def _cut(links: list[RawLink], limit: int) -> int:
    """Links past ``limit`` (one tag's srcset or style may hold many): the
    list is cut back, and how many went is returned."""
    over = len(links) - limit
    del links[limit:]
    return over


def _tag_links(
    links: list[RawLink], name: str, attrs: dict[str, str], line: int, namespace: str, method: str
) -> int:
    """Add the links of a tag the element tables decide on; 1 when it is an
    ``<img>`` that points somewhere (the page statistics' images)."""
    found = len(links)
    for value in links_in_tag(Tag(name, attrs, line, namespace), method):
        if value.strip(C0_SPACE):
            links.append(RawLink(value, line, name))
    return int(name == "img" and namespace == "html" and len(links) > found)


def _style_links(links: list[RawLink], sheet: str, line: int, cap: int) -> int:
    """Add the links of a ``<style>`` element's text, up to ``cap`` links in
    all; how many more it has."""
    found = capped_css_links(sheet, line, max(cap - len(links), 0))
    links.extend(RawLink(v, n, "style") for v, n, _ in found.links)
    return found.dropped


def _extract_more(text: str, css: bool, styles: bool, anchors: bool, cap: int) -> CappedExtracted:
    """``extract_links`` with anchors, or with some ``url(`` in a style
    attribute (``styles``): every tag with a ``style`` or ``id`` attribute
    is read too (a slower pass).  Past ``cap``, a tag's links are added,
    then cut back and counted: never more than one tag's links over it."""
    links: list[RawLink] = []
    dropped = 0
    names: set[str] | None = set() if anchors else None
    base: str | None = None
    images = 0
    method = "get"  # of the last <form>
    wanted = (("style",) if styles else ()) + (("id",) if anchors else ())
    simple_attribute = _SIMPLE.get
    for name, attrs, line, namespace in start_tags(text, attributes=wanted, style_text=css):
        simple = simple_attribute(name) if namespace == "html" else None
        if (
            simple is not None  # a href, script src...: the common case
            and not (styles and "style" in attrs)
            and not (names is not None and ("id" in attrs or "name" in attrs))
        ):
            value = attrs.get(simple)
            if value is not None and value.strip(C0_SPACE):
                if len(links) < cap:
                    links.append(RawLink(value, line, name))
                else:
                    dropped += 1
            continue
        if name == STYLE_TEXT:
            dropped += _style_links(links, attrs["text"], line, cap)
            continue
        if names is not None:
            if "id" in attrs:
                names.add(attrs["id"])
            if name == "a" and "name" in attrs and namespace == "html":
                names.add(attrs["name"])
        if name == "base" and namespace == "html":
            if base is None and "href" in attrs:
                base = attrs["href"]
            continue
        if name == "form" and namespace == "html":  # its buttons' method
            method = form_method(attrs.get("method"))
        images += _tag_links(links, name, attrs, line, namespace, method)
        if styles and "style" in attrs:
            links.extend(
                RawLink(v, n, "style") for v, n, _ in style_attribute_links(attrs["style"], line)
            )
        if len(links) > cap:
            dropped += _cut(links, cap)
    return CappedExtracted(Extracted(links, base, images, names), dropped)
