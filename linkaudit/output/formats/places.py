"""Where a broken URL is linked, condensed: one finding however many pages
link to it.  A missing stylesheet in a site's ``<head>`` is linked from
every page; listing each one buries the other findings (1,168 lines for
one file on a real site), so the formats print a count, the first few
places (:attr:`Options.max_referrers`, ``--max-referrers``) and how many
more.  The JSON report, the HTML report's cards and ``--verbose`` keep
every one.

A place of a build's page says more when the report knows it: the href
as the page wrote it (``href``), and the source file and line the page was
built from (``source``, first: it is the line a person edits), or why it
has none (``unmapped``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, cast

from linkaudit.output.report.records import Place, SourceAt

MAX_REFERRERS = 5  # lychee and linkinator print a handful too
# GitHub refuses a comment over 65,536 characters: room left for what a
# bot or a person writes around the report
MAX_BYTES = 60_000


@dataclass(frozen=True)
class Options:
    """How much a format shows: the first ``max_referrers`` places of a
    finding (None: every one, ``--verbose``), markdown within
    ``max_bytes`` (UTF-8), JUnit with every URL (``junit_all``) or only
    those that fail or could not be checked; ``report``: the report's file,
    as the user named it, which markdown's last line names (None: unknown,
    no such line)."""

    max_referrers: int | None = MAX_REFERRERS
    max_bytes: int = MAX_BYTES
    junit_all: bool = False
    report: str | None = None
    # where the HTML report is written (its links to a build's files are
    # relative to it); None: printed, relative to the current directory
    html: str | None = None


DEFAULT = Options()


def distinct(referrers: Iterable[Place]) -> list[tuple[Place, int]]:
    """Each place once, in order, with how many links it stands for:
    several links on one line of one page (a local build's file served at
    / and /index.html is one page) are one place."""
    seen: dict[tuple[str, int | None], list[Any]] = {}
    for r in referrers:
        key = (r.get("file") or r["url"], r["line"])
        if key in seen:
            seen[key][1] += 1
        else:
            seen[key] = [r, 1]
    return [(r, n) for r, n in seen.values()]


def is_hop(referrer: Place) -> bool:
    """A referrer that is a redirect leading here, not a page's link (no
    line, and not a link only the rendered page has)."""
    return referrer["line"] is None and not referrer.get("rendered")


def link_count(referrers: list[Place], count: int | None = None) -> int:
    """The links of pages to a target: to the URL itself (``count``, the
    report's ``referrer_count``, when the list was cut) and through
    redirects (``via``); a redirect that leads here is no page's link."""
    direct = [r for r in referrers if not r.get("via")]
    hopping = sum(1 for r in direct if is_hop(r))
    # the count is of the links to this URL itself, a redirect's among them
    return max(count or 0, len(direct)) - hopping + len(referrers) - len(direct)


def linked_from(referrers: list[Place], count: int | None = None) -> str:
    """``linked from 1,168 pages (1,170 links), all at line 2``; redirects
    that lead here are counted apart (``; 1 redirect leads here``): a
    page's link through one is among the pages' links (``via``)."""
    hops = {r["url"] for r in referrers if not r.get("via") and is_hop(r)}
    placed = [r for r in referrers if not is_hop(r)]
    pages = len({r.get("file") or r["url"] for r in placed})  # a build's file is one page
    links = link_count(referrers, count)
    if not pages and hops:
        return f"reached only through {len(hops):,} redirect{'s' if len(hops) != 1 else ''}"
    text = f"linked from {pages:,} page{'s' if pages != 1 else ''}"
    if links != pages:
        text += f" ({links:,} links)"
    lines = {r["line"] for r in placed}
    if pages > 1 and len(lines) == 1 and None not in lines:
        text += f", all at line {lines.pop()}"
    if hops:
        text += f"; {len(hops):,} redirect{'s lead' if len(hops) != 1 else ' leads'} here"
    return text


def first_places(
    referrers: list[Place], limit: int | None, say: Callable[[Place], str]
) -> tuple[list[str], int]:
    """The first ``limit`` distinct places in words (a place several links
    share says how many), and how many distinct places are left out."""
    places = distinct(referrers)
    kept = places if limit is None else places[:limit]
    words = [say(r) + (f" ({n} links)" if n > 1 else "") for r, n in kept]
    return words, len(places) - len(kept)


def more_text(more: int, verbose_hint: bool = True) -> str:
    """What a reader is told of the places left out."""
    hint = " (-v prints them)" if verbose_hint else ""
    return f"and {more:,} more: the JSON report has them all{hint}"


def written(referrer: Place, quote: Callable[[Any], str] = str) -> str:
    """``, written as ../missing.html`` for a place whose page wrote the
    link otherwise than its target is named (``href``); "" for any other."""
    href = referrer.get("href")
    return f", written as {quote(href)}" if isinstance(href, str) else ""


def source_place(referrer: Place, built: str, quote: Callable[[Any], str] = str) -> str | None:
    """A place mapped to its source, the source first and the built file
    second: ``content/guide.md:37 (built public/guide.html:412)``; a link whose
    URL a definition holds (a reference-style link, a reST target) at the
    definition's line, the one to edit: ``content/guide.md:80 (the definition
    of the link at line 37; built public/guide.html:412)``.  ``built``: the
    built place in the format's words.  None for a place without a source."""
    source = referrer.get("source")
    if not isinstance(source, dict) or not source.get("file"):
        return None
    at = _at(source)
    defined = source.get("defined")
    if isinstance(defined, dict) and defined.get("file"):
        used = f"line {source['line']}" if defined["file"] == source["file"] else at
        return f"{quote(_at(defined))} (the definition of the link at {quote(used)}; built {built})"
    return f"{quote(at)} (built {built})"


def _at(source: SourceAt) -> str:
    line = source.get("line")
    return f"{source['file']}:{line}" if line is not None else str(source["file"])


def unmapped(referrer: Place, quote: Callable[[Any], str] = str) -> str:
    """``, no source: why`` for a place --sources could not map."""
    why = referrer.get("unmapped")
    return f", no source: {quote(why)}" if isinstance(why, str) and why else ""


# what a place of the redirect fix-list keeps (its page is ``page``)
_FIX_PLACE = ("file", "deployed", "href", "source", "unmapped")


def fix_place(fix: Mapping[str, Any]) -> Place:
    """A link of the redirect fix-list as a place, as a referrer is one."""
    place = {"url": fix["page"], "line": fix["line"], **{k: fix[k] for k in _FIX_PLACE if k in fix}}
    return cast(Place, place)  # (a fix read back from a report: its keys as it has them)
