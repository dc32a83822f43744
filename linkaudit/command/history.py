"""``linkaudit history --db PATH``: the audits an audit database keeps
(``linkaudit/state/audits.py``), oldest first, as a table or, with
``--format json``, as the records of the report's ``history``."""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from linkaudit.command.usage import SubcommandParser
from linkaudit.output.exitstatus import EXIT_OK, EXIT_USAGE
from linkaudit.output.formats.common import shown
from linkaudit.output.jsontext import json_text
from linkaudit.state.audits import COUNTS, audit_records, sites
from linkaudit.state.database import DatabaseError, open_database

# the table's columns after "when" and "took": the summary's counts
_HEAD = ("URLs", "pages", "requests", "ok", "redirect", "broken", "blocked", "excluded")
_HEAD += ("unchecked",)


def history_main(argv: list[str]) -> int:
    """``linkaudit history``: print the audits kept in a database."""
    p = SubcommandParser(
        prog="linkaudit history",
        description="Print the finished audits an audit database (--db) keeps, oldest first: "
        "of the site audited last, when the database holds several.",
    )
    p.add_argument("--db", metavar="PATH", required=True, help="the audit database")
    p.add_argument("--format", choices=("text", "json"), default="text", help="printed on stdout")
    ns = p.parse_args(argv)
    try:
        starts, records, others = read_history(ns.db)
    except DatabaseError as exc:
        print(f"linkaudit history: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if others:
        print(
            f"linkaudit history: {ns.db} also holds audits of {others} other "
            f"site{'s' if others > 1 else ''}; shown: the one audited last",
            file=sys.stderr,
        )
    if ns.format == "json":
        # as the report writes JSON: C1 and bidi controls as \u escapes
        print(json_text(records, indent=1))
    else:
        print(history_table(starts, records, ns.db))
    return EXIT_OK


def read_history(path: str) -> tuple[list[str], list[dict[str, Any]], int]:
    """The start URLs of the site audited last in the database ``path``, its
    audits' records (oldest first) and how many other sites it holds.  A
    missing file is an error, not a new database."""
    if not os.path.isfile(path):
        what = "is not a file" if os.path.exists(path) else "no such file"
        raise DatabaseError(f"{path}: {what}")
    conn = open_database(path)
    try:
        known = sites(conn)
        if not known:
            return [], [], 0
        return json.loads(known[-1]), audit_records(conn, known[-1]), len(known) - 1
    finally:
        conn.close()


def history_table(starts: list[str], records: list[dict[str, Any]], path: str) -> str:
    """The records as a table for a person, a line per audit."""
    if not records:
        return f"No finished audit in {shown(path)} yet."
    head = ("started (UTC)", "took", *_HEAD, "new", "fixed", "finished")
    rows = [head]
    for r in records:
        summary = r["summary"]
        # what the database holds is shown as every format shows a value from
        # elsewhere: a terminal escape in it as \x1b, a bidi override as \u202e
        reason = shown(r["finish_reason"]) + ("" if r["complete"] else ", incomplete")
        when = shown(r["started_at"].replace("T", " ")[:19])
        counts = (str(summary[name]) for name in COUNTS)
        rows.append((when, _took(r["seconds"]), *counts, str(r["new"]), str(r["fixed"]), reason))
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    lines = [f"Audits of {shown(' '.join(starts))} ({len(records)}):"]
    for row in rows:
        cells = [
            cell.ljust(w) if i in (0, len(head) - 1) else cell.rjust(w)
            for i, (cell, w) in enumerate(zip(row, widths, strict=True))
        ]
        lines.append("  " + "  ".join(cells).rstrip())
    return "\n".join(lines)


def _took(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.0f} s"
    if seconds < 3600:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
