"""The one item linkaudit produces: the outcome of one URL, and the words
it is made of as types (its outcome, the method that decided it)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal, NotRequired, TypedDict

# The report contract's per-URL fields, in the contract's order.  With
# OPTIONAL_FIELDS (and ``revised``) they are the fields of feed exports
# (FEED_FIELDS), so `-O links.jsonl` carries exactly what
# docs/item.schema.json documents.
CONTRACT_FIELDS = (
    "url",
    "near",
    "outcome",
    "status",
    "error",
    "method",
    "content_type",
    "location",
    "depth",
    "referrer_count",
    "referrers",
)


# The words of a result as string-valued enumerations: a member *is* its
# word (``Outcome.BROKEN == "broken"``, formatted and written by ``json``
# as it), so the JSON report, the feeds and every state keep the plain
# words (docs/report.md, "Outcomes") byte for byte, and the code names
# them through a type: a misspelt outcome fails at import, not silently.


class Outcome(StrEnum):
    """What the report says of a URL (docs/report.md, "Outcomes")."""

    OK = "ok"
    REDIRECT = "redirect"
    BROKEN = "broken"
    BLOCKED = "blocked"
    EXCLUDED = "excluded"
    UNCHECKED = "unchecked"


# the report's order: its summary counts, the formats' lists of counts
OUTCOMES: tuple[Outcome, ...] = tuple(Outcome)


class GroupKind(StrEnum):
    """A group of a broken target's places (``groups``): the pages' shared
    template (a head, navigation, footer), or one page's own places."""

    TEMPLATE = "template"
    PAGE = "page"


class FixKind(StrEnum):
    """A redirect fix (``redirect_fixes``): every hop permanent (301, 308),
    or some hop temporary (302, 303, 307)."""

    PERMANENT = "permanent"
    TEMPORARY = "temporary"


class Method(StrEnum):
    """The HTTP method of the request that decided a result."""

    HEAD = "HEAD"
    GET = "GET"


@dataclass(slots=True)
class UrlResult:
    """A URL, checked (or deliberately not).

    ``links`` carries what this URL points to, ``(target, line)`` pairs: the
    links of a scanned page, or the target of a redirect (line None).  The
    report pipeline turns them into referrers; feeds leave them out.
    ``referrers`` and ``referrer_count`` are filled in by that pipeline with
    what is known when the URL is checked (the report has the final lists).
    """

    url: str
    near: bool
    outcome: Outcome  # its word in every output: rules/outcomes.py
    depth: int
    status: int | None = None
    error: str | None = None
    method: Method | None = None
    content_type: str | None = None
    location: str | None = None
    referrer_count: int = 0
    referrers: list[Place] = field(default_factory=list)
    links: list[tuple[str, int | None]] = field(default_factory=list)
    # Optional report fields, absent when unset (OPTIONAL_FIELDS):
    # the page was cut at LINKAUDIT_PAGE_MAXSIZE (or had more links than
    # LINKAUDIT_PAGE_MAXLINKS) and only what was read was scanned; a
    # scanned page's statistics (see page_stats()).
    truncated: bool = False
    page: PageStats | None = None
    # With an audit database (linkaudit/state/sqlite.py): when the outcome
    # was decided (ISO 8601 UTC); carried over from an earlier run without a
    # request; the server answered 304 to a conditional request, so status,
    # type and links are those of the last full answer; a failure still in
    # its grace period (LINKAUDIT_REPORT_AFTER), reported as ok; broken now
    # and not in the baseline report.
    checked_at: str | None = None
    from_cache: bool = False
    not_modified: bool = False
    warning: str | None = None
    new: bool = False
    # Not reported: the page's ETag, for the next run's conditional request,
    # and whether ``links`` came from the store (a cached, 304 or ghost page).
    etag: str | None = None
    stored_links: bool = False
    # Not reported either, with --check-fragments: the names a fragment can
    # point at on this HTML page (ids, <a name>), sorted; the page's links
    # to fragments, [target, fragment, line] (missing_fragments is built
    # from both when the report is written)
    anchors: list[str] | None = None
    fragments: list[list[Any]] | None = None
    # Not reported as such: a sitemap read, {"kind": "urlset" or
    # "sitemapindex", "urls": the URLs it lists} (the report's sitemap section)
    sitemap: SitemapListing | None = None
    # Not reported as such: where a scanned page's links sit, template
    # blocks and runs of links (rules/templates.py; the report's groups)
    blocks: list[list[Any]] | None = None
    # A soft 404 (rules/soft404.py): reported; and, not reported, a scanned
    # page's (or a probe's) fingerprint, compared when the report is written
    soft_404: bool = False
    fingerprint: list[int] | None = None
    # Reported: links of the page past LINKAUDIT_PAGE_MAXLINKS, counted, not
    # read (the page is truncated too).  Last: the compact form's one-letter
    # keys follow the order of the fields (state/compact.py)
    links_dropped: int = 0
    # Reported: why a scanned near HTML page looks built by JavaScript, an
    # app shell whose links only a browser's scripts make (rules/appshell.py)
    app_shell: str | None = None
    # Reported: a rendered page's links only its DOM has, those its script
    # removed, its navigations and the render's cost; or why it could not
    # be rendered (rules/rendered.py: render_section)
    render: RenderSection | None = None
    # Feeds only: the item revises an earlier one of its URL, a verdict the
    # report made when the audit ended (output/report/revisions.py); never
    # true on an item of a check, never in the report
    revised: bool = False
    # Reported: the bot wall that answered in the page's place, by name
    # (rules/walls.py), on an unchecked URL: data the outputs group by,
    # never read back out of ``error``.  Last, as the compact form asks.
    wall: str | None = None

    def optional_dict(self) -> dict[str, Any]:
        """The optional fields that are set."""
        return {name: getattr(self, name) for name in OPTIONAL_FIELDS if getattr(self, name)}

    def contract_dict(self) -> dict[str, Any]:
        data = {name: getattr(self, name) for name in CONTRACT_FIELDS}
        data.update(self.optional_dict())
        return data


OPTIONAL_FIELDS = (
    "truncated",
    "links_dropped",
    "page",
    "checked_at",
    "from_cache",
    "not_modified",
    "warning",
    "new",
    "soft_404",
    "app_shell",
    "render",
    "wall",
)


# The fields of a feed item (FEED_EXPORT_FIELDS): a report entry's, every
# optional one always present, and whether it revises an earlier item
FEED_FIELDS = (*CONTRACT_FIELDS, *OPTIONAL_FIELDS, "revised")

PageKey = Literal["bytes", "last_modified", "links", "images"]  # PageStats's keys, typed
PAGE_STATS: tuple[PageKey, ...] = ("bytes", "last_modified", "links", "images")  # page_stats()'s


class ChangedSince(TypedDict):
    """``changed_since`` (--changed-since REF; ``sources/changes.py``): the
    change findings were sorted by."""

    ref: str
    base: str
    files: int


class SitemapListing(TypedDict):
    """A sitemap read (``UrlResult.sitemap``, not reported as such): its kind
    (``urlset``, ``sitemapindex``) and the URLs it lists, repeats kept."""

    kind: str
    urls: list[str]


class PageStats(TypedDict):
    """A scanned near HTML page's statistics (``page``)."""

    bytes: int
    last_modified: str | None
    links: int
    images: int


class RenderSection(TypedDict, total=False):
    """A rendered page's ``render`` (rules/rendered.py: render_section), or,
    when its render failed, ``error`` and ``requests`` alone.  The report's
    ``rendered`` list adds the page (``output/report/records.py``:
    ``RenderedPage``)."""

    added: list[str]
    added_count: int
    removed: list[str]
    removed_count: int
    navigations: list[str]
    requests: int
    refused: int
    settled: bool
    seconds: float
    dom_truncated: bool  # (always true when present)
    dom_size: int
    windows_closed: int
    dialogs_dismissed: int
    error: str


def page_stats(size: int, last_modified: str | None, links: int, images: int) -> PageStats:
    """A scanned page's ``page`` field: bytes of HTML read (after
    decompression), its Last-Modified as ISO 8601 UTC (None when absent or
    not an HTTP date), link occurrences and ``<img>`` elements."""
    return {"bytes": size, "last_modified": last_modified, "links": links, "images": images}


# A place of a link as the report writes it (docs/report.md, "referrers"):
# made where a link is read (rules/rendered.py), given its file by a local
# build and its source line by sources/places.py, read by every format.
# Types only (TypedDict): the JSON is the plain dict it always was.
class SourceAt(TypedDict):
    """A file and line of a build's sources (``source.defined``)."""

    file: str
    line: int


class SourceLine(SourceAt):
    """``source``: the line a link was built from, and the line that holds
    its URL when it is written elsewhere (``defined``)."""

    defined: NotRequired[SourceAt]


class Place(TypedDict):
    """A referrer: the page (``url``) and line of a link; the rest optional."""

    url: str
    line: int | None
    file: NotRequired[str]
    rendered: NotRequired[bool]  # (always true when present)
    navigation: NotRequired[bool]
    via: NotRequired[str]
    href: NotRequired[str]
    source: NotRequired[SourceLine]
    unmapped: NotRequired[str]
    changed: NotRequired[bool]
    deployed: NotRequired[str]  # as a format reads it: the deployed URL (formats/naming.py)
