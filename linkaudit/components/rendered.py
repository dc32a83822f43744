"""A rendered page read (``--render``): the links of its server HTML, with
their lines, and those only its DOM has, without (``rules/rendered.py``).

The two are told apart by the values the HTML tokenizer reads from each
(the DOM is serialised from the same attributes, so a link the script left
alone reads the same in both).  A link only in the DOM is placed with the
line :data:`RENDERED_LINE`; a navigation the script made with
:data:`NAVIGATION_LINE`; the links of the HTML not in the DOM were removed
by the script: they are still checked (a reader without scripts follows
them), and listed in the page's ``render`` section.
"""

from __future__ import annotations

from linkaudit.components.discovery import Discovery, Scanned
from linkaudit.items import RenderSection
from linkaudit.rules.html import RawLink
from linkaudit.rules.pagelinks import PageLinks
from linkaudit.rules.rendered import (
    NAVIGATION_LINE,
    RENDERED_LINE,
    RenderFacts,
    render_section,
)
from linkaudit.rules.urls import InvalidURL, canonicalize


def scan_rendered(
    discovery: Discovery, html: str, facts: RenderFacts, url: str, depth: int
) -> tuple[Scanned, RenderSection]:
    """The page's :class:`Scanned` from its HTML and its DOM, and its
    ``render`` section."""
    server = discovery.read(html, False)
    dom = discovery.read(facts.dom, False)
    server_values = {link.value for link in server.links}
    dom_values = {link.value for link in dom.links}
    added = [RawLink(v, RENDERED_LINE, t) for v, _, t in dom.links if v not in server_values]
    navigations = [RawLink(u, NAVIGATION_LINE, "a") for u in dict.fromkeys(facts.navigations)]
    removed = list(dict.fromkeys(v for v, _, _ in server.links if v not in dom_values))
    anchors = None
    if server.anchors is not None or dom.anchors is not None:  # script-made anchors count
        anchors = (server.anchors or set()) | (dom.anchors or set())
    both = PageLinks(
        server.links + added + navigations,
        server.base if server.base is not None else dom.base,
        dom.images,
        anchors,
        server.dropped + dom.dropped,
        server.marks,
    )
    scanned = discovery.place_page(both, url, depth, False)
    base = url
    if both.base is not None:
        try:
            base = canonicalize(both.base, url)
        except InvalidURL:
            pass
    section = render_section(
        facts,
        list(dict.fromkeys(u for u, line in scanned.links if line == RENDERED_LINE)),
        # resolved as the page's links were (a fault of ours: that link's, not the page's)
        [discovery.resolve_link(value, base, url, None)[0] for value in removed],
        list(dict.fromkeys(u for u, line in scanned.links if line == NAVIGATION_LINE)),
    )
    return scanned, section
