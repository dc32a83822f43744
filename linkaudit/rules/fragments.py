"""Fragments (``page.html#install``): which part of a link names one, and
whether a page has what it names, as a browser looks for it (the HTML
Standard, "the indicated part of the document")."""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import unquote

from linkaudit.rules.urls import clean

TEXT_DIRECTIVE = ":~:"  # #:~:text=... highlights text: not an anchor, not checked


def fragment_of(value: str) -> str | None:
    """The fragment of a link as written (``a.html#x`` -> ``x``), without a
    fragment directive; None when there is none to check (no ``#``, an
    empty one, or only a text directive)."""
    _, sep, fragment = clean(value).partition("#")
    if not sep:
        return None
    fragment = fragment.split(TEXT_DIRECTIVE, 1)[0]
    return fragment or None


def has_anchor(anchors: Iterable[str] | set[str], fragment: str) -> bool:
    """The page has an element the fragment indicates: an ``id`` or ``<a
    name>`` equal to it, as written or percent-decoded (UTF-8), or it is
    ``top`` (a browser scrolls to the top of any page)."""
    names = anchors if isinstance(anchors, set) else set(anchors)
    if fragment in names:
        return True
    decoded = unquote(fragment, errors="replace")
    return decoded in names or decoded.lower() == "top"
