"""SVG and MathML content (the tree builder's "foreign content"), reduced
to what links need: which namespace a start tag opens an element in, and
what an end tag closes.  The stack holds (name, namespace) of the elements
open in and around foreign content."""

from __future__ import annotations

from linkaudit.rules.html.elements import (
    BREAKOUT,
    HTML_CONTAINERS,
    MATH_TEXT_POINTS,
    SVG_HTML_POINTS,
)

Stack = list[tuple[str, str]]


def namespace_of(stack: Stack, name: str, attrs: dict[str, str]) -> str:
    """The namespace a start tag opens an element in (the tree builder's
    rules for foreign content, reduced to what links need)."""
    if not stack:
        return "html"
    top, top_ns = stack[-1]
    if top_ns == "html":
        return "html"
    if top_ns == "svg" and top in SVG_HTML_POINTS:
        return "html"
    if top_ns == "math":
        if top in MATH_TEXT_POINTS and name not in ("mglyph", "malignmark"):
            return "html"
        if top == "annotation-xml" and name == "svg":
            return "svg"
    if name in BREAKOUT or (name == "font" and {"color", "face", "size"} & attrs.keys()):
        # back to the nearest HTML element or integration point
        while stack and stack[-1][1] != "html" and not _is_integration_point(stack[-1]):
            stack.pop()
        return "html"
    return top_ns


def _is_integration_point(element: tuple[str, str]) -> bool:
    name, ns = element
    return (ns == "svg" and name in SVG_HTML_POINTS) or (ns == "math" and name in MATH_TEXT_POINTS)


def pop_to(stack: Stack, name: str) -> None:
    """An end tag: close the element it names, and everything opened in it.
    An HTML container's end tag with no match closes the foreign content it
    was opened around (``<div><svg>...</div>``)."""
    for i in range(len(stack) - 1, -1, -1):
        if stack[i][0] == name:
            del stack[i:]
            return
    if name in HTML_CONTAINERS:
        stack.clear()
