"""The audit database's memory of finished audits (``linkaudit/state/sqlite.py``
asks it): the ``audits`` table, one row per audit with its report's
figures (``linkaudit history``, the report's ``history``), and the
``broken_runs`` table, the broken runs still open after each audit
(``linkaudit/rules/history.py``).

Both tables are keyed by the audit's row in ``runs``: an interrupted audit
that is resumed writes its row again, and reads the runs as the audit
before it left them, so it is never counted twice.  Only the runs of the
last two audits of a site are kept (the one before is what a resumed audit
reads).  A database written before these tables existed gains them, empty,
when it is opened (``CREATE TABLE IF NOT EXISTS``): its history starts with
the next audit.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from linkaudit.rules.history import Streak
from linkaudit.state.base import Past

SCHEMA = """
CREATE TABLE IF NOT EXISTS audits (
    run INTEGER PRIMARY KEY,
    start_urls TEXT NOT NULL,
    started_at TEXT NOT NULL,
    finished_at TEXT NOT NULL,
    seconds REAL NOT NULL,
    finish_reason TEXT NOT NULL,
    complete INTEGER NOT NULL,
    urls INTEGER NOT NULL,
    pages INTEGER NOT NULL,
    requests INTEGER NOT NULL,
    ok INTEGER NOT NULL,
    redirect INTEGER NOT NULL,
    broken INTEGER NOT NULL,
    blocked INTEGER NOT NULL,
    excluded INTEGER NOT NULL,
    unchecked INTEGER NOT NULL,
    new INTEGER NOT NULL,
    fixed INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS audits_by_site ON audits (start_urls, run);
CREATE TABLE IF NOT EXISTS broken_runs (
    run INTEGER NOT NULL,
    kind TEXT NOT NULL,
    url TEXT NOT NULL,
    since TEXT NOT NULL,
    audits INTEGER NOT NULL,
    PRIMARY KEY (run, kind, url)
);
"""
COUNTS = ("urls", "pages", "requests", "ok", "redirect", "broken", "blocked", "excluded")
COUNTS += ("unchecked",)
# the kinds of run: a broken URL's, a page's that carries broken links
URL, PAGE = "url", "page"


def audit_records(conn: sqlite3.Connection, starts: str, before: int | None = None) -> list[dict]:
    """The audits of the site ``starts`` (start URLs, as ``runs`` keeps them),
    oldest first, as the report's ``history`` has them: those before the run
    ``before`` (None: all)."""
    rows = conn.execute(
        "SELECT started_at, finished_at, seconds, finish_reason, complete, "
        + ", ".join(COUNTS)
        + ", new, fixed FROM audits WHERE start_urls = ? AND run < ? ORDER BY run",
        (starts, before if before is not None else 1 << 62),
    )
    return [_record(row) for row in rows]


def _record(row: tuple[Any, ...]) -> dict:
    started, finished, seconds, reason, complete, *counts = row
    return {
        "started_at": started,
        "finished_at": finished,
        "seconds": seconds,
        "finish_reason": reason,
        "complete": bool(complete),
        "summary": dict(zip(COUNTS, counts[: len(COUNTS)], strict=True)),
        "new": counts[-2],
        "fixed": counts[-1],
    }


def sites(conn: sqlite3.Connection) -> list[str]:
    """The start URLs of every site the database has audits of, the most
    recently audited last."""
    rows = conn.execute("SELECT start_urls FROM audits GROUP BY start_urls ORDER BY max(run)")
    return [row[0] for row in rows]


def past(conn: sqlite3.Connection, starts: str, run: int) -> Past:
    """The audits of the site before ``run`` and the broken runs the last of
    them left open."""
    runs: dict[str, dict[str, Streak]] = {URL: {}, PAGE: {}}
    row = conn.execute(
        "SELECT max(run) FROM audits WHERE start_urls = ? AND run < ?", (starts, run)
    ).fetchone()
    if row[0] is not None:
        for kind, url, since, audits in conn.execute(
            "SELECT kind, url, since, audits FROM broken_runs WHERE run = ?", (row[0],)
        ):
            runs.setdefault(kind, {})[url] = Streak(since, audits)
    return Past(audit_records(conn, starts, run), runs[URL], runs[PAGE])


def keep_audit(
    conn: sqlite3.Connection,
    starts: str,
    run: int,
    record: dict,
    runs: dict[str, dict[str, Streak]],
) -> None:
    """Write the audit ``run``'s record and the broken runs open after it,
    in one transaction; drop the runs of the site's older audits."""
    summary = record["summary"]
    values = (
        run,
        starts,
        record["started_at"],
        record["finished_at"],
        record["seconds"],
        record["finish_reason"],
        int(record["complete"]),
        *(summary[name] for name in COUNTS),
        record["new"],
        record["fixed"],
    )
    conn.execute("BEGIN")
    try:
        marks = ", ".join("?" * len(values))
        conn.execute(f"INSERT OR REPLACE INTO audits VALUES ({marks})", values)
        conn.execute("DELETE FROM broken_runs WHERE run = ?", (run,))
        conn.executemany(
            "INSERT INTO broken_runs VALUES (?, ?, ?, ?, ?)",
            (
                (run, kind, url, streak.since, streak.audits)
                for kind, streaks in runs.items()
                for url, streak in streaks.items()
            ),
        )
        conn.execute(
            "DELETE FROM broken_runs WHERE run < (SELECT max(run) FROM audits "
            "WHERE start_urls = ?1 AND run < ?2) AND run IN "
            "(SELECT run FROM audits WHERE start_urls = ?1)",
            (starts, run),
        )
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
