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

import json
import logging
import sqlite3
from datetime import UTC, datetime
from typing import Any, cast

from linkaudit.rules.history import Streak
from linkaudit.state.base import AuditCounts, AuditRecord, CountName, Past

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
COUNTS: tuple[CountName, ...] = ("urls", "pages", "requests", "ok", "redirect", "broken")
COUNTS += ("blocked", "excluded", "unchecked")
# the kinds of run: a broken URL's, a page's that carries broken links
URL, PAGE = "url", "page"
logger = logging.getLogger(__name__)


# at most this many audits are read back (``linkaudit history``, and the
# report's ``history``, this audit included): a year of daily audits, and
# a tampered database of a million rows costs what 1,000 do
MAX_AUDITS = 1000
# a record's text (times, a finish reason) is a few dozen characters; past
# this a row is not one linkaudit wrote
MAX_TEXT = 1000
MAX_COUNT = 2**53  # counts: as config/numbers.py bounds them
MAX_SECONDS = 10 * 366 * 86400.0
_TEXTS = ("started_at", "finished_at", "finish_reason")
# each text read only when short: a row of a tampered database is never
# more than a few KB in memory
_COLUMNS = ", ".join(
    [f"CASE WHEN length({c}) <= {MAX_TEXT} THEN {c} END" for c in _TEXTS]
    # a number column holding text (megabytes of it) reads as NULL: skipped
    + [
        f"CASE WHEN typeof({c}) IN ('integer', 'real') THEN {c} END"
        for c in ("seconds", "complete", *COUNTS, "new", "fixed")
    ]
)


def audit_records(
    conn: sqlite3.Connection, starts: str, before: int | None = None, limit: int = MAX_AUDITS
) -> tuple[list[AuditRecord], int]:
    """The last ``limit`` audits of the site ``starts`` (start URLs, as
    ``runs`` keeps them), oldest first, as the report's ``history`` has
    them: those before the run ``before`` (None: all); and how many of the
    rows read were skipped, not being as linkaudit writes them (a tampered
    database: text where a number is, NULL, a number out of bounds)."""
    rows = conn.execute(
        f"SELECT {_COLUMNS} FROM audits WHERE start_urls = ? AND run < ? ORDER BY run DESC LIMIT ?",
        (starts, before if before is not None else 1 << 62, max(0, limit)),
    )
    records = [_record(row) for row in rows]
    kept = [r for r in reversed(records) if r is not None]
    return kept, len(records) - len(kept)


def _count(value: Any) -> bool:
    return type(value) is int and 0 <= value <= MAX_COUNT


def _record(row: tuple[Any, ...]) -> AuditRecord | None:
    """A row as a record; None: not one linkaudit wrote."""
    started, finished, reason, seconds, complete, *counts = row
    if not all(isinstance(t, str) for t in (started, finished, reason)):
        return None
    if type(seconds) not in (int, float) or not 0 <= seconds <= MAX_SECONDS:
        return None  # NaN too: it is not within the bounds
    if complete not in (0, 1) or type(complete) is not int or not all(map(_count, counts)):
        return None
    return {
        "started_at": started,
        "finished_at": finished,
        "seconds": seconds,
        "finish_reason": reason,
        "complete": bool(complete),
        "summary": cast(AuditCounts, dict(zip(COUNTS, counts[: len(COUNTS)], strict=True))),
        "new": counts[-2],
        "fixed": counts[-1],
    }


def last_site(conn: sqlite3.Connection) -> tuple[str | None, int]:
    """The start URLs of the site audited last (None: no audit), and how
    many other sites the database has audits of."""
    row = conn.execute("SELECT start_urls FROM audits ORDER BY run DESC LIMIT 1").fetchone()
    if row is None:
        return None, 0
    (others,) = conn.execute(
        "SELECT count(DISTINCT start_urls) FROM audits WHERE start_urls IS NOT ?", row
    ).fetchone()
    return row[0], others


def past(conn: sqlite3.Connection, starts: str, run: int) -> Past:
    """The audits of the site before ``run`` and the broken runs the last of
    them left open.  Rows not as linkaudit writes them are skipped, with one
    warning; a table that cannot be read is an empty past, with one
    warning: the report is written either way."""
    try:
        found, skipped = _past(conn, starts, run)
    except sqlite3.Error as exc:
        logger.warning("linkaudit: the audit database's history cannot be read (%s)", exc)
        return Past([], {}, {})
    if skipped:
        logger.warning(
            "linkaudit: %d rows of the audit database's history skipped: not as linkaudit "
            "writes them",
            skipped,
        )
    return found


def _past(conn: sqlite3.Connection, starts: str, run: int) -> tuple[Past, int]:
    runs: dict[str, dict[str, Streak]] = {URL: {}, PAGE: {}}
    skipped = 0
    row = conn.execute(
        "SELECT max(run) FROM audits WHERE start_urls = ? AND run < ?", (starts, run)
    ).fetchone()
    if row[0] is not None:
        for kind, url, since, audits in conn.execute(
            "SELECT kind, url, CASE WHEN length(since) <= ? THEN since END, audits "
            "FROM broken_runs WHERE run = ?",
            (MAX_TEXT, row[0]),
        ):
            if kind in runs and isinstance(url, str) and isinstance(since, str) and _count(audits):
                runs[kind][url] = Streak(since, audits)
            else:
                skipped += 1
    # this audit is the history's last
    records, bad = audit_records(conn, starts, run, MAX_AUDITS - 1)
    return Past(records, runs[URL], runs[PAGE]), skipped + bad


def last_broken(
    conn: sqlite3.Connection, run: int, starts: str
) -> tuple[frozenset[str] | None, str]:
    """The URLs the last finished audit of the site before ``run`` called
    broken (its ``runs`` row: the baseline; None: no such audit), and when
    it finished, in words.  A row not as linkaudit writes it (not a JSON
    list of URLs, a time that is not one) is no baseline, with one
    warning."""
    row = conn.execute(
        "SELECT broken, finished_at FROM runs WHERE id < ? AND finish_reason = 'finished' "
        "AND start_urls = ? ORDER BY id DESC LIMIT 1",
        (run, starts),
    ).fetchone()
    if row is None:
        return None, ""
    broken, finished = row
    try:
        urls = json.loads(broken or "[]")
        when = datetime.fromtimestamp(finished, UTC).isoformat(timespec="seconds")
    except (TypeError, ValueError, OverflowError, OSError, RecursionError):
        urls = None
    if not isinstance(urls, list) or not all(isinstance(u, str) for u in urls):
        logger.warning(
            "linkaudit: the audit database's last finished audit is not as "
            "linkaudit writes it: no baseline from it"
        )
        return None, ""
    return frozenset(urls), when


def keep_audit(
    conn: sqlite3.Connection,
    starts: str,
    run: int,
    record: AuditRecord,
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
    except sqlite3.Error as exc:  # a tampered table: the report is written already
        if conn.in_transaction:  # SQLite may have rolled back already (full disk)
            conn.execute("ROLLBACK")
        logger.error("linkaudit: this audit could not be kept in the audit database (%s)", exc)
    except BaseException:
        if conn.in_transaction:  # SQLite may have rolled back already (full disk)
            conn.execute("ROLLBACK")
        raise
