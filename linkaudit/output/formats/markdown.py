"""The report as markdown, for a pull-request comment and the GitHub
Action's job summary: what to act on first, each finding one table row
however many pages link to it, the whole within a size (``--max-bytes``:
GitHub refuses a comment over 65,536 characters).

Every value that came from a page or a server (a URL, an error, a fragment,
a template block, a page's file) is a code span: GitHub renders it as text,
never as markup, an image, a link, a heading, a table cell or an @mention
(an href may well be ``<img src=...>`` or ``@org/team``: invalid and
non-http hrefs are reported as written, and GitHub autolinks bare URLs and
mentions even in plain text, never in code).  Its invisible characters are
escaped first (:func:`shown`), so a newline cannot end a table row or a
list item either."""

from __future__ import annotations

import re
from typing import Any

from linkaudit.items import OUTCOMES, FixKind, Outcome
from linkaudit.output.formats.builds import (
    NOT_PAGES,
    SYMLINKS_OUT,
    build_line,
    not_pages,
    orphans,
    symlink_words,
    symlinks_out,
)
from linkaudit.output.formats.common import (
    RENDERED_SHOWN,
    Report,
    app_shells,
    broken_urls,
    ending,
    groups_by_target,
    missing_fragments,
    no_line,
    outside_root,
    place_lines,
    places_of,
    plural,
    rendered,
    shown,
    walled,
)
from linkaudit.output.formats.naming import for_reading
from linkaudit.output.formats.offline import offline_line
from linkaudit.output.formats.places import (
    DEFAULT,
    Options,
    fix_place,
    source_place,
    unmapped,
    written,
)
from linkaudit.output.report.records import (
    Place,
    RedirectFix,
    RenderedPage,
    ReportEntry,
    SuggestionRecord,
    TemplateGroup,
)
from linkaudit.output.words import and_more, block_name, broken_for, fix_words, history_line
from linkaudit.rules.suggest import WHY, suggestion_target
from linkaudit.rules.templates import RUN

_TICKS = re.compile("`+")
# A template block as rules/html/landmarks.py names it (``footer``,
# ``div#menu``, ``div[role=navigation]``): plain words; anything else (a
# report from elsewhere) is a value like the others.
_SIGNATURE = re.compile(r"[a-z][a-z0-9-]*(?:[#.][a-z]+|\[role=[a-z]+\])?")


def code(value: Any) -> str:
    """``value`` as an inline code span, whatever it holds: its fence is
    one backtick longer than its longest run of backticks (so none of them
    closes it), with a space inside each end when it starts or ends with a
    backtick or a space (CommonMark strips one space from each end)."""
    text = shown(value)
    if not text.strip(" "):
        return f"`{text or ' '}`"  # spaces only: kept as they are
    fence = "`" * (max(map(len, _TICKS.findall(text)), default=0) + 1)
    pad = " " if text[0] in "` " or text[-1] in "` " else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def cell(markdown: str) -> str:
    """Markdown for a table cell: GFM splits a row at every unescaped ``|``
    before it reads code spans, and unescapes ``\\|`` in them."""
    return markdown.replace("|", "\\|")


def where(referrer: Place) -> str:
    """common.where in markdown: ``page`` line 12, a local build's file
    first, through a redirect: ``page`` line 7, through ``old``."""
    line = referrer["line"]
    at = f" line {line}" if line is not None else f" ({no_line(referrer)})"
    via = f", through {code(referrer['via'])}" if referrer.get("via") else ""
    more = written(referrer, code) + unmapped(referrer, code) + via
    if referrer.get("file"):  # a build's page: its file, its deployed URL beside
        also = referrer.get("deployed") or (
            referrer["url"] if referrer["url"] != referrer["file"] else None
        )
        place = (
            code(f"{referrer['file']}:{line}") if line is not None else code(referrer["file"]) + at
        )
        # its source first, when it has one: the line a person edits
        sourced = source_place(referrer, place + (f", {code(also)}" if also else ""), code)
        return (sourced or place + (f" ({code(also)})" if also else "")) + more
    return code(referrer["url"]) + at + more


def target(entry: ReportEntry, fragment: str | None = None) -> str:
    """common.target in markdown: ``public/x.html`` (``https://example.com/x.html``)."""
    mark = "" if fragment is None else f"#{fragment}"
    deployed = entry.get("deployed")
    return code(f"{entry['url']}{mark}") + (f" ({code(deployed + mark)})" if deployed else "")


def group_words(group: TemplateGroup, first: int = 3) -> str:
    """groups.group_text in markdown."""
    pages = list(dict.fromkeys(r["url"] for r in group["referrers"]))
    block = group.get("block") or ""
    plain = block.startswith(RUN) or _SIGNATURE.fullmatch(block)
    name = block_name(block) if plain else code(block)
    return (
        f"in the site template ({name}), on {group['pages']} pages "
        f"(first: {', '.join(code(p) for p in pages[:first])}{and_more(len(pages) - first)})"
    )


def as_markdown(report: Report, options: Options = DEFAULT) -> str:
    """What to act on first (new broken links, broken links and missing
    fragments, links to update, what was fixed), each finding one row
    however many pages link to it, within ``options.max_bytes``: whole
    rows, then ``and N more: see the report``."""
    report = for_reading(report)  # a build's pages and targets by their files
    s = report["summary"]
    page = _Page(options.max_bytes, options.report)
    offline = offline_line(report, code)  # a machine that seems offline: said first
    if offline:
        page.add([f"**{offline}**", ""])
    page.add(_head(report))
    trend = history_line(report, stamp=code)  # --db: the audits kept
    if trend:
        page.add(["", trend])
    limit = options.max_referrers
    by_target = groups_by_target(report)
    broken = broken_urls(report)
    broken.sort(key=lambda u: not u.get("new"))  # stable: URL order within
    rows = [_broken_row(u, by_target, report, limit) for u in broken]
    for u, gap in missing_fragments(report):
        places = places_of(gap["referrers"], None, {}, where, limit=limit, more=_more)
        named = cell(target(u, gap["fragment"]))
        new = "new: " if gap.get("new") else ""
        rows.append(
            f"| {named} | {new}missing fragment: no such anchor on the page | {_linked(places)} |"
        )
    page.table(["", "| broken URL | error | linked from |", "| --- | --- | --- |"], rows)
    rows = [_wall_row(wall, u, limit) for wall, urls in walled(report) for u in urls]
    page.table(
        ["", f"#### Behind bot walls, not verified ({len(rows)})", ""]
        + ["not broken: the wall answered in the page's place; open them in a browser", ""]
        + ["| URL | wall | linked from |", "| --- | --- | --- |"],
        rows,
    )
    fixes: dict[str, list[RedirectFix]] = {}
    for fix in report.get("redirect_fixes") or ():
        if fix["kind"] == FixKind.PERMANENT:
            fixes.setdefault(fix["from"], []).append(fix)
    rows = [_fix_row(chosen, limit) for chosen in fixes.values()]
    page.table(
        ["", f"#### Links to update ({len(rows)})", ""]
        + ["| link | replace with | linked from |", "| --- | --- | --- |"],
        rows,
    )
    for head, rows in _build_tables(report):
        page.table(["", head, ""], rows)
    shells, pages = app_shells(report)
    if shells:
        rows = [f"- {target(u)}: {code(u['app_shell'])}" for u in pages]
        page.table(["", f"#### {shells}", ""], rows)
    words, changed, _failures = rendered(report)  # (failures: each a warning, below)
    if changed:
        rows = [_rendered_row(r) for r in changed[:RENDERED_SHOWN]]
        page.table(["", f"#### {words}", ""], rows)
        if len(changed) > RENDERED_SHOWN:
            more = len(changed) - RENDERED_SHOWN
            page.add(["", f"and {more:,} more pages (the report's rendered list)"])
    elif words:
        page.add(["", words])
    fixed = report.get("fixed") or []
    page.table(
        ["", f"#### Fixed since the baseline ({len(fixed)})", ""], [f"- {code(u)}" for u in fixed]
    )
    if s.get("internal_errors"):
        errors = f"Internal errors: {s['internal_errors']} URLs not checked (a bug: see the log)."
        page.add(["", errors])
    return page.text()


def _head(report: Report) -> list[str]:
    """The title that says it all, the audit in a sentence, the counts."""
    s = report["summary"]
    state = ending(report, code)  # a reason read back may be any text
    title = f"### linkaudit: {plural(s['broken'], 'broken link')}"
    if "fixed" in report:
        new = sum(1 for u in report["urls"] if u["outcome"] == Outcome.BROKEN and u.get("new"))
        title += f" ({new:,} new, {len(report['fixed']):,} fixed)"
    if s.get("missing_fragments"):
        title += f", {plural(s['missing_fragments'], 'missing fragment')}"
    update = len(
        {f["from"] for f in report.get("redirect_fixes") or () if f["kind"] == FixKind.PERMANENT}
    )
    if update:
        title += f", {plural(update, 'link')} to update"
    if s.get("internal_errors"):
        title += f", {plural(s['internal_errors'], 'internal error')} (exit 4)"
    starts = ", ".join(map(code, report["start_urls"]))
    first = build_line(report, code)  # a build's: what was read, where it started
    lines = [
        title,
        *(["", first + "."] if first else []),
        "",
        f"{plural(s['urls'], 'URL')} checked from {starts}: {state}.",
        "",
        "| " + " | ".join(OUTCOMES) + " |",
        "|" + " --- |" * len(OUTCOMES),
        "| " + " | ".join(str(s[o]) for o in OUTCOMES) + " |",
    ]
    at = len(lines) - 5  # the line that says the audit in a sentence
    if "missing_fragments" in s:
        lines[at] += f" Missing fragments: {s['missing_fragments']}."
    sitemap = report.get("sitemap")
    if sitemap:
        lines[at] += (
            f" Sitemap: {sitemap['urls']} URLs; {len(sitemap['broken'])} broken, "
            f"{len(sitemap['redirects'])} redirecting, {len(sitemap['orphans'])} linked from "
            f"no page, {len(sitemap['missing'])} site pages not in it."
        )
        if sitemap.get("skipped"):
            lines[at] += f" Sitemaps not read (a bound of sitemaps): {len(sitemap['skipped'])}."
    if s.get("urls_dropped"):
        lines[at] += f" URLs not checked past --max-urls: {s['urls_dropped']}."
    own = outside_root(report)
    if own:
        lines[at] += f" Excluded on the site's host outside --root-url (--skip-far): {own}."
    if s.get("links_dropped"):
        lines[at] += f" Links not read on pages over LINKAUDIT_PAGE_MAXLINKS: {s['links_dropped']}."
    walls = s.get("walls") or {}
    if walls:
        named = ", ".join(f"{code(wall)} {n}" for wall, n in walls.items())
        lines[at] += f" Behind bot walls (not verified, not broken): {named}."
    if s.get("soft_404"):
        lines[at] += f" Soft 404s (pages that answer 200 but are error pages): {s['soft_404']}."
    return lines


def _broken_row(
    u: ReportEntry, by_target: dict[str, list[TemplateGroup]], report: Report, limit: int | None
) -> str:
    places = place_lines(u, by_target, say=where, say_group=group_words, limit=limit, more=_more)
    error = code(u["error"]) if u["error"] else ""
    if u.get("new"):
        error = f"new: {error}"
    if u.get("suggestion"):  # did you mean `URL`? (a typo)
        error += f"; {_suggested(u['suggestion'], u['url'])}"
    since = broken_for(u, report["started_at"], stamp=code)  # --db
    error += f" ({since})" if since else ""
    error += _archived(u)
    return f"| {cell(target(u))} | {cell(error)} | {_linked(places)} |"


def _wall_row(wall: str, u: ReportEntry, limit: int | None) -> str:
    """A URL a bot wall answered for: the wall and what it answered."""
    places = place_lines(u, {}, say=where, say_group=group_words, limit=limit, more=_more)
    status = f" ({code(u['status'])})" if u.get("status") is not None else ""
    return f"| {cell(target(u))} | {cell(code(wall) + status)} | {_linked(places)} |"


def _build_tables(report: Report) -> list[tuple[str, list[str]]]:
    """A build's own findings, each a heading and its rows: its orphan
    pages, its files that are not pages, its symbolic links out."""
    tables = [
        (f"#### {heading} ({len(pages):,})", [f"- {target(u)}" for u in pages])
        for heading, pages in orphans(report)
    ]
    listed, count = not_pages(report)
    if count:
        rows = [f"- {code(f.get('file'))}: {code(f.get('reason'))}" for f in listed]
        if count > len(listed):
            rows.append(f"- and {count - len(listed):,} more: see the report")
        tables.append((f"#### {NOT_PAGES} ({count:,})", rows))
    found = symlinks_out(report)
    if found:
        rows = [f"- {target(u)}: {symlink_words(u, code)}" for u in found]
        tables.append((f"#### {SYMLINKS_OUT} ({len(found):,})", rows))
    return tables


def _fix_row(chosen: list[RedirectFix], limit: int | None) -> str:
    """A link to a permanent redirect, with every place that has it."""
    first = chosen[0]
    places = [fix_place(f) for f in chosen]
    words = places_of(places, None, {}, where, limit=limit, more=_more)
    to = f"{code(first['to'])} ({code(fix_words(first))})"
    return f"| {cell(code(first['from']))} | {cell(to)} | {_linked(words)} |"


class _Page:
    """Markdown within ``cap`` bytes (UTF-8): blocks and rows whole or not
    at all; what is left out is counted in a line; the last line names the
    report's file (``report``, when known)."""

    _NOTE = "and {:,} more: see the report"

    def __init__(self, cap: int, report: str | None = None) -> None:
        # a report's name can be long (a path): it never takes more than a quarter
        self.last = [""] + [f"The whole report: {code(report)}"] if report else []
        if len("\n".join(self.last).encode("utf-8", "surrogatepass")) > cap // 4:
            self.last = ["", "The whole report: the JSON report the audit wrote"]
        last = len("\n".join(self.last).encode("utf-8", "surrogatepass"))
        self.cap = cap - len(self._NOTE.format(10**12).encode()) - 2 - last  # both fit
        self.lines: list[str] = []
        self.size = 0
        self.left = 0  # rows not shown

    def add(self, lines: list[str]) -> bool:
        size = sum(len(line.encode("utf-8", "surrogatepass")) + 1 for line in lines)
        if self.left or (self.lines and self.size + size > self.cap):
            return False
        self.lines += lines
        self.size += size
        return True

    def table(self, head: list[str], rows: list[str]) -> None:
        """``head`` (a title, a table's header) with as many ``rows`` as
        fit, in order; none: no ``head`` either."""
        for i, row in enumerate(rows):
            if not self.add(head + [row] if i == 0 else [row]):
                self.left += len(rows) - i
                return

    def text(self) -> str:
        tail = ["", self._NOTE.format(self.left)] if self.left else []
        return "\n".join(self.lines + tail + self.last)


def _more(left: int) -> str:
    return f"and {left:,} more: see the report"


def _linked(places: list[str]) -> str:
    return "<br>".join(cell(place) for place in places)


def _archived(u: ReportEntry) -> str:
    """--archive: the copy readers saw, linked with its date, and the Robust
    Links markup to paste; or why there is none."""
    copy = u.get("archived")
    if copy:
        date = str(copy.get("date") or "")[:10] or "copy"
        return f"; archived copy: [{shown(date)}](<{shown(copy['url'])}>) {code(copy['markup'])}"
    if "archived" in u:
        return f"; no archived copy ({shown(u.get('archive_note') or 'not looked up')})"
    return ""


def _suggested(found: SuggestionRecord, broken: str) -> str:
    why = WHY.get(found["why"], found["why"])
    return f"did you mean {code(suggestion_target(found, broken))}? ({why})"


def _rendered_row(section: RenderedPage) -> str:
    """A rendered page whose DOM's links differ from its HTML's: how many
    only after rendering, removed by its script, and where it navigates."""
    row = (
        f"- {code(section['page'])}: {section['added_count']} only after rendering, "
        f"{section['removed_count']} removed by its script"
    )
    navigations = section["navigations"]
    if navigations:
        row += "; navigates to " + ", ".join(code(u) for u in navigations[:3])
        row += and_more(len(navigations) - 3)
    return row
