"""What the formats share: the report's parts in words, and :func:`shown`,
how every value that came from a page or a server is written for a reader."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from linkaudit.items import GroupKind, Outcome
from linkaudit.output.formats.places import (
    first_places,
    is_hop,
    linked_from,
    more_text,
    source_place,
    unmapped,
    written,
)
from linkaudit.output.report.records import (
    MissingFragment,
    Place,
    RenderedPage,
    Report,
    ReportEntry,
    TemplateGroup,
)
from linkaudit.output.words import group_text
from linkaudit.rules.guards import OUTSIDE_ROOT


def shown(value: Any) -> str:
    """A value from a page or a server as a reader may see it: every
    character that is not printable written as Python's ``repr`` writes it
    (``\\x1b``, ``\\u202e``, ``\\n``, ``\\ud800``): control characters (C0, DEL,
    C1), bidi controls and other invisible format characters, line and
    paragraph separators, spaces other than the space, lone surrogates,
    unassigned code points.

    An href holding ESC sequences would otherwise drive the reader's
    terminal (colours, a fake hyperlink, a cleared screen), a bidi override
    would show ``exe.png`` for ``gnp.exe``, a newline would forge a line of
    the report, and a lone surrogate cannot be encoded at all.  What is left
    is printable, so also legal in XML 1.0 and encodable in UTF-8.
    Backslashes are kept as they are (a Windows path stays readable): this
    is for reading, not for reading back."""
    text = "" if value is None else str(value)
    if text.isprintable():  # nearly always: one pass in C
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def archive_lines(u: ReportEntry) -> list[str]:
    """A broken link's archived copy (--archive) in words: the copy and its
    date, and the Robust Links markup to paste; or why there is none.  No
    line when the report looked nothing up."""
    copy = u.get("archived")
    if copy:
        date = str(copy.get("date") or "")[:10] or "date unknown"
        return [
            f"archived copy ({shown(date)}): {shown(copy['url'])}",
            f"Robust Link: {shown(copy.get('markup') or '')}",
        ]
    if "archived" in u:
        return [f"no archived copy: {shown(u.get('archive_note') or 'not looked up')}"]
    return []


def broken_urls(report: Report) -> list[ReportEntry]:
    return [u for u in report["urls"] if u["outcome"] == Outcome.BROKEN]


def walled(report: Report) -> list[tuple[str, list[ReportEntry]]]:
    """The URLs a bot wall kept from being checked (``unchecked``, the
    wall named in their ``wall``: ``rules/walls.py``), by wall, walls by
    name: apart from the broken links in every format."""
    by_wall: dict[str, list[ReportEntry]] = {}
    for u in report["urls"]:
        if u["outcome"] == Outcome.UNCHECKED:
            wall = u.get("wall")
            if wall:
                by_wall.setdefault(wall, []).append(u)
    return sorted(by_wall.items())


def outside_root(report: Report) -> int:
    """URLs on the site's own host but outside ``--root-url`` that
    ``--skip-far`` left out (``rules/guards.py``): the summary counts them."""
    return sum(
        1
        for u in report["urls"]
        if u["outcome"] == Outcome.EXCLUDED and (u.get("error") or "").startswith(OUTSIDE_ROOT)
    )


def no_line(referrer: Place) -> str:
    """Why a referrer has no line: a redirect, a link only in the rendered
    DOM (--render), a navigation the page's script made."""
    if referrer.get("navigation"):
        return "script navigation"
    if referrer.get("rendered"):
        return "rendered: only after its scripts ran"
    return "redirect"


def target(entry: ReportEntry, fragment: str | None = None) -> str:
    """A finding's target in words: its URL, or a build's file
    (``formats/naming.py``) with its deployed URL beside it when there is
    one: ``public/missing.html (https://example.com/docs/missing.html)``;
    ``fragment``: the link's ``#name`` after each."""
    mark = "" if fragment is None else f"#{fragment}"
    deployed = entry.get("deployed")
    return f"{entry['url']}{mark}" + (f" ({deployed}{mark})" if deployed else "")


def where(referrer: Place) -> str:
    """A referrer in words: ``page line 12``, or ``page (redirect)``; a
    local build's page as its file: ``public/about.html:12``, with the
    page's deployed or other URL beside it when it has one
    (``public/about.html:12 (https://example.com/about.html)``), after its
    source when it has one (``content/about.md:3 (built public/about.html:12)``),
    with the href as written when it differs (``, written as ../x.html``);
    a link through redirects says which: ``page line 7, through /old``."""
    line = referrer["line"]
    if referrer.get("file"):
        at = f":{line}" if line is not None else f" ({no_line(referrer)})"
        also = referrer.get("deployed") or (
            referrer["url"] if referrer["url"] != referrer["file"] else None
        )
        said = f"{referrer['file']}{at}"
        said = source_place(referrer, said + (f", {also}" if also else "")) or (
            said + (f" ({also})" if also else "")
        )
    else:
        at = f" line {line}" if line is not None else f" ({no_line(referrer)})"
        said = f"{referrer['url']}{at}"
    return said + written(referrer) + unmapped(referrer) + through(referrer)


def through(referrer: Place) -> str:
    """``, through URL`` for a place that links the target through a
    redirect (``via``, the URL the page links); "" for any other."""
    via = referrer.get("via")
    return f", through {via}" if via else ""


def missing_fragments(report: Report) -> list[tuple[ReportEntry, MissingFragment]]:
    """(entry, missing fragment) pairs (--check-fragments), in URL order."""
    return [(u, gap) for u in report["urls"] for gap in u.get("missing_fragments", ())]


def groups_by_target(report: Report) -> dict[str, list[TemplateGroup]]:
    """The report's ``groups`` (template links) by their target."""
    out: dict[str, list[TemplateGroup]] = {}
    for group in report.get("groups") or ():
        out.setdefault(group["target"], []).append(group)
    return out


def place_lines(
    entry: ReportEntry,
    groups: dict[str, list[TemplateGroup]],
    indent: str = "",
    say: Callable[[Place], str] = where,
    say_group: Callable[[TemplateGroup], str] = group_text,
    limit: int | None = None,
    more: Callable[[int], str] = more_text,
) -> list[str]:
    """Where a broken URL is linked: a template group as one line, the
    links in pages' own content place by place, the first ``limit`` of
    them (None: all) and how many more, after a line that counts them all
    when some are left out (``say``, ``say_group`` and ``more`` put them
    in words: markdown has its own)."""
    return [
        indent + line
        for line in places_of(entry["referrers"], entry, groups, say, say_group, limit, more)
    ]


def places_of(
    referrers: list[Place],
    entry: ReportEntry | None,
    groups: dict[str, list[TemplateGroup]],
    say: Callable[[Place], str] = where,
    say_group: Callable[[TemplateGroup], str] = group_text,
    limit: int | None = None,
    more: Callable[[int], str] = more_text,
) -> list[str]:
    """:func:`place_lines` of any list of referrers (a missing fragment's,
    a soft 404's); ``entry``: the target, whose template groups are lines
    of their own."""
    mine = groups.get(entry["url"]) if entry is not None else None
    own, lines = referrers, []
    if mine:
        own = []
        for group in mine:
            if group["kind"] == GroupKind.TEMPLATE:
                lines.append(say_group(group))
            else:
                own.extend(group["referrers"])
    # the template's lines first (each stands for many pages), then the
    # places in pages' own content (a page's line before a redirect that
    # leads here: the page is what a person edits): ``limit`` lines in all
    own = sorted(own, key=is_hop)
    words, left = first_places(own, None if limit is None else max(limit - len(lines), 0), say)
    templates = len(lines)
    left += len(lines[limit:]) if limit is not None else 0
    lines = lines[:limit] + words
    count = entry.get("referrer_count") if entry is not None else None
    if left:  # --max-referrers 0: the count alone
        head = linked_from(referrers, count)
        lines = [f"{head}; the first {len(lines)}:", *lines, more(left)] if lines else [head]
    elif templates:  # a template line stands for many pages: say how many in all
        lines = [f"{linked_from(referrers, count)}:", *lines]
    return lines


def app_shells(report: Report) -> tuple[str, list[ReportEntry]]:
    """The pages that look built by JavaScript (``summary.app_shells``): the
    line that says it, and the pages; none: ``("", [])``."""
    n = report["summary"].get("app_shells", 0)
    if not n:
        return "", []
    words = (
        f"{plural(n, 'page')} look{'s' if n == 1 else ''} built by JavaScript; "
        f"{'its' if n == 1 else 'their'} links were not checked: --render auto"
    )
    return words, [u for u in report["urls"] if u.get("app_shell")]


RENDERED_SHOWN = 10  # rendered pages a text or markdown report lists (the report has all)


def rendered(report: Report) -> tuple[str, list[RenderedPage], list[RenderedPage]]:
    """The pages rendered in Chromium (--render): the line that says how
    many (and what it cost), the rendered pages whose links differ from
    their HTML's, and the pages whose render failed; none: ``("", [], [])``."""
    s = report["summary"]
    n, failed = s.get("rendered_pages", 0), s.get("render_failures", 0)
    remembered = s.get("renders_remembered", 0)
    if not (n or failed or remembered):
        return "", [], []
    asked = plural(s.get("render_requests", 0), "browser request")
    words = f"{plural(n, 'page')} rendered in Chromium ({asked})"
    if remembered:
        words += f"; {plural(remembered, 'render')} remembered (pages unchanged since)"
    if failed:
        words += f"; {plural(failed, 'render')} failed, read from the HTML"
    sections: list[RenderedPage] = report.get("rendered") or []
    changed = [r for r in sections if r.get("added_count") or r.get("removed_count")]
    changed += [r for r in sections if r.get("navigations") and r not in changed]
    failures = [r for r in sections if r.get("error")]
    return words, changed, failures


def plural(count: int, word: str) -> str:
    """``1 page``, ``2,164 pages``."""
    return f"{count:,} {word}{'' if count == 1 else 's'}"


# How an audit ended, in the user's words (Scrapy's finish reasons)
_ENDINGS = {
    "closespider_timeout": "time limit (--max-time) reached",
    "closespider_pagecount": "request limit (--max-requests) reached",
    "closespider_itemcount": "item limit reached",
    "closespider_errorcount": "error limit reached",
    "shutdown": "interrupted",
    "cancelled": "interrupted",
}


def ending(report: Report, quote: Callable[[Any], str] = shown) -> str:
    """``complete``; or what stopped the audit and what is left, with the
    way to finish it.  A reason of another's (any text, in a report read
    back) is written by ``quote``: the format's way with a value."""
    reason = report["finish_reason"]
    if report["complete"]:
        return "complete"
    said = "incomplete"
    if reason in _ENDINGS:
        said += f" ({_ENDINGS[reason]}"
        if reason not in ("shutdown", "cancelled"):
            said += f" after {_duration(report)}"
        said += ")"
    elif reason != "finished":  # a reason of Scrapy's or another extension's
        said += f" ({quote(reason)})"
    left = report["summary"].get("unchecked", 0)
    if left:
        said += f": {plural(left, 'URL')} not checked"
    if reason in _ENDINGS:
        if "history" in report:  # an audit database (--db): its next run resumes this one
            said += "; run the same command again to continue"
        else:  # kept in memory, gone: a run with --db would start afresh
            said += "; to make an audit that stops resumable, give it --db FILE"
    return said


def _duration(report: Report) -> str:
    try:
        took = datetime.fromisoformat(report["finished_at"]) - datetime.fromisoformat(
            report["started_at"]
        )
    except (KeyError, TypeError, ValueError):
        return "a while"
    seconds = took.total_seconds()
    if seconds < 10:
        return f"{seconds:.1f} s"
    seconds = round(seconds)
    return f"{seconds} s" if seconds < 120 else f"{seconds // 60} min {seconds % 60} s"
