"""The audit database's file: its schema, opening (and checking) it, and
how a result is stored in it (see ``linkaudit/state/sqlite.py``)."""

from __future__ import annotations

import json
import sqlite3
import types
from dataclasses import MISSING, fields
from enum import EnumType
from typing import Any, Union, get_args, get_origin, get_type_hints, is_typeddict

from linkaudit.items import PAGE_STATS, Method, Outcome, UrlResult
from linkaudit.state.audits import SCHEMA as AUDITS_SCHEMA

SCHEMA_VERSION = 1
# ``PRAGMA application_id`` of an audit database: "LnkA" in ASCII, the
# 32-bit number SQLite keeps in the file header (offset 68) for the
# application that owns a file, as ``file(1)`` reads it.
APPLICATION_ID = int.from_bytes(b"LnkA", "big")  # 0x4C6E6B41
# The tables of a database written before the id was set: such a file is
# linkaudit's (its ``meta`` names the schema) and is marked on opening.
_TABLES = frozenset({"meta", "runs", "urls", "links"})
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY,
    start_urls TEXT NOT NULL,
    near_prefixes TEXT NOT NULL,
    started_at REAL NOT NULL,
    finished_at REAL,
    finish_reason TEXT,
    broken TEXT
);
CREATE TABLE IF NOT EXISTS urls (
    url TEXT PRIMARY KEY,
    run INTEGER,
    depth INTEGER,
    queued INTEGER NOT NULL DEFAULT 0,
    referer TEXT,
    checked_run INTEGER,
    cached INTEGER NOT NULL DEFAULT 0,
    result TEXT,
    checked_at REAL,
    last_ok_at REAL,
    first_failed_at REAL,
    fail_count INTEGER NOT NULL DEFAULT 0,
    etag TEXT,
    last_modified TEXT,
    links_run INTEGER
);
CREATE TABLE IF NOT EXISTS links (page TEXT NOT NULL, line INTEGER, target TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS links_by_page ON links (page);
"""
# the finished audits' figures and broken runs (added tables: an older
# database gains them on opening, and its schema version stays 1)
_SCHEMA += AUDITS_SCHEMA

_STORED_FIELDS = tuple(f for f in fields(UrlResult) if f.name not in ("links", "referrers"))
# the names of the fields a stored result keeps (the shared state too)
STORED_FIELDS = tuple(f.name for f in _STORED_FIELDS)


class DatabaseError(Exception):
    """The audit database cannot be used (one line for the user)."""


def open_database(path: str) -> sqlite3.Connection:
    """Open (or create) an audit database, checking that it is one."""
    try:
        conn = sqlite3.connect(path, isolation_level=None)  # transactions by hand
        try:
            marked = _check_owner(conn, path)
        except BaseException:
            conn.close()
            raise
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")  # WAL: durable at checkpoints, never corrupt
        conn.executescript(_SCHEMA)
        row = conn.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
        if row is None:
            conn.execute("INSERT INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
        elif row[0] != str(SCHEMA_VERSION):
            raise DatabaseError(
                f"{path}: audit database version {row[0]}, expected {SCHEMA_VERSION}"
            )
        if not marked:  # new, or written before the id existed: upgraded in place
            conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    except sqlite3.DatabaseError as exc:
        raise DatabaseError(f"{path}: not a usable audit database ({exc})") from None
    return conn


def _check_owner(conn: sqlite3.Connection, path: str) -> bool:
    """Refuse a database that is not linkaudit's before writing anything
    to it (no table, no journal mode: the file stays byte for byte as it
    was).  Only reads: linkaudit's application id (True: marked already),
    an empty file (a new database), or the tables of a database written
    before the id existed."""
    (app_id,) = conn.execute("PRAGMA application_id").fetchone()
    if app_id == APPLICATION_ID:
        return True
    names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if app_id == 0 and not names:
        return False
    if app_id == 0 and _TABLES <= names:
        row = conn.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
        if row is not None:
            return False
    shown = ", ".join(repr(name) for name in sorted(names)[:5])  # repr: no control characters
    more = ", ..." if len(names) > 5 else ""
    owner = f"application id {app_id:#010x}" if app_id else f"its tables: {shown}{more}"
    raise DatabaseError(
        f"{path}: not a linkaudit database ({owner}); give the audit a file of its own"
    )


def dump_result(result: UrlResult) -> str:
    """A result as the ``result`` column stores it: every field but the ones
    kept elsewhere (``links``) or rebuilt each run (``referrers``), left out
    only where it equals the field's default, so that :func:`load_result`
    gives back the same result (``near=False`` is not a default)."""
    data = {
        f.name: getattr(result, f.name)
        for f in _STORED_FIELDS
        if f.default is MISSING or getattr(result, f.name) != f.default
    }
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def load_result(text: str, url: str) -> UrlResult | None:
    """The result stored for ``url``; None when it is not one as
    :func:`dump_result` writes it (an altered file): not JSON, not an
    object, a field that is not a result's or not of its type, another URL,
    an outcome that is none.  Its caller skips the row, with one warning."""
    try:
        data = json.loads(text)
    except (TypeError, ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or data.get("url") != url or data.get("outcome") not in OUTCOMES:
        return None
    if not all(name in _HINTS and _fits(value, _HINTS[name]) for name, value in data.items()):
        return None
    page = data.get("page")
    if isinstance(page, dict) and not _page_fits(page):
        return None
    data["outcome"] = Outcome(data["outcome"])
    if data.get("method") is not None:
        data["method"] = Method(data["method"])
    try:
        return UrlResult(**data)
    except TypeError:  # a field without its default missing
        return None


OUTCOMES = frozenset(Outcome)
_HINTS = {name: hint for name, hint in get_type_hints(UrlResult).items() if name in STORED_FIELDS}
# a scanned page's statistics (items.page_stats): its bytes, links and images are counts
_PAGE_HINTS: dict[str, Any] = {name: int for name in PAGE_STATS} | {"last_modified": str | None}
MAX_INT = 2**53  # as every number read back: what a float holds exactly


def _page_fits(page: dict[str, Any]) -> bool:
    """A page's statistics of their types (other keys: a page dict of other
    kinds, kept as it is)."""
    return all(_fits(value, _PAGE_HINTS.get(key, Any)) for key, value in page.items())


def _fits(value: Any, hint: Any) -> bool:
    """Whether a JSON value is of the type ``hint`` (the field's annotation)."""
    if hint is Any:
        return True
    origin, args = get_origin(hint), get_args(hint)
    if origin is Union or origin is types.UnionType:
        return any(_fits(value, arg) for arg in args)
    if hint is type(None):
        return value is None
    if hint is bool:
        return isinstance(value, bool)
    if hint is int:
        return type(value) is int and -MAX_INT <= value <= MAX_INT
    if hint is str:
        return isinstance(value, str)
    if isinstance(hint, EnumType):  # an outcome, a method: one of its words
        return isinstance(value, str) and value in tuple(hint)
    if origin is list or origin is tuple:  # JSON's arrays: a tuple comes back a list
        if not isinstance(value, list):
            return False
        if origin is tuple:
            return len(value) == len(args) and all(map(_fits, value, args))
        return all(_fits(item, args[0]) for item in value) if args else True
    if origin is dict or hint is dict or is_typeddict(hint):  # a record's keys: as dict's
        return isinstance(value, dict) and all(isinstance(key, str) for key in value)
    return False
