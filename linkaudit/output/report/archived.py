"""A broken entry's archived copy (``--archive``), as the report shows it."""

from __future__ import annotations

from linkaudit.output.report.records import (
    ReportEntry,
)
from linkaudit.rules.memento import robust_link
from linkaudit.state.base import KeptRecord


def archived(item: ReportEntry, record: KeptRecord | None) -> int:
    """A broken entry's ``archived`` copy (--archive), with its Robust Links
    markup; none: ``archived`` null and ``archive_note`` says why.  Returns
    1 when a copy was found.  ``record``: the state's (``note_archived``),
    read back from SQLite or Redis, so a plain dict read defensively here:
    what leaves is an ``ArchivedCopy``."""
    if record and record.get("url") and isinstance(record["url"], str):
        date = str(record.get("date") or "")
        item["archived"] = {
            "url": record["url"],
            "date": date,
            "markup": robust_link(item["url"], record["url"], date),
        }
        return 1
    item["archived"] = None
    note = record.get("note") if record else None
    item["archive_note"] = str(note) if note else "not looked up: the audit ended first"
    return 0
