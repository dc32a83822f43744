"""``linkaudit history --db PATH``: the audits an audit database keeps
(``linkaudit/state/audits.py``), oldest first, as a table or, with
``--format json``, as the records of the report's ``history``."""

from __future__ import annotations

import json
import os
import sqlite3
import sys
from typing import Any

from linkaudit.command.usage import SubcommandParser
from linkaudit.output.exitstatus import EXIT_OK, EXIT_USAGE
from linkaudit.output.formats.common import shown
from linkaudit.output.jsontext import json_text
from linkaudit.state.audits import COUNTS, MAX_AUDITS, audit_records, last_site
from linkaudit.state.base import AuditRecord
from linkaudit.state.database import DatabaseError, open_database

# the table's columns after "when" and "took": the summary's counts
_HEAD: tuple[str, ...] = ("URLs", "pages", "requests", "ok", "redirect", "broken", "blocked")
_HEAD += ("excluded", "unchecked")


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
        starts, records, others, skipped = read_history(ns.db)
    except DatabaseError as exc:
        print(f"linkaudit history: error: {shown(exc)}", file=sys.stderr)
        return EXIT_USAGE
    if skipped:
        print(
            f"linkaudit history: {skipped} rows of {shown(ns.db)} skipped: "
            "not as linkaudit writes them",
            file=sys.stderr,
        )
    if others:
        print(
            f"linkaudit history: {shown(ns.db)} also holds audits of {others} other "
            f"site{'s' if others > 1 else ''}; shown: the one audited last",
            file=sys.stderr,
        )
    if ns.format == "json":
        # as the report writes JSON: C1 and bidi controls as \u escapes
        print(json_text(records, indent=1))
    else:
        # as many rows read as the bound: the database may hold more
        print(history_table(starts, records, ns.db, len(records) + skipped >= MAX_AUDITS))
    return EXIT_OK


def read_history(path: str) -> tuple[list[str], list[AuditRecord], int, int]:
    """The start URLs of the site audited last in the database ``path``, its
    last ``MAX_AUDITS`` audits' records (oldest first), how many other sites
    it holds, and how many rows were skipped (not as linkaudit writes them).
    A missing file is an error, not a new database; so is a table that
    cannot be read."""
    if not os.path.isfile(path):
        what = "is not a file" if os.path.exists(path) else "no such file"
        raise DatabaseError(f"{path}: {what}")
    conn = open_database(path)
    try:
        starts, others = last_site(conn)
        if starts is None:
            return [], [], 0, 0
        records, skipped = audit_records(conn, starts)
    except sqlite3.Error as exc:
        raise DatabaseError(f"{path}: its audits cannot be read ({exc})") from None
    finally:
        conn.close()
    return _urls(starts), records, others, skipped


def _urls(starts: Any) -> list[str]:
    """The site's start URLs as ``runs`` keeps them (a JSON list), or the
    text as it is when it is not one."""
    try:
        urls = json.loads(starts)
    except (TypeError, ValueError, RecursionError):
        return [str(starts)]
    if isinstance(urls, list) and all(isinstance(u, str) for u in urls):
        return urls
    return [str(starts)]


def history_table(
    starts: list[str], records: list[AuditRecord], path: str, capped: bool = False
) -> str:
    """The records as a table for a person, a line per audit (``capped``:
    the last ``MAX_AUDITS`` rows were read, there may be more)."""
    if not records:
        return f"No finished audit in {shown(path)} yet."
    head = ("started (UTC)", "took", *_HEAD, "new", "fixed", "finished")
    rows: list[tuple[str, ...]] = [head]
    for r in records:
        summary = r["summary"]
        # what the database holds is shown as every format shows a value from
        # elsewhere: a terminal escape in it as \x1b, a bidi override as \u202e
        reason = shown(r["finish_reason"]) + ("" if r["complete"] else ", incomplete")
        when = shown(r["started_at"].replace("T", " ")[:19])
        counts = (str(summary[name]) for name in COUNTS)
        rows.append((when, _took(r["seconds"]), *counts, str(r["new"]), str(r["fixed"]), reason))
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    more = f", of the last {MAX_AUDITS} kept" if capped else ""
    lines = [f"Audits of {shown(' '.join(starts))} ({len(records)}{more}):"]
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
