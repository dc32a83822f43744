"""The HTML report's "Over time" section, from what an audit with ``--db``
adds to the report: the trend chart (``history``: :mod:`html_chart`) with
its figures as a table, the URLs broken the longest (``broken_since``,
``audits_broken``) and the pages carrying broken links the longest
(``broken_links_since``, ``audits_with_broken_links``); and "broken for
12 days, 5 audits" beside each broken link (:func:`broken_for`).

Ages are counted from this audit's start, not from the clock when the
page is read: the report says the same thing whenever it is opened."""

from __future__ import annotations

import heapq
from datetime import datetime
from typing import Any

from linkaudit.items import Outcome
from linkaudit.output.formats.common import Report
from linkaudit.output.formats.html.chart import chart, figures, when
from linkaudit.output.formats.html.parts import count, esc, link, section
from linkaudit.output.report.records import AuditRecord, ReportEntry
from linkaudit.output.words import age

LONGEST = 10  # URLs (and pages) in the "longest broken" lists
CHART_LIMIT = 100  # the most recent audits drawn: past this the points crowd


def _run(since: str, audits: int, now: str) -> str:
    """``for 12 days, 5 audits`` (since when on hover); ``since STAMP, 5
    audits`` when the stamp is not a time."""
    times = f"{audits} audit{'s' * (audits != 1)}"
    took = age(since, now)
    if took is None:
        return f"since {esc(since)}, {times}"
    return (
        f'for <time datetime="{esc(since)}" title="since {esc(when(since))} UTC">'
        f"{took}</time>, {times}"
    )


def broken_for(entry: ReportEntry, report: Report) -> str:
    """Beside a broken link: ``broken for 12 days, 5 audits``, or ``new``
    in the first audit that found it broken; "" without ``--db``."""
    since, audits = entry.get("broken_since"), entry.get("audits_broken")
    if since is None or audits is None:
        return ""
    words = "new" if audits <= 1 else "broken " + _run(since, audits, report["started_at"])
    return (
        f' <span class="since" data-broken-since="{esc(since)}"'
        f' data-audits-broken="{audits}">· {words}</span>'
    )


def _oldest(entries: list[dict[str, Any]], key: str) -> list[dict[str, Any]]:
    """The LONGEST entries whose ``key`` stamp is oldest (then the longest
    run of audits, then by URL); stamps that are not times last.  A few
    audits' start times stand for thousands of entries: each is read once."""
    moments: dict[str, tuple[bool, float, str]] = {}

    def moment(stamp: str) -> tuple[bool, float, str]:
        if stamp not in moments:
            try:
                moments[stamp] = False, datetime.fromisoformat(stamp).timestamp(), ""
            except (TypeError, ValueError):
                moments[stamp] = True, 0.0, str(stamp)
        return moments[stamp]

    runs = "audits_broken" if key == "broken_since" else "audits_with_broken_links"
    return heapq.nsmallest(
        LONGEST, entries, key=lambda u: (moment(u[key]), -(u.get(runs) or 1), u["url"])
    )


def _more(total: int) -> str:
    if total <= LONGEST:
        return ""
    return f'<p class="note">The {LONGEST} oldest of {total}: the JSON report has them all.</p>'


def _longest_urls(report: Report) -> str:
    chosen = [
        u
        for u in report["urls"]
        if u["outcome"] == Outcome.BROKEN
        and u.get("broken_since")
        and (u.get("audits_broken") or 0) > 1
    ]
    now = report["started_at"]
    items = "".join(
        f'<li data-url="{esc(u["url"])}" data-broken-since="{esc(u["broken_since"])}"'
        f' data-audits-broken="{u["audits_broken"]}">{link(u["url"])}'
        f' <span class="since">broken {_run(u["broken_since"], u["audits_broken"], now)},'
        f" linked {u['referrer_count']} time{'s' * (u['referrer_count'] != 1)}</span></li>"
        for u in _oldest(chosen, "broken_since")
    )
    text = f'<ol class="plain">{items}</ol>' if items else "<p>None: each is new this audit.</p>"
    return section("longest", "Broken the longest", len(chosen), text + _more(len(chosen)), 3)


def _longest_pages(report: Report) -> str:
    chosen = [u for u in report["urls"] if u.get("broken_links_since")]
    if not chosen:
        return ""
    oldest = _oldest(chosen, "broken_links_since")
    carried = dict.fromkeys((u["url"] for u in oldest), 0)  # their broken links
    for u in report["urls"]:
        if u["outcome"] == Outcome.BROKEN:
            for page in {r["url"] for r in u["referrers"]}.intersection(carried):
                carried[page] += 1
    now = report["started_at"]
    items = "".join(
        f'<li data-url="{esc(u["url"])}" data-broken-links-since="{esc(u["broken_links_since"])}"'
        f' data-audits-with-broken-links="{u.get("audits_with_broken_links") or 1}">'
        f'{link(u["url"])} <span class="since">carries {carried[u["url"]]} broken'
        f" link{'s' * (carried[u['url']] != 1)}, "
        f"{_run(u['broken_links_since'], u.get('audits_with_broken_links') or 1, now)}"
        "</span></li>"
        for u in oldest
    )
    text = f'<ol class="plain">{items}</ol>{_more(len(chosen))}'
    return section("longest-pages", "Pages with broken links the longest", len(chosen), text, 3)


def _figures_table(history: list[AuditRecord]) -> str:
    """The chart's figures (and a little more) as a table, folded."""
    rows = "".join(
        f'<tr><td>{esc(when(r["started_at"]))}</td><td class="num">{f["broken"]}</td>'
        f'<td class="num">{f["new"]}</td><td class="num">{f["fixed"]}</td>'
        f'<td class="num">{esc(r["summary"].get("urls", ""))}</td>'
        f"<td>{'complete' if r.get('complete') else 'incomplete'}"
        f" ({esc(r.get('finish_reason'))})</td></tr>"
        for r in history
        for f in (figures(r),)
    )
    return (
        '<details><summary>The figures</summary><div class="wide"><table id="trend-table">'
        '<thead><tr><th scope="col">Audit (UTC)</th><th scope="col">Broken</th>'
        '<th scope="col">New</th><th scope="col">Fixed</th><th scope="col">URLs</th>'
        f'<th scope="col">Audit</th></tr></thead><tbody>{rows}</tbody></table></div></details>'
    )


def trend_section(report: Report) -> str:
    """The section, when the report comes from an audit with ``--db``."""
    history = report.get("history") or []
    dated = any(u.get("broken_since") or u.get("broken_links_since") for u in report["urls"])
    if not history and not dated:
        return ""
    body = ""
    if len(history) >= 2:
        shown = history[-CHART_LIMIT:]
        title = f"Broken links, new and fixed, in the last {len(shown)} audits"
        body += f'<figure class="trend">{chart(shown, title)}<figcaption>{esc(title)}'
        if len(shown) < len(history):
            body += f" (of {len(history)}: the JSON report has them all)"
        body += f"</figcaption></figure>{_figures_table(shown)}"
    elif history:
        body += "<p>The first audit this database keeps: the trend starts with the next.</p>"
    body += _longest_urls(report) + _longest_pages(report)
    audits = f"{count('audits', len(history))} audits" if history else ""
    return section("trend", "Over time", None, f"<p>{audits}</p>{body}" if audits else body)
