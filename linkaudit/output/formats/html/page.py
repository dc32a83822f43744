"""The report as one self-contained HTML page (``--format html``): the audit
at a glance, what to fix, and every URL in a table to filter, search, sort
and page through.

The page asks nothing of the network: its style and script are inline
(read from ``assets/``, package data), and so are the table's rows, as
JSON.  Without JavaScript every section is already HTML and the table shows
its first page; with it, the table is drawn from the JSON a page at a time,
so a report of 15,000 URLs opens about as fast as one of 100."""

from __future__ import annotations

from datetime import datetime
from functools import cache
from importlib.resources import files
from typing import Any

from linkaudit.items import OUTCOMES, Outcome
from linkaudit.output.formats.builds import build_line, build_of
from linkaudit.output.formats.common import Report, ending
from linkaudit.output.formats.html.buildlinks import BUILD, BuildLinks
from linkaudit.output.formats.html.builds import NAV as BUILD_NAV
from linkaudit.output.formats.html.builds import build_sections
from linkaudit.output.formats.html.findings import (
    broken_section,
    groups_section,
    other_sections,
)
from linkaudit.output.formats.html.lists import (
    redirects_section,
    sitemap_section,
    unchecked_section,
)
from linkaudit.output.formats.html.parts import count, esc, link, section
from linkaudit.output.formats.html.table import urls_section
from linkaudit.output.formats.html.trend import trend_section
from linkaudit.output.formats.naming import is_named
from linkaudit.output.formats.offline import offline_line

# The sections in the page's table of contents.
NAV = (
    ("trend", "Over time"),
    ("broken", "Broken"),
    ("fragments", "Fragments"),
    ("soft-404", "Soft 404s"),
    ("app-shells", "Built by JavaScript"),
    ("rendered", "Rendered"),
    ("warnings", "Failing"),
    *BUILD_NAV,  # a build's: orphans, files that are not pages, symbolic links out
    ("fixed", "Fixed"),
    ("groups", "Grouped"),
    ("redirects", "Redirects"),
    ("sitemap", "Sitemap"),
    ("unchecked", "Not checked"),
    ("urls", "All URLs"),
)
TOTALS = (
    ("urls", "URLs"),
    ("pages", "pages scanned"),
    ("requests", "requests"),
    ("missing_fragments", "missing fragments"),
    ("soft_404", "soft 404s"),
    ("internal_errors", "internal errors"),
    ("urls_dropped", "URLs found past --max-urls, not checked"),
    ("links_dropped", "links not read (pages over LINKAUDIT_PAGE_MAXLINKS)"),
)


@cache
def _asset(name: str) -> str:
    return (files("linkaudit.output.formats.html") / "assets" / name).read_text("utf-8")


def as_html(report: Report, options: object = None) -> str:
    """The page; a build's pages and places link its files, relative to
    where the page is written (``options.html``; printed: the current
    directory), or its deployed URLs (``parts.BuildLinks``)."""
    links = None
    if is_named(report):
        links = BuildLinks(report["build"], getattr(options, "html", None))
    token = BUILD.set(links)
    try:
        return _page(report)
    finally:
        BUILD.reset(token)


def _page(report: Report) -> str:
    # every place of a finding is in its card already (behind <details>)
    s = report["summary"]
    build = build_of(report)  # a build: named by its folder, the first line its own
    site = (build or {}).get("directory") or ", ".join(report["start_urls"])
    plural = "s" if s["broken"] != 1 else ""
    title = f"linkaudit: {s['broken']} broken link{plural} on {site}"
    lead = build_line(report) or site
    offline = offline_line(report)  # a machine that seems offline: above everything
    alert = f'<p class="offline" role="alert">{esc(offline)}</p>' if offline else ""
    parts = {
        "summary": _summary(report),
        "trend": trend_section(report),  # with --db: the history, what is broken longest
        "broken": broken_section(report),
        **other_sections(report),  # each its own section, "" when it has nothing to say
        **build_sections(report),  # a build's own findings ("" each for a site)
        "groups": groups_section(report),  # "" when the report has none: no section
        "redirects": redirects_section(report),
        "sitemap": sitemap_section(report),
        "unchecked": unchecked_section(report),
        "urls": urls_section(report),
    }
    toc = "".join(f'<li><a href="#{key}">{words}</a></li>' for key, words in NAV if parts[key])
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="color-scheme" content="light dark">\n'
        f"<title>{esc(title)}</title>\n<style>\n{_asset('report.css')}</style>\n</head>\n"
        f'<body>\n<header class="top">{alert}<h1>linkaudit report</h1>'
        f'<p class="lead">{esc(lead)}</p>'
        f'<nav aria-label="Sections"><ul class="toc">{toc}</ul></nav></header>\n<main>\n'
        + "\n".join(part for part in parts.values() if part)
        + f"\n</main>\n<script>\n{_asset('report.js')}</script>\n</body>\n</html>\n"
    )


def _when(stamp: str) -> str:
    return f'<time datetime="{esc(stamp)}">{esc(stamp.replace("T", " "))}</time>'


def _duration(report: Report) -> str:
    """How long the audit took, in words (its seconds in ``data-seconds``)."""
    try:
        took = datetime.fromisoformat(report["finished_at"]) - datetime.fromisoformat(
            report["started_at"]
        )
    except ValueError:
        return '<span id="duration">unknown</span>'
    seconds = took.total_seconds()
    minutes, rest = divmod(round(seconds), 60)
    if minutes >= 60:
        words = f"{minutes // 60} h {minutes % 60} min"
    elif minutes:
        words = f"{minutes} min {rest} s"
    else:  # the times are to the second: "0.0 s" would say too much
        words = f"{rest} s" if rest else "under 1 s"
    return f'<span id="duration" data-seconds="{seconds:g}">{words}</span>'


def _summary(report: Report) -> str:
    """Site, when, how long, complete or not; counts per outcome with a
    proportional bar; new and fixed since the baseline."""
    s = report["summary"]
    state = "complete" if report["complete"] else "incomplete"
    # what stopped it and what is left, after the word: "complete" once,
    # "incomplete (time limit ...): 24 URLs not checked", never "complete (complete)"
    said = ending(report)
    rest = said[len(state) :] if said.startswith(state) else f" ({said})"
    more = f' <span class="muted">{esc(rest.strip())}</span>' if rest.strip() else ""
    sites = ", ".join(link(u) for u in report["start_urls"])
    facts = (
        ("Site", f'<span id="site">{sites}</span>'),
        ("Started", _when(report["started_at"])),
        ("Finished", _when(report["finished_at"])),
        ("Took", _duration(report)),
        (
            "Audit",
            f'<span id="complete" data-complete="{str(report["complete"]).lower()}">{state}</span>'
            + more,
        ),
    )
    dl = "".join(f"<div><dt>{k}</dt><dd>{v}</dd></div>" for k, v in facts)
    segments = "".join(
        f'<span class="seg o-{o}" data-segment="{o}" style="flex-grow:{esc(s[o])}"'
        f' title="{o}: {esc(s[o])}"></span>'
        for o in OUTCOMES
        if s[o]
    )
    words = ", ".join(f"{esc(s[o])} {o}" for o in OUTCOMES)
    counts = "".join(
        f'<li class="o-{o}" data-outcome="{o}"><a href="#urls" data-filter="{o}">'
        f"{count(o, s[o])} {o}</a></li>"
        for o in OUTCOMES
    )
    totals = "".join(
        f'<li data-total="{key}">{count(key, s[key])} {words_}</li>'
        for key, words_ in TOTALS
        if key in s
    )
    walls = s.get("walls") or {}
    if walls:  # unchecked behind bot walls: apart, under "Not checked"
        totals += (
            f'<li data-total="walls">{count("walls", sum(walls.values()))} '
            '<a href="#walls-list">behind bot walls</a>, not verified, not broken</li>'
        )
    body = (
        f'<dl class="facts">{dl}</dl>'
        f'<div class="bar" role="img" aria-label="{words}">{segments}</div>'
        f'<ul class="counts">{counts}</ul><ul class="totals">{totals}</ul>'
    )
    if "baseline" in report:
        broken = [u for u in report["urls"] if u["outcome"] == Outcome.BROKEN]
        new = sum(bool(u.get("new")) for u in broken)
        body += (
            f'<p id="baseline">Since the baseline <code>{esc(report["baseline"])}</code>:'
            f" {count('new', new)} new broken, {count('still', len(broken) - new)} still"
            f" broken, {count('fixed', len(report.get('fixed') or ()))} fixed.</p>"
        )
    return section("summary", "At a glance", None, body + _get_only(s.get("get_only_hosts")))


def _get_only(hosts: list[dict[str, Any]] | None) -> str:
    """The hosts checked with GET only, and what showed that their HEAD
    answers are no hint (``summary.get_only_hosts``)."""
    if not hosts:
        return ""
    items = "".join(
        f'<li data-host="{esc(h["host"])}"><code>{esc(h["host"])}</code>'
        + (f": {esc(h['reason'])} for {link(h['url'])}" if "reason" in h and "url" in h else "")
        + "</li>"
        for h in hosts
    )
    return (
        f'<div id="get-only"><p>Checked with GET only ({count("get_only", len(hosts))} hosts):'
        f" their GET answers contradicted their HEAD answers.</p><ul>{items}</ul></div>"
    )
