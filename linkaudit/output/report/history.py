"""The report's history, with an audit database (``--db``): the
``history`` section (the site's audits, this one last), each broken URL's
``broken_since`` and ``audits_broken``, each page's ``broken_links_since``
and ``audits_with_broken_links`` (the run rule: ``linkaudit/rules/history.py``).

The state's :meth:`~linkaudit.state.base.AuditState.past` gives what the
earlier audits left; :class:`AuditHistory` sees the entries as the report
is written and, once it is, hands the state what to keep (:meth:`kept`).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, cast

from linkaudit.items import Outcome, UrlResult
from linkaudit.output.report.records import (
    ReportEntry,
)
from linkaudit.rules.history import Runs, extend, open_after
from linkaudit.state.base import AuditCounts, AuditRecord, Entry, Past

COUNTS: tuple[str, ...] = ("urls", "pages", "requests", "ok", "redirect", "broken", "blocked")
COUNTS += ("excluded", "unchecked")


class AuditHistory:
    """One audit's history, built as its report is written."""

    def __init__(self, past: Past, started_at: str) -> None:
        self.past = past
        self.started_at = started_at
        self.broken: Runs = {}  # the runs of the URLs broken now
        self.carrying: Runs = {}  # the runs of the pages carrying broken links now
        self.carriers: set[str] = set()  # the pages carrying broken links now
        self.checked: set[str] = set()  # URLs of earlier runs checked now
        self.record: AuditRecord | None = None

    def see(self, entry: Entry, result: UrlResult | None) -> None:
        """One entry of the report's one pass (``sections.Sections.read``),
        ``result`` as the report shows it, before any entry is written:
        which pages carry broken links (a page's entry may come before its
        broken link's, in URL order)."""
        if result is not None and result.outcome == Outcome.BROKEN:
            self.carriers.update(page for page, _ in entry.referrers)

    def mark(self, item: ReportEntry) -> None:
        """Add the run fields to ``item``, an entry as the report shows it."""
        url, outcome = item["url"], item["outcome"]
        past = self.past
        if outcome != "unchecked" and url in past.broken:
            self.checked.add(url)
        if outcome == "broken":
            run = self.broken[url] = extend(past.broken.get(url), self.started_at)
            item["broken_since"], item["audits_broken"] = run
        if url in self.carriers and item.get("page") is not None:
            run = self.carrying[url] = extend(past.carrying.get(url), self.started_at)
            item["broken_links_since"], item["audits_with_broken_links"] = run

    def section(self, head: dict[str, Any], fixed: int, new: int) -> list[AuditRecord]:
        """The ``history`` section, given the report's ``head`` (all but its
        entries) and how many keys are ``fixed`` and ``new`` since the
        previous finished audit."""
        summary = head["summary"]
        started, finished = head["started_at"], head["finished_at"]
        self.record = {
            "started_at": started,
            "finished_at": finished,
            "seconds": _seconds(started, finished),
            "finish_reason": head["finish_reason"],
            "complete": head["complete"],
            "summary": cast(AuditCounts, {name: summary[name] for name in COUNTS}),
            "new": new,
            "fixed": fixed,
        }
        return [*self.past.audits, self.record]

    def kept(self) -> tuple[AuditRecord, Runs, Runs]:
        """What the state keeps once the report is written: the record and
        the runs open after this audit."""
        assert self.record is not None, "the report's history section was not built"
        complete, past, checked = self.record["complete"], self.past, self.checked
        return (
            self.record,
            open_after(past.broken, self.broken, checked, complete),
            # a page checked by an incomplete audit may have links it left
            # unchecked: only a complete audit ends a page's run
            open_after(past.carrying, self.carrying, (), complete),
        )


def _seconds(started: str, finished: str) -> float:
    try:
        delta = datetime.fromisoformat(finished) - datetime.fromisoformat(started)
    except ValueError:
        return 0.0
    return max(0.0, round(delta.total_seconds(), 3))


# -- for a person (text, markdown): ages from this audit's start, so a report
# says the same whenever it is read (as the HTML report's "Over time")
