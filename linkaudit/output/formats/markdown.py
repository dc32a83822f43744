"""The report as markdown, for a pull-request comment and the GitHub
Action's job summary.

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

from linkaudit.output.formats.common import (
    Report,
    broken_urls,
    groups_by_target,
    missing_fragments,
    place_lines,
    shown,
)
from linkaudit.output.groups import block_name
from linkaudit.output.history import broken_for, history_line
from linkaudit.output.report import OUTCOMES
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


def where(referrer: dict[str, Any]) -> str:
    """common.where in markdown: ``page`` line 12, a local build's file first."""
    line = referrer["line"]
    at = f" line {line}" if line is not None else " (redirect)"
    if referrer.get("file"):
        return f"{code(referrer['file'])}{at} ({code(referrer['url'])})"
    return code(referrer["url"]) + at


def group_words(group: dict[str, Any], first: int = 3) -> str:
    """groups.group_text in markdown."""
    pages = list(dict.fromkeys(r["url"] for r in group["referrers"]))
    block = group.get("block") or ""
    plain = block.startswith(RUN) or _SIGNATURE.fullmatch(block)
    name = block_name(block) if plain else code(block)
    more = ", ..." if len(pages) > first else ""
    return (
        f"in the site template ({name}), on {group['pages']} pages "
        f"(first: {', '.join(code(p) for p in pages[:first])}{more})"
    )


def as_markdown(report: Report) -> str:
    s = report["summary"]
    state = "complete" if report["complete"] else f"incomplete ({report['finish_reason']})"
    lines = [
        f"### linkaudit: {s['broken']} broken link{'s' if s['broken'] != 1 else ''}",
        "",
        f"{s['urls']} URLs checked from {', '.join(map(code, report['start_urls']))}: {state}.",
        "",
        "| " + " | ".join(OUTCOMES) + " |",
        "|" + " --- |" * len(OUTCOMES),
        "| " + " | ".join(str(s[o]) for o in OUTCOMES) + " |",
    ]
    broken = broken_urls(report)
    gaps = missing_fragments(report)
    if "missing_fragments" in s:
        lines[2] += f" Missing fragments: {s['missing_fragments']}."
    sitemap = report.get("sitemap")
    if sitemap:
        lines[2] += (
            f" Sitemap: {sitemap['urls']} URLs; {len(sitemap['broken'])} broken, "
            f"{len(sitemap['redirects'])} redirecting, {len(sitemap['orphans'])} linked from "
            f"no page, {len(sitemap['missing'])} site pages not in it."
        )
        if sitemap.get("skipped"):
            lines[2] += f" Sitemaps not read (a bound of sitemaps): {len(sitemap['skipped'])}."
    if s.get("urls_dropped"):
        lines[2] += f" URLs not checked past --max-urls: {s['urls_dropped']}."
    if s.get("links_dropped"):
        lines[2] += f" Links not read on pages over LINKAUDIT_PAGE_MAXLINKS: {s['links_dropped']}."
    if s.get("soft_404"):
        lines[2] += f" Soft 404s (pages that answer 200 but are error pages): {s['soft_404']}."
    trend = history_line(report, stamp=code)  # --db: the audits kept
    if trend:
        lines += ["", trend]
    if broken or gaps:
        lines += ["", "| broken URL | error | linked from |", "| --- | --- | --- |"]
        by_target = groups_by_target(report)
        for u in broken:
            places = place_lines(u, by_target, say=where, say_group=group_words)
            error = code(u["error"]) if u["error"] else ""
            if u.get("suggestion"):  # did you mean `URL`? (a typo)
                error += f"; {_suggested(u['suggestion'], u['url'])}"
            since = broken_for(u, report["started_at"], stamp=code)  # --db
            error += f" ({since})" if since else ""
            lines.append(f"| {cell(code(u['url']))} | {cell(error)} | {_linked(places)} |")
        for u, gap in gaps:
            places = [where(r) for r in gap["referrers"]]
            target = cell(code(f"{u['url']}#{gap['fragment']}"))
            lines.append(
                f"| {target} | missing fragment: no such anchor on the page | {_linked(places)} |"
            )
    return "\n".join(lines)


def _linked(places: list[str]) -> str:
    return "<br>".join(cell(place) for place in places)


def _suggested(found: dict[str, Any], broken: str) -> str:
    why = WHY.get(found["why"], found["why"])
    return f"did you mean {code(suggestion_target(found, broken))}? ({why})"
