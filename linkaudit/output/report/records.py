"""The report's JSON shapes that cross modules, as types (its contract:
``docs/report.md``, ``docs/report.schema.json``): a place of a link, the
summary, a template group, a redirect fix, a missing fragment, the
``build`` section, a URL's entry and its parts (a page's statistics, its
render, its suggestion, its archived copy), the ``rendered``, ``offline``,
``sitemap``, ``changed_since`` and ``history`` sections.  Those made below
``output/`` are defined where they are made and named here: a place, a
page's statistics, its render and ``changed_since`` in ``items.py``, a suggestion in
``rules/suggest.py``, an audit's record in ``state/base.py``.

They are ``TypedDict``s: types for the checker (mypy, ``tests/test_types.py``)
and nothing at run time, so the report is the same plain dicts, written in
the same order, byte for byte.  A report read back from a file stays
``Report`` (``dict[str, Any]``): a hostile file may hold anything, and the
formats read it defensively."""

from __future__ import annotations

from typing import Any, NotRequired, Required, TypedDict

from linkaudit.items import (
    ChangedSince,
    PageStats,
    Place,
    RenderSection,
    SourceAt,
    SourceLine,
)
from linkaudit.rules.suggest import SuggestionRecord
from linkaudit.state.base import AuditCounts, AuditRecord

# The report as a whole: a plain dict, deliberately open.  Built in one
# place (output/report/build.py: its sections are the records below), but
# read back from a file by ``linkaudit report``, the formats, the baseline
# and notifications: a hostile or older file may hold anything there, so
# every reader of a Report reads it defensively (output/reading.py conforms
# what it can).  Not in __all__: no JSON shape of the schema to hold it to.
Report = dict[str, Any]

__all__ = [
    "ArchivedCopy",
    "AuditCounts",
    "AuditRecord",
    "BuildSection",
    "BuildSources",
    "ChangedSince",
    "FeedItem",
    "GetOnlyHost",
    "MissingFragment",
    "NotPage",
    "OfflineSection",
    "PageStats",
    "Place",
    "RedirectFix",
    "RenderSection",
    "RenderedPage",
    "ReportEntry",
    "SitemapFindings",
    "SourceAt",
    "SourceLine",
    "SuggestionRecord",
    "Summary",
    "TemplateGroup",
]


class GetOnlyHost(TypedDict, total=False):
    """``summary.get_only_hosts[]``: a host checked with one GET a URL."""

    host: Required[str]
    url: str
    head: int
    get: int
    reason: str


class Summary(TypedDict, total=False):
    """``summary``: the counts every report has, and those it has when they
    apply (a build's, --render's, --archive's...)."""

    urls: Required[int]
    pages: Required[int]
    requests: Required[int]
    ok: Required[int]
    redirect: Required[int]
    broken: Required[int]
    blocked: Required[int]
    excluded: Required[int]
    unchecked: Required[int]
    backoffs: int
    pauses: int
    retries: int
    outside_change: int
    get_only_hosts: list[GetOnlyHost]
    internal_errors: int
    walls: dict[str, int]
    missing_fragments: int
    soft_404: int
    archived: int
    app_shells: int
    rendered_pages: int
    renders_remembered: int
    render_failures: int
    render_requests: int
    urls_dropped: int
    links_dropped: int
    not_modified: int
    orphans: int
    sitemap_only: int
    symlinks_out: int
    offline: bool


class TemplateGroup(TypedDict):
    """``groups[]``: the places of a broken URL (or soft 404) one block of
    the site template repeats (``template``), or the rest (``page``)."""

    target: str
    kind: str
    pages: int
    block: NotRequired[str]
    blocks: NotRequired[list[str]]
    outcome: NotRequired[str]
    status: NotRequired[int | None]
    error: NotRequired[str | None]
    referrers: list[Place]


# ``redirect_fixes[]``: a link to a redirect, and the edit that removes it
# ("from" is a keyword: the functional form)
RedirectFix = TypedDict(
    "RedirectFix",
    {
        "page": str,
        "line": int,
        "from": str,
        "to": str,
        "kind": str,
        "statuses": list[int],
        "hops": int,
        "final_outcome": str,
        "final_status": int | None,
        "loop": bool,
        "file": NotRequired[str],
        "source": NotRequired[SourceLine],
        "unmapped": NotRequired[str],
        "changed": NotRequired[bool],
    },
)


class MissingFragment(TypedDict):
    """An entry's ``missing_fragments[]``: links to URL#fragment the page lacks."""

    fragment: str
    referrers: list[Place]
    new: NotRequired[bool]
    changed: NotRequired[bool]


class NotPage(TypedDict):
    """``build.not_pages[]``: an HTML file of the build that is no page."""

    file: str
    reason: str


class BuildSources(TypedDict):
    """``build.sources``: the build's sources, and how many places mapped."""

    tool: str | None
    directories: list[str]
    config: str | None
    detected: bool
    mapped: int
    unmapped: int


class BuildSection(TypedDict):
    """``build``: a local build's directory, start page and pages read."""

    directory: str
    path: NotRequired[str]
    url: NotRequired[str]
    root_url: str | None
    start: str
    start_from: str
    pages: int
    reached: int
    orphans: int
    sitemap_only: int
    not_pages: list[NotPage]
    not_pages_count: NotRequired[int]
    symlinks_out: int
    orphans_sought: NotRequired[bool]
    sources: NotRequired[BuildSources]


class _Checked(TypedDict):
    """The fields every URL's record has, in the report and in a feed: the
    check's result (``UrlResult``'s contract fields) and its places."""

    url: str
    near: bool
    outcome: str
    status: int | None
    error: str | None
    method: str | None
    content_type: str | None
    location: str | None
    depth: int
    referrer_count: int
    referrers: list[Place]


class FeedItem(_Checked):
    """A feed item a report's verdict revises (``revisions.py``; its contract:
    ``docs/item.schema.json``): an entry's contract fields, every optional
    one present (None, false or 0 when unset), and ``revised``."""

    truncated: bool
    links_dropped: int
    page: PageStats | None
    checked_at: str | None
    from_cache: bool
    not_modified: bool
    warning: str | None
    new: bool
    soft_404: bool
    app_shell: str | None
    render: RenderSection | None
    wall: str | None
    revised: bool


class ArchivedCopy(TypedDict):
    """An entry's ``archived`` copy (--archive): the copy, when the archive
    made it, and the Robust Links markup to paste."""

    url: str
    date: str
    markup: str


class RenderedPage(RenderSection, total=False):
    """``rendered[]``: a rendered page's ``render``, and the page."""

    page: Required[str]


class OfflineSection(TypedDict):
    """``offline``: the machine seemed offline (``output/report/offline.py``)."""

    failed_domains: int
    failed_hosts: NotRequired[int]  # (always written)
    answered: int
    urls: int


class SitemapFindings(TypedDict):
    """``sitemap``: the sitemaps read and the crawl side by side."""

    sitemaps: list[str]
    urls: int
    broken: list[str]
    redirects: list[str]
    orphans: list[str]
    missing: list[str]
    skipped: NotRequired[list[str]]


class ReportEntry(_Checked):
    """``urls[]``: one URL's entry: the check's result (``UrlResult``'s
    contract fields), its places, and what the report adds."""

    file: NotRequired[str]  # a build's: the file of the URL (report/naming.py)
    deployed: NotRequired[str]  # as a format reads it: the deployed URL (formats/naming.py)
    truncated: NotRequired[bool]
    render: NotRequired[RenderSection]
    app_shell: NotRequired[str]
    wall: NotRequired[str]
    links_dropped: NotRequired[int]
    page: NotRequired[PageStats | None]
    checked_at: NotRequired[str]
    from_cache: NotRequired[bool]
    not_modified: NotRequired[bool]
    warning: NotRequired[str]
    new: NotRequired[bool]
    broken_since: NotRequired[str]
    audits_broken: NotRequired[int]
    broken_links_since: NotRequired[str]
    audits_with_broken_links: NotRequired[int]
    archived: NotRequired[ArchivedCopy | None]
    archive_note: NotRequired[str]
    suggestion: NotRequired[SuggestionRecord]
    missing_fragments: NotRequired[list[MissingFragment]]
    soft_404: NotRequired[bool]
    orphan: NotRequired[str]
    symlink_out: NotRequired[str]
    changed: NotRequired[bool]
