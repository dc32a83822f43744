"""The report as a markdown table, for a pull-request comment."""

from __future__ import annotations

from linkaudit.output.formats.common import (
    Report,
    broken_urls,
    groups_by_target,
    missing_fragments,
    place_lines,
    where,
)
from linkaudit.output.report import OUTCOMES


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def as_markdown(report: Report) -> str:
    s = report["summary"]
    state = "complete" if report["complete"] else f"incomplete ({report['finish_reason']})"
    lines = [
        f"### linkaudit: {s['broken']} broken link{'s' if s['broken'] != 1 else ''}",
        "",
        f"{s['urls']} URLs checked from {', '.join(report['start_urls'])}: {state}.",
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
    if broken or gaps:
        lines += ["", "| broken URL | error | linked from |", "| --- | --- | --- |"]
        by_target = groups_by_target(report)
        for u in broken:
            linked = "<br>".join(_md(line) for line in place_lines(u, by_target))
            lines.append(f"| {_md(u['url'])} | {_md(u['error'] or '')} | {linked} |")
        for u, gap in gaps:
            linked = "<br>".join(_md(where(r)) for r in gap["referrers"])
            target = _md(f"{u['url']}#{gap['fragment']}")
            lines.append(f"| {target} | missing fragment: no such anchor on the page | {linked} |")
    return "\n".join(lines)
