"""The words every output says a finding in, in one place: the report's
builders, the formats (text, markdown, SARIF, HTML) and the notifications
take them from here, so a finding reads the same wherever it is shown.

- a template group: ``in the site template (footer), on 487 pages
  (first: /, /about, /blog/ and 484 more)``;
- how long a link has been broken: ``broken for 12 days, 5 audits``, and
  the trend in one line;
- a redirect to fix: ``page line L: replace X with Y (301, permanent)``;
- an internal error of ours, told apart from the link's own failure.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from linkaudit.items import Outcome
from linkaudit.output.report.records import RedirectFix, Report, ReportEntry, TemplateGroup
from linkaudit.rules.statuses import INTERNAL_ERROR
from linkaudit.rules.templates import RUN, RUNS


# -- template groups ------------------------------------------------------------------
def block_name(block: str) -> str:
    """A template block in words: ``footer``, ``a repeated run of links``."""
    if block == RUNS or block.startswith(RUN):
        return "a run of links repeated on pages"
    return block


def group_text(group: TemplateGroup, first: int = 3) -> str:
    """``in the site template (footer), on 487 pages (first: /, /about,
    /blog/ and 484 more)``."""
    pages = list(dict.fromkeys(r["url"] for r in group["referrers"]))
    return (
        f"in the site template ({block_name(group['block'])}), on {group['pages']} pages "
        f"(first: {', '.join(pages[:first])}{and_more(len(pages) - first)})"
    )


def and_more(left: int) -> str:
    """`` and 484 more`` after the first items of a list cut for length
    ("" when none is left out)."""
    return f" and {left:,} more" if left > 0 else ""


# -- for a person (text, markdown): ages from this audit's start, so a report
# says the same whenever it is read (as the HTML report's "Over time")
def age(since: str, now: str) -> str | None:
    """``12 days``, ``5 hours``, ``under an hour``; None: not ISO 8601."""
    try:
        seconds = (datetime.fromisoformat(now) - datetime.fromisoformat(since)).total_seconds()
    except (TypeError, ValueError):
        return None
    for unit, size in (("day", 86400), ("hour", 3600)):
        if seconds >= size:
            n = int(seconds // size)
            return f"{n} {unit}{'s' * (n != 1)}"
    return "under an hour"


def broken_for(entry: ReportEntry, started_at: str, stamp: Callable[[str], str] = str) -> str:
    """``broken for 12 days, 5 audits`` beside a URL broken in more than one
    audit (the report started at ``started_at``); "" otherwise (new, or no
    ``--db``).  A stamp that is not a time is said as ``stamp`` says it (a
    format's way of showing a value from elsewhere)."""
    since, audits = entry.get("broken_since"), entry.get("audits_broken")
    if not isinstance(since, str) or not isinstance(audits, int) or audits < 2:
        return ""
    return f"broken {_for(since, started_at, stamp)}, {audits} audits"


def _for(since: str, now: str, stamp: Callable[[str], str]) -> str:
    took = age(since, now)
    return f"for {took}" if took else f"since {stamp(since)}"


def history_line(report: Report, last: int = 10, stamp: Callable[[str], str] = str) -> str | None:
    """The trend in one line: ``Over time (5 audits since 2026-11-12):
    broken 3, 5, 5, 2, 6`` (the last ``last`` audits); None without it."""
    history = report.get("history")
    if not history:
        return None
    # counts as numbers whatever a report read back holds (a format prints
    # them as they are, unescaped)
    shown = [str(_count(r)) for r in history[-last:]]
    more = "..., " if len(history) > last else ""
    return (
        f"Over time ({len(history)} audit{'s' * (len(history) != 1)} since "
        f"{stamp(str(history[0]['started_at'])[:10])}): broken {more}{', '.join(shown)}"
    )


def _count(record: Any) -> int | str:
    summary = record.get("summary") if isinstance(record, dict) else None
    broken = summary.get("broken") if isinstance(summary, dict) else None
    return broken if isinstance(broken, int) and not isinstance(broken, bool) else "?"


# -- redirects to fix ------------------------------------------------------------------
def fix_text(fix: RedirectFix) -> str:
    """``page line L: replace X with Y (301, permanent)``, with what to know."""
    return (
        f"{fix['page']} line {fix['line']}: replace {fix['from']} with {fix['to']} "
        f"({fix_words(fix)})"
    )


def fix_words(fix: RedirectFix) -> str:
    """``301, permanent``, with what to know (a loop, a bad end, hops)."""
    codes = " -> ".join(str(s) for s in fix["statuses"])
    notes = []
    if fix["loop"]:
        notes.append("a redirect loop: the link leads nowhere")
    elif fix["final_outcome"] != Outcome.OK:
        notes.append(f"the chain ends {fix['final_outcome']} ({fix['final_status']})")
    if fix["hops"] > 1:
        notes.append(f"{fix['hops']} hops")
    tail = f"; {', '.join(notes)}" if notes else ""
    return f"{codes}, {fix['kind']}{tail}"


# -- internal errors -------------------------------------------------------------------
def is_internal_error(entry: ReportEntry) -> bool:
    return (entry.get("error") or "").startswith(INTERNAL_ERROR + ":")
