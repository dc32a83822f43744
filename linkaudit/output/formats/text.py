"""The report as text for a person: counts, then each broken URL with the
pages and lines that link to it, what changed since a baseline, internal
errors and failures in their grace period."""

from __future__ import annotations

from typing import Any

from linkaudit.items import OUTCOMES, FixKind, Outcome
from linkaudit.output.formats.builds import (
    LISTED,
    NOT_PAGES,
    SYMLINKS_OUT,
    build_line,
    not_pages,
    orphans,
    symlink_target,
    symlink_words,
    symlinks_out,
)
from linkaudit.output.formats.common import (
    RENDERED_SHOWN,
    app_shells,
    archive_lines,
    ending,
    groups_by_target,
    missing_fragments,
    outside_root,
    place_lines,
    places_of,
    plural,
    rendered,
    shown,
    target,
    walled,
)
from linkaudit.output.formats.naming import for_reading
from linkaudit.output.formats.offline import offline_line
from linkaudit.output.formats.places import DEFAULT, Options, fix_place
from linkaudit.output.report.records import RedirectFix, Report, ReportEntry
from linkaudit.output.words import broken_for, fix_text, fix_words, history_line, is_internal_error
from linkaudit.rules.suggest import suggestion_text

RENDERED_LINKS = 3  # links of a rendered page listed per kind (then how many more)


def summary_text(report: Report, options: Options = DEFAULT) -> str:
    """What to act on first: one line that says it all, the counts, then
    new broken links (with a baseline), broken links, missing fragments,
    links to update, what was fixed, and everything else.  Each finding is
    one, however many pages link to it: the first ``options.max_referrers``
    places are printed, and how many more.  A build's pages and targets
    are named by their files (``naming.py``)."""
    report = for_reading(report)
    s = report["summary"]
    limit = options.max_referrers
    own = outside_root(report)  # --skip-far with --root-url: the site's own links left out
    counts = {o: f"{s[o]:,}" for o in OUTCOMES}
    if own:
        counts[Outcome.EXCLUDED] += f" ({own:,} on the site's host outside --root-url, --skip-far)"
    first = build_line(report)  # a build's: what was read, where it started
    offline = offline_line(report)  # a machine that seems offline: said before all
    lines = [
        *([offline] if offline else []),
        *([f"linkaudit: {first}"] if first else []),
        headline(report),
        "  "
        + ", ".join(f"{o} {counts[o]}" for o in OUTCOMES)
        + (f" ({s['internal_errors']} by internal errors)" if s.get("internal_errors") else "")
        + (f"; soft 404s {s['soft_404']}" if s.get("soft_404") else "")
        + (f"; archived copies {s['archived']}" if "archived" in s else ""),
    ]
    trend = history_line(report)  # --db: the audits kept
    if trend:
        lines.append("  " + trend)
    broken = [u for u in report["urls"] if u["outcome"] == Outcome.BROKEN]
    if "fixed" in report:  # compared with a baseline: what changed first
        groups = [
            ("New broken links", [u for u in broken if u.get("new")]),
            ("Still broken", [u for u in broken if not u.get("new")]),
        ]
    else:
        groups = [("Broken links", broken)]
    by_target = groups_by_target(report)
    for title, group in groups:
        if group:
            lines.append(f"{title} ({len(group)}):")
            for u in group:
                since = broken_for(u, report["started_at"])  # --db
                since = f"  ({since})" if since else ""
                lines.append(f"  {target(u)}  [{u['error']}]{_suggested(u)}{since}")
                lines.extend("    " + line for line in archive_lines(u))  # --archive
                lines.extend(place_lines(u, by_target, "    ", limit=limit))
    lines.extend(_wall_lines(report, limit))
    gaps = missing_fragments(report)
    if gaps:
        lines.append(f"Missing fragments ({len(gaps)}):")
        for u, gap in gaps:
            new = " (new)" if gap.get("new") else ""
            lines.append(f"  {target(u, gap['fragment'])}  [no such anchor on the page]{new}")
            lines.extend("    " + x for x in places_of(gap["referrers"], None, {}, limit=limit))
    fixes = report.get("redirect_fixes") or []
    lines.extend(_fix_lines(fixes, FixKind.PERMANENT, "Links to update", limit))
    if report.get("fixed"):
        lines.append(f"Fixed ({len(report['fixed'])}):")
        lines.extend(f"  {url}" for url in report["fixed"])
    lines.extend(_fix_lines(fixes, FixKind.TEMPORARY, "Links to temporary redirects", limit))
    lines.extend(_build_lines(report, limit))
    if s.get("internal_errors"):
        faulty = [u for u in report["urls"] if is_internal_error(u)]
        lines.append(
            f"Internal errors ({len(faulty)}): linkaudit could not check these URLs because "
            "of a bug of its own; the log has the details: please report it"
        )
        lines.extend(f"  {target(u)}  [{u['error']}]" for u in faulty)
    soft = [u for u in report["urls"] if u.get("soft_404") and u["outcome"] != Outcome.BROKEN]
    if soft:
        lines.append(f"Soft 404s, pages that answer 200 but are error pages ({len(soft)}):")
        for u in soft:
            lines.append(f"  {target(u)}  [{u['warning']}]")
            lines.extend(place_lines(u, {}, "    ", limit=limit))
    shells, pages = app_shells(report)
    if shells:
        lines.append(shells)  # (it ends with the option: no colon)
        lines.extend(f"  {target(u)}  [{u['app_shell']}]" for u in pages)
    lines.extend(_rendered_lines(report, None if limit is None else RENDERED_LINKS))
    lines.extend(_sitemap_lines(report.get("sitemap")))
    lines.extend(get_only_lines(report))
    lines.extend(_limit_lines(report))
    lines.extend(_note_lines(report))
    # Each line holds values from pages and servers among our own words,
    # which are all printable: escaping the whole line escapes exactly the
    # values, whichever helper (where, group_text, fix_text) put them there.
    return "\n".join(shown(line) for line in lines)


def as_text(report: Report, options: Options = DEFAULT) -> str:
    return summary_text(report, options)


def headline(report: Report) -> str:
    """The one line that says it all, in words: ``linkaudit: 2 broken links
    (1 new, 1 still broken, 1 fixed since the baseline), 3 links to update;
    2,164 URLs, 327 pages, 519 requests; time limit (--max-time) reached
    after 45 s: 24 URLs not checked``."""
    s = report["summary"]
    n = s["broken"]
    verdict = plural(n, "broken link")
    if "fixed" in report:
        new = sum(1 for u in report["urls"] if u["outcome"] == Outcome.BROKEN and u.get("new"))
        verdict += (
            f" ({new} new, {n - new} still broken, {len(report['fixed'])} fixed since the baseline)"
        )
    parts = [verdict]
    if s.get("missing_fragments"):
        parts.append(plural(s["missing_fragments"], "missing fragment"))
    update = len(
        {f["from"] for f in report.get("redirect_fixes") or () if f["kind"] == FixKind.PERMANENT}
    )
    if update:
        parts.append(plural(update, "link") + " to update")
    if s.get("internal_errors"):
        parts.append(plural(s["internal_errors"], "internal error") + " (exit 4)")
    walls = sum((s.get("walls") or {}).values())
    if walls:
        parts.append(plural(walls, "URL") + " behind bot walls (not verified, not broken)")
    unchanged = s.get("not_modified", 0)
    pages = plural(s["pages"] + unchanged, "page")
    if unchanged:
        pages += f" ({unchanged:,} not modified since the last audit)"
    counts = f"{plural(s['urls'], 'URL')}, {pages}, {plural(s['requests'], 'request')}"
    return f"linkaudit: {', '.join(parts)}; {counts}; {ending(report)}"


def _build_lines(report: Report, limit: int | None) -> list[str]:
    """A build's own findings: its orphan pages, its files that are not
    pages, its symbolic links out (each with its places, when kept)."""
    cut = None if limit is None else LISTED  # -v: every one
    lines = []
    for heading, pages in orphans(report):
        lines.append(f"{heading} ({len(pages):,}):")
        lines.extend(f"  {target(u)}" for u in pages[:cut])
        lines.extend(_more(len(pages), cut))
    listed, count = not_pages(report)
    if count:
        lines.append(f"{NOT_PAGES} ({count:,}):")
        lines.extend(f"  {f.get('file')}  [{f.get('reason')}]" for f in listed[:cut])
        lines.extend(_more(count, min(len(listed), cut if cut is not None else len(listed))))
    found = symlinks_out(report)
    if found:
        lines.append(f"{SYMLINKS_OUT} ({len(found):,}):")
        for u in found:
            lines.append(f"  {target(u)}  [{symlink_words(u)}]")
            lines.extend(place_lines(u, {}, "    ", limit=limit))
    return lines


def _more(count: int, shown: int | None) -> list[str]:
    if shown is None or count <= shown:
        return []
    return [f"  and {count - shown:,} more: the JSON report has them (-v prints them)"]


# Warnings by what they are, each under its own heading: the start of the
# warning (our own words) -> the heading (a symbolic link out of the build:
# its own finding, above)
_NOTES = (
    ("not rendered", "Pages not rendered, read from their HTML"),  # --render
    ("", "Failing, not reported broken yet"),  # a failure in its grace period (--db)
)


def _note_lines(report: Report) -> list[str]:
    """The warnings of URLs that are not broken, each kind under its heading."""
    kinds: dict[str, list[ReportEntry]] = {}
    for u in report["urls"]:
        warning = u.get("warning")
        if warning and not u.get("soft_404") and symlink_target(u) is None:
            heading = next(h for start, h in _NOTES if warning.startswith(start))
            kinds.setdefault(heading, []).append(u)
    lines = []
    for heading, entries in kinds.items():
        lines.append(f"{heading} ({len(entries)}):")
        lines.extend(f"  {target(u)}  [{u['warning']}]" for u in entries)
    return lines


def _wall_lines(report: Report, limit: int | None) -> list[str]:
    """The URLs a bot wall kept from being checked, under each wall: not
    broken, not verified either."""
    found = walled(report)
    if not found:
        return []
    total = sum(len(urls) for _wall, urls in found)
    lines = [
        f"Behind bot walls, not verified ({total}): the wall answered in the page's place;"
        " open them in a browser"
    ]
    for wall, urls in found:
        lines.append(f"  {wall} ({len(urls)}):")
        for u in urls:
            lines.append(f"    {target(u)}  [{u['error']}]")
            lines.extend(place_lines(u, {}, "      ", limit=limit))
    return lines


def get_only_lines(report: Report) -> list[str]:
    """The hosts checked with GET only: their GET answers contradicted
    their HEAD answers (``summary.get_only_hosts``)."""
    hosts = report["summary"].get("get_only_hosts") or ()
    if not hosts:
        return []
    lines = [f"Hosts checked with GET only, their HEAD answers contradicted ({len(hosts)}):"]
    for h in hosts:
        shown_by = f"{h['reason']} for {h['url']}" if "reason" in h and "url" in h else ""
        lines.append(f"  {h['host']}  [{shown_by}]" if shown_by else f"  {h['host']}")
    return lines


def _limit_lines(report: Report) -> list[str]:
    """What a bound of the audit left unread: URLs past --max-urls, links
    past LINKAUDIT_PAGE_MAXLINKS on a page."""
    lines = []
    dropped = report["summary"].get("urls_dropped")
    if dropped:
        lines.append(
            f"Not checked: {dropped} URLs found after the audit reached --max-urls "
            "(LINKAUDIT_MAX_URLS), never recorded"
        )
    cut = [u for u in report["urls"] if u.get("links_dropped")]
    if cut:
        lines.append(f"Pages with more links than LINKAUDIT_PAGE_MAXLINKS ({len(cut)}):")
        lines.extend(f"  {target(u)}  [{u['links_dropped']} more links not read]" for u in cut)
    return lines


def _sitemap_lines(section: dict[str, Any] | None) -> list[str]:
    """The sitemap and the crawl side by side, when a sitemap was read."""
    if not section:
        return []
    lines = [
        f"Sitemap: {section['urls']} URLs in {len(section['sitemaps'])} sitemap(s); "
        f"{len(section['broken'])} broken, {len(section['redirects'])} redirecting, "
        f"{len(section['orphans'])} linked from no page, "
        f"{len(section['missing'])} site pages not in it"
    ]
    for key, words in (
        ("broken", "listed, broken"),
        ("redirects", "listed, redirecting"),
        ("orphans", "listed, linked from no page"),
        ("missing", "site pages the sitemap leaves out"),
        ("skipped", "sitemaps not read (LINKAUDIT_SITEMAP_MAXDEPTH, LINKAUDIT_SITEMAP_MAXCOUNT)"),
    ):
        if section.get(key):
            lines.append(f"  {words} ({len(section[key])}):")
            lines.extend(f"    {url}" for url in section[key])
    return lines


def _fix_lines(fixes: list[RedirectFix], kind: str, title: str, limit: int | None) -> list[str]:
    """The redirect fix-list of one ``kind`` (permanent: to apply;
    temporary: to know): one finding per link to update, its places
    condensed as a broken link's are."""
    by_from: dict[str, list[RedirectFix]] = {}
    for f in fixes:
        if f["kind"] == kind:
            by_from.setdefault(f["from"], []).append(f)
    if not by_from:
        return []
    lines = [f"{title} ({len(by_from)}):"]
    for chosen in by_from.values():
        if len(chosen) == 1:
            lines.append("  " + fix_text(chosen[0]))
            continue
        first = chosen[0]
        lines.append(f"  {first['from']} -> {first['to']}  ({fix_words(first)})")
        places = [fix_place(f) for f in chosen]
        lines.extend("    " + x for x in places_of(places, None, {}, limit=limit))
    return lines


def _suggested(entry: ReportEntry) -> str:
    """``  did you mean URL? (a typo)`` after a broken URL that has a suggestion."""
    found = entry.get("suggestion")
    return f"  {suggestion_text(found, entry['url'])}" if found else ""


def _rendered_lines(report: Report, shown: int | None) -> list[str]:
    """--render: how many pages were rendered, the pages whose DOM links
    differ from their HTML's (links only after rendering, removed by the
    script, script navigations: each apart, the first ``shown`` of each and
    how many more), and the renders that failed."""
    words, changed, _failures = rendered(report)  # (the failures: a warning each)
    if not words:
        return []
    lines = [f"{words}:" if changed else words]
    for section in changed[:RENDERED_SHOWN]:
        lines.append(
            f"  {section['page']}  {section['added_count']} only after rendering, "
            f"{section['removed_count']} removed by its script"
        )
        for mark, urls, count, kind in (
            ("+", section["added"], section["added_count"], "only after rendering"),
            ("-", section["removed"], section["removed_count"], "removed by its script"),
            ("->", section["navigations"], len(section["navigations"]), "script navigations"),
        ):
            after = " (script navigation)" if mark == "->" else ""
            listed = urls[:shown]  # the first few (-v: all the report lists, 100)
            lines.extend(f"    {mark} {url}{after}" for url in listed)
            if count > len(listed):  # the report counts them all
                lines.append(f"    and {count - len(listed):,} more {kind}")
    if len(changed) > RENDERED_SHOWN:
        more = len(changed) - RENDERED_SHOWN
        lines.append(f"  ... and {more:,} more pages (the report's rendered list)")
    return lines
