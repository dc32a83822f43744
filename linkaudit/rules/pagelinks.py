"""What a page's text says, read without the audit's state (so a walk can
read pages in other processes): :func:`read_page`, and the links a page
keeps once the state has refused some (:func:`unrecorded_out`)."""

from __future__ import annotations

from typing import Any, NamedTuple

from linkaudit.rules.css import capped_css_links
from linkaudit.rules.html import RawLink, capped_links
from linkaudit.rules.html.landmarks import landmarks

Links = list[tuple[str, int | None]]


class PageLinks(NamedTuple):
    """What a page's text says, read without the audit's state (so a walk
    can read pages in other processes): its links as written, its base,
    images and anchors, how many links past the cap were counted and not
    kept, and its landmarks (with template detection, for an HTML page)."""

    links: list[RawLink]
    base: str | None
    images: int
    anchors: set[str] | None
    dropped: int
    marks: list[Any] | None


def read_page(
    text: str, stylesheet: bool, *, css: bool, anchors: bool, limit: int, templates: bool
) -> PageLinks:
    """A page's (or a stylesheet's) :class:`PageLinks`: the reader never
    holds more than ``limit`` links (LINKAUDIT_PAGE_MAXLINKS)."""
    if stylesheet:
        sheet = capped_css_links(text, limit=limit)
        return PageLinks([RawLink(*c) for c in sheet.links], None, 0, None, sheet.dropped, None)
    page, dropped = capped_links(text, css=css, anchors=anchors, limit=limit)
    raw_links, base, images, found_anchors = page
    marks = landmarks(text) if templates else None
    return PageLinks(raw_links, base, images, found_anchors, dropped, marks)


def unrecorded_out(
    links: Links, fragments: list[list[Any]] | None, unrecorded: set[str]
) -> tuple[Links, list[list[Any]] | None]:
    """A page's links without those to URLs the audit did not record
    (LINKAUDIT_MAX_URLS): no referrer is kept for a URL it does not know."""
    links = [link for link in links if link[0] not in unrecorded]
    if fragments:
        fragments = [f for f in fragments if f[0] not in unrecorded]
    return links, fragments
