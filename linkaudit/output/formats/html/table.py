"""The HTML report's table of every URL: the first page of rows as HTML,
every row as JSON for the script (``assets/report.js``), which draws,
filters, searches, sorts and pages through them; a build's URLs named by
their files and linked to them (``buildlinks.py``)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from linkaudit.output.formats.common import Report
from linkaudit.output.formats.html.buildlinks import BUILD
from linkaudit.output.formats.html.parts import (
    anchor,
    badge,
    esc,
    link,
    outcome_badge,
    section,
)
from linkaudit.output.jsontext import json_escape

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


def _rank(entry: Mapping[str, Any]) -> tuple[int, str]:
    return SEVERITY.index(entry["outcome"]), entry["url"]


def table_row(entry: Mapping[str, Any]) -> dict[str, Any]:
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


def urls_section(report: Report) -> str:
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
