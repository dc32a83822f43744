"""SVG and MathML content (the tree builder's "foreign content"), reduced
to what links need: which namespace a start tag opens an element in, and
what an end tag closes.  The stack holds (name, namespace) of the elements
open in and around foreign content."""

from __future__ import annotations

from typing import SupportsIndex

from linkaudit.rules.html.elements import (
    BREAKOUT,
    HTML_CONTAINERS,
    MATH_TEXT_POINTS,
    SVG_HTML_POINTS,
)


class Stack(list[tuple[str, str]]):
    """The open elements, and how many of each name are open: an end tag
    whose element is not open is known so at once (scanning the stack for
    each one made ``<svg>``, n ``<g>`` and n ``</x>`` cost n squared)."""

    def __init__(self) -> None:
        super().__init__()
        self.open: dict[str, int] = {}

    def append(self, element: tuple[str, str]) -> None:
        super().append(element)
        self.open[element[0]] = self.open.get(element[0], 0) + 1

    def pop(self, index: SupportsIndex = -1) -> tuple[str, str]:
        element = super().pop(index)
        self.open[element[0]] -= 1
        return element

    def cut(self, start: int) -> None:
        """Close the elements from ``start`` up."""
        for name, _ns in self[start:]:
            self.open[name] -= 1
        del self[start:]

    def clear(self) -> None:
        super().clear()
        self.open.clear()


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
    if stack.open.get(name):  # the scan ends at it: what it passes is closed
        for i in range(len(stack) - 1, -1, -1):
            if stack[i][0] == name:
                stack.cut(i)
                return
    if name in HTML_CONTAINERS:
        stack.clear()
