"""The report as one self-contained HTML page (``--format html``): the audit
at a glance, what to fix, and every URL in a table to filter, search, sort
and page through.

The page asks nothing of the network: its style and script are inline
(read from ``assets/``, package data), and so are the table's rows, as
JSON.  Without JavaScript every section is already HTML and the table shows
its first page; with it, the table is drawn from the JSON a page at a time,
so a report of 15,000 URLs opens about as fast as one of 100."""

from __future__ import annotations

import json
from datetime import datetime
from functools import cache
from importlib.resources import files
from typing import Any

from linkaudit.output.formats.common import Report, ending
from linkaudit.output.formats.html.buildlinks import BUILD, BuildLinks
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
from linkaudit.output.formats.html.parts import (
    anchor,
    badge,
    count,
    esc,
    link,
    outcome_badge,
    section,
)
from linkaudit.output.formats.html.trend import trend_section
from linkaudit.output.formats.naming import is_named
from linkaudit.output.jsontext import json_escape
from linkaudit.output.report.build import OUTCOMES

PAGE_SIZE = 100  # table rows drawn at a time (the script reads it from the data)
# The table's default order: problems first; the script sorts the same way.
SEVERITY = ("broken", "unchecked", "blocked", "redirect", "excluded", "ok")
# What the table shows of an entry (its referrers but the first stay out:
# a template link's referrer list can be most of the report's size).
ROW_KEYS = ("url", "near", "outcome", "status", "error", "location", "depth", "referrer_count")
ROW_FLAGS = ("new", "soft_404", "warning")
COLUMNS = (
    ("url", "URL"),
    ("outcome", "Outcome"),
    ("status", "Status"),
    ("", "Detail"),
    ("depth", "Depth"),
    ("referrer_count", "Links"),
    ("near", "Site"),
)
# The sections in the page's table of contents.
NAV = (
    ("trend", "Over time"),
    ("broken", "Broken"),
    ("fragments", "Fragments"),
    ("soft-404", "Soft 404s"),
    ("app-shells", "Built by JavaScript"),
    ("rendered", "Rendered"),
    ("warnings", "Failing"),
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
    site = ", ".join(report["start_urls"])
    plural = "s" if s["broken"] != 1 else ""
    title = f"linkaudit: {s['broken']} broken link{plural} on {site}"
    parts = {
        "summary": _summary(report),
        "trend": trend_section(report),  # with --db: the history, what is broken longest
        "broken": broken_section(report),
        **other_sections(report),  # each its own section, "" when it has nothing to say
        "groups": groups_section(report),  # "" when the report has none: no section
        "redirects": redirects_section(report),
        "sitemap": sitemap_section(report),
        "unchecked": unchecked_section(report),
        "urls": _urls_section(report),
    }
    toc = "".join(f'<li><a href="#{key}">{words}</a></li>' for key, words in NAV if parts[key])
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="color-scheme" content="light dark">\n'
        f"<title>{esc(title)}</title>\n<style>\n{_asset('report.css')}</style>\n</head>\n"
        f'<body>\n<header class="top"><h1>linkaudit report</h1><p class="lead">{esc(site)}</p>'
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
        broken = [u for u in report["urls"] if u["outcome"] == "broken"]
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


def _rank(entry: dict[str, Any]) -> tuple[int, str]:
    return SEVERITY.index(entry["outcome"]), entry["url"]


def table_row(entry: dict[str, Any]) -> dict[str, Any]:
    """What the table shows of an entry: its columns, its flags when set,
    and its first referrer (``from``: url, line)."""
    row = {k: entry[k] for k in ROW_KEYS if entry.get(k) is not None}
    row.update({k: entry[k] for k in ROW_FLAGS if entry.get(k)})
    if entry["referrers"]:
        first = entry["referrers"][0]
        row["from"] = [first["url"], first["line"]]
    build = BUILD.get()
    if build is not None:  # a build's: named by the file, linked to it (report.js)
        if build.owns(entry["url"]):
            row["name"] = build.name(entry["url"], entry.get("file"))
            row["href"] = build.href(entry["url"], entry.get("file"))
        if "from" in row and build.owns(row["from"][0]):
            file = entry["referrers"][0].get("file")
            row["from"] += [build.name(row["from"][0], file), build.href(row["from"][0], file)]
    return row


def _row_html(row: dict[str, Any]) -> str:
    """A table row as the script draws it (report.js ``drawRow``)."""
    new = " " + badge("new", "new") if row.get("new") else ""
    new += " " + badge("soft 404", "warn") if row.get("soft_404") else ""
    detail = [esc(row.get("error"))]
    if row.get("location"):
        detail.append("→ " + link(row["location"]))
    if row.get("warning"):
        detail.append(f'<span class="warn">{esc(row["warning"])}</span>')
    if "from" in row:
        page, line = row["from"][:2]
        more = row.get("referrer_count", 1) - 1
        detail.append(
            f'<span class="from">from {_row_link(page, row["from"][2:])}'
            f"{f' line {line}' if line else ''}"
            f"{f' and {more} more' if more > 0 else ''}</span>"
        )
    near = "near" if row["near"] else "far"
    return (
        f'<tr data-url="{esc(row["url"])}" data-outcome="{esc(row["outcome"])}" data-near="{near}"'
        f'{" data-new" if row.get("new") else ""}><td class="u">'
        f"{_row_link(row['url'], _named(row))}{new}</td>"
        f"<td>{outcome_badge(row['outcome'])}</td>"
        f'<td class="num">{esc(row.get("status", ""))}</td>'
        f'<td class="detail">{" ".join(d for d in detail if d)}</td>'
        f'<td class="num">{row["depth"]}</td><td class="num">{row["referrer_count"]}</td>'
        f"<td>{near}</td></tr>"
    )


def _named(row: dict[str, Any]) -> list[Any]:
    return [row["name"], row.get("href")] if "name" in row else []


def _row_link(url: str, named: list[Any]) -> str:
    """A URL of a row: a build's by its name and its link (``table_row``)."""
    return anchor(*named) if named else link(url)


def _head(key: str, words: str) -> str:
    """A column header; the script makes the sortable ones buttons."""
    if not key:
        return f'<th scope="col">{words}</th>'
    order = "ascending" if key == "outcome" else "none"  # the default order, problems first
    return f'<th scope="col" data-sort="{key}" aria-sort="{order}">{words}</th>'


def _script_json(data: Any) -> str:
    """``data`` as JSON to put in a <script> element: "<" as \\u003c, so
    neither "</script>" nor "<!--" in a URL can end the element or change
    how the parser reads it; and what is not printable as its \\u escape
    too: the control characters HTML forbids, bidi controls (the page's
    source reads as it is), lone surrogates UTF-8 cannot write.  JSON has
    no character outside its strings that either could be."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")
    if text.isprintable():  # nearly always: one pass in C
        return text
    return "".join(c if c.isprintable() else json_escape(c) for c in text)


def _urls_section(report: Report) -> str:
    """Every URL: the controls (shown by the script), the first page of
    rows as HTML, and every row as JSON for the script."""
    s = report["summary"]
    rows = [table_row(u) for u in sorted(report["urls"], key=_rank)]
    options = f'<option value="">all ({esc(s["urls"])})</option>' + "".join(
        f'<option value="{o}">{o} ({esc(s[o])})</option>' for o in SEVERITY
    )
    no_baseline = "" if "baseline" in report else " disabled"
    controls = (
        '<div class="controls" hidden>'
        f'<label>Outcome <select id="filter-outcome">{options}</select></label>'
        '<label>Site <select id="filter-near"><option value="">near and far</option>'
        '<option value="near">near (the site)</option>'
        '<option value="far">far (elsewhere)</option></select></label>'
        f'<label><input type="checkbox" id="filter-new"{no_baseline}> new only</label>'
        '<label>Search <input type="search" id="search" placeholder="part of a URL"'
        ' autocomplete="off"></label></div>'
    )
    shown = min(PAGE_SIZE, len(rows))
    status = (
        f'<p class="shown" role="status">Showing <span id="range">{1 if shown else 0}–{shown}'
        f'</span> of <span id="shown">{len(rows)}</span> URLs</p>'
    )
    heads = "".join(_head(key, words) for key, words in COLUMNS)
    static = "".join(_row_html(r) for r in rows[:PAGE_SIZE])
    note = (
        f'<noscript><p class="note">With JavaScript off, this table shows the first'
        f" {shown} of {len(rows)} URLs, problems first; the sections above list each"
        " broken, blocked and unchecked URL (a few hundred of each at most), and the JSON"
        " report has every URL.</p></noscript>"
    )
    pager = (
        '<nav class="pager" aria-label="Table pages" hidden>'
        '<button type="button" id="prev">← Previous</button> <span id="page"></span> '
        '<button type="button" id="next">Next →</button></nav>'
    )
    data = {"page_size": PAGE_SIZE, "severity": SEVERITY, "urls": rows}
    text = _script_json(data)
    body = (
        f'{controls}{status}{note}<div class="wide"><table id="url-table"><thead><tr>{heads}'
        f'</tr></thead><tbody id="url-rows">{static}</tbody></table></div>{pager}'
        f'<script type="application/json" id="linkaudit-data">{text}</script>'
    )
    return section("urls", "All URLs", len(rows), body)
