"""Pages built by JavaScript, rendered (``--render``): when a page is
rendered, and how its links are told apart in the report.

A rendered page has two sets of links: those of the server's HTML, each
with its source line, and those of the DOM once the page's scripts have
run.  A link in both keeps its line; a link only in the DOM has none and
is marked ``rendered``; a navigation the script made on its own (``location``
set at load, a timed redirect) is a redirect link of the page, rendered
too.  The audit's state keeps a referrer as (page, line): the two kinds
without a line are kept as the line numbers no source line has
(:data:`RENDERED_LINE`, :data:`NAVIGATION_LINE`) and written out by
:func:`referrer_fields`, so the memory, SQLite and Redis states need no
new column.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from linkaudit.items import Place, RenderSection

NEVER, AUTO, ALWAYS = "never", "auto", "always"
RENDERED_LINE = 0  # a link only in the rendered DOM (source lines start at 1)
NAVIGATION_LINE = -1  # a navigation the page's script made (a redirect link)
LISTED = 100  # URLs a rendered page's section lists per kind (the counts are whole)


def should_render(mode: str, shell: str | None) -> bool:
    """A scanned near HTML page is rendered: always, or (``auto``) when its
    server HTML looks like an app shell (``rules/appshell.py``: ``shell``
    is why)."""
    return mode == ALWAYS or (mode == AUTO and shell is not None)


def referrer_fields(page: str, line: int | None) -> Place:
    """A referrer as the report writes it: a rendered link has no line."""
    if line is not None and line <= RENDERED_LINE:
        fields: Place = {"url": page, "line": None, "rendered": True}
        if line == NAVIGATION_LINE:
            fields["navigation"] = True
        return fields
    return {"url": page, "line": line}


def source_line(line: int | None) -> int | None:
    """The line of the server's HTML a referrer names (None: none)."""
    return line if line is not None and line > RENDERED_LINE else None


@dataclass(frozen=True)
class PageAnswer:
    """A page's own answer, as a render's request carries it
    (``meta[RENDER]``): plain data, the browser's document (not requested
    again) and the render's answer to the crawl, which reads the page from
    its HTML as fetched and from its DOM.  ``headers``: names to their
    values, as the crawl read them (a name may repeat); ``encoding``: what
    the crawl decoded its text with, so it reads the same text again."""

    url: str
    status: int
    headers: dict[bytes, list[bytes]]
    body: bytes
    encoding: str | None = None


@dataclass
class RenderFacts:
    """What the browser made of a page: the DOM once it settled, the
    navigations its script made, its requests (sent, refused), whether the
    network went quiet, and how long it took.  Filled by
    ``linkaudit/rendering/``; ``error``: why the render failed (the page is
    then scanned from its HTML, with a warning: never a broken page)."""

    dom: str = ""  # at most LINKAUDIT_PAGE_MAXSIZE characters of it
    dom_size: int = 0  # the whole DOM's length: over the cap, the DOM was cut
    navigations: list[str] = field(default_factory=list)
    windows: int = 0  # new windows the script opened, closed at once
    dialogs: int = 0  # alert, confirm, prompt: dismissed
    requests: int = 0  # the browser's requests sent to servers
    refused: int = 0  # the browser's requests refused (media, fonts, robots.txt...)
    settled: bool = False  # the network went quiet before LINKAUDIT_RENDER_SETTLE
    seconds: float = 0.0
    error: str | None = None


def render_section(
    facts: RenderFacts, added: list[str], removed: list[str], navigations: list[str]
) -> RenderSection:
    """A rendered page's ``render`` field: the links only the DOM has, the
    links of its HTML the script removed, its script's navigations, and
    what the render cost (lists capped at :data:`LISTED`, counts whole);
    a DOM cut at the page size cap says so (``dom_truncated``, and its
    whole length in characters, ``dom_size``)."""
    section: RenderSection = {
        "added": added[:LISTED],
        "added_count": len(added),
        "removed": removed[:LISTED],
        "removed_count": len(removed),
        "navigations": navigations[:LISTED],
        "requests": facts.requests,
        "refused": facts.refused,
        "settled": facts.settled,
        "seconds": round(facts.seconds, 3),
    }
    if facts.dom_size > len(facts.dom):  # cut at LINKAUDIT_PAGE_MAXSIZE, in the browser
        section["dom_truncated"] = True
        section["dom_size"] = facts.dom_size
    if facts.windows:
        section["windows_closed"] = facts.windows
    if facts.dialogs:
        section["dialogs_dismissed"] = facts.dialogs
    return section
