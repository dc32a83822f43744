"""The audit database: one SQLite file that remembers audits across runs.

``-a db=PATH`` (``--db PATH``, setting ``LINKAUDIT_DB``) selects it.  It
keeps the run's working set in memory, exactly as MemoryState does (the
spider asks "is this URL new?" 270,000 times on a 10,000-page site: a
dictionary answers that, not a query), and writes everything through to
the file, so that a new process can pick the audit up:

- ``urls``: every URL with the depth and referer it was found at in the
  current run, whether it waits in the frontier (``queued``: 1 to check, 2
  a GET owed after its HEAD, 3 a GET owed after a failed HEAD), its last
  outcome (``result``, JSON) with ``checked_at``, ``last_ok_at``,
  ``first_failed_at``, ``fail_count`` and the page's validators (``etag``,
  ``last_modified``);
- ``links``: the links of each scanned page (and each redirect), with lines;
- ``runs``: one row per audit, with how it ended and what it reported broken
  (the next audit's baseline); ``audits``, ``broken_runs``: each finished
  audit's figures and broken runs (``linkaudit/state/audits.py``).

Writes are buffered and committed every ``LINKAUDIT_DB_COMMIT_INTERVAL``
seconds (default 1) and when the audit closes.  The file is in WAL mode: a
killed process (even ``kill -9``) loses at most the last interval's
results, and SQLite never leaves a half-written transaction behind.  An
audit that did not finish (Ctrl-C, SIGTERM, a limit, a crash) is resumed by
the next audit of the same start URLs: checked URLs are not requested again.
"""

from __future__ import annotations

import json
import logging
import os
import re
import time
from dataclasses import replace
from datetime import datetime
from email.utils import format_datetime
from typing import Any

from scrapy import signals
from scrapy.crawler import Crawler
from twisted.internet import task

from linkaudit.config import config_of
from linkaudit.items import Outcome, UrlResult
from linkaudit.rules.history import Runs
from linkaudit.rules.recheck import History
from linkaudit.state import audits
from linkaudit.state.base import ArchiveNote, AuditRecord, GetOnlyNote, Past, Run, scanned_page
from linkaudit.state.database import dump_result, load_result, open_database
from linkaudit.state.memory import MemoryState

logger = logging.getLogger(__name__)

_QUEUED = {None: 1, "get": 2, "fallback": 3, "anchors": 4, "sitemap": 5}
_PHASE = {v: k for k, v in _QUEUED.items()}


def _http_date(text: str | None) -> str | None:
    """ISO 8601 (the report's page.last_modified) -> an HTTP date."""
    return format_datetime(datetime.fromisoformat(text), usegmt=True) if text else None


def _json_object(text: str) -> dict[str, Any] | None:
    """A JSON object kept in the file; None when it is not one (an altered file)."""
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


_UNSENDABLE = re.compile("[\r\n\0]")


def _history_row(row: tuple[Any, ...]) -> bool:
    """The columns beside a stored result as linkaudit writes them: its
    times (epoch seconds or none), its failure count, its ETag and date
    (header values as a server sent them: no line break, no NUL)."""
    _result, checked, last_ok, failed, count, etag, modified = row
    times = all(t is None or type(t) in (int, float) for t in (checked, last_ok, failed))
    texts = all(
        t is None or isinstance(t, str) and not _UNSENDABLE.search(t) for t in (etag, modified)
    )
    return times and texts and type(count) is int and count >= 0


def _a_link(target: Any, line: Any) -> bool:
    """A ``links`` row as linkaudit writes it: a URL, and a line or none."""
    return isinstance(target, str) and (line is None or type(line) is int)


class SQLiteState(MemoryState):
    """The audit's state in memory, written through to an SQLite file."""

    durable = True  # an interrupted audit resumes
    remembers = True  # the next audit reads this one's results (recheck, baseline)

    def __init__(self, path: str, commit_interval: float = 1.0):
        super().__init__()
        self.path = path
        self.conn = open_database(path)
        self.commit_interval = commit_interval
        self.run_id: int | None = None
        self._starts = ""  # the run's start URLs, as ``runs`` keeps them
        self._urls: dict[str, tuple[int, int, str | None]] = {}  # url -> depth, queued, referer
        self._checked: dict[str, tuple[Any, ...]] = {}
        self._links: list[tuple[str, list[tuple[str, int | None]]]] = []
        self._loop: task.LoopingCall | None = None
        self._skipped = 0  # stored results that could not be read
        # hosts whose HEAD answers proved no hint, and broken links' archived
        # copies (--archive, looked up once), in any audit of this file
        kept = {"get_only": self._get_only, "archived": self._archived}
        for key, value in self.conn.execute(
            "SELECT key, value FROM meta WHERE key LIKE 'get_only:%' OR key LIKE 'archived:%'"
        ):
            record = _json_object(value)
            kind, _, name = key.partition(":")
            if record is not None:
                kept[kind][name] = record

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> SQLiteState:
        config = config_of(crawler)
        state = cls(config["LINKAUDIT_DB"], config["LINKAUDIT_DB_COMMIT_INTERVAL"])
        crawler.signals.connect(state._start_commits, signal=signals.engine_started)
        return state

    def _start_commits(self) -> None:
        self._loop = task.LoopingCall(self.commit)
        self._loop.start(self.commit_interval, now=False)

    # -- the audit ------------------------------------------------------------
    def open_run(self, start_urls: list[str], near_prefixes: tuple[str, ...]) -> Run:
        starts, nears = json.dumps(list(start_urls)), json.dumps(list(near_prefixes))
        self._starts = starts
        last = self.conn.execute(
            "SELECT id, start_urls, near_prefixes, finish_reason FROM runs ORDER BY id DESC LIMIT 1"
        ).fetchone()
        resumed = bool(last and last[3] != "finished" and last[1] == starts and last[2] == nears)
        if resumed:
            self.run_id = last[0]
            self._load_run()
        else:
            self.run_id = self.conn.execute(
                "INSERT INTO runs (start_urls, near_prefixes, started_at) VALUES (?, ?, ?)",
                (starts, nears, time.time()),
            ).lastrowid
        assert self.run_id is not None  # (the resumed run's, or the INSERT's row)
        baseline, finished = audits.last_broken(self.conn, self.run_id, starts)
        where = f"{os.path.abspath(self.path)} (the audit that finished at {finished})"
        source = where if baseline is not None else None
        pages = sum(1 for r in self.results() if scanned_page(r))
        return Run(resumed, self._recorded, pages, baseline, source)

    def _load_run(self) -> None:
        """Rebuild the interrupted run's working set from the file."""
        run = self.run_id
        q = self.conn.execute
        for url, depth in q("SELECT url, depth FROM urls WHERE run = ?", (run,)):
            self._note_depth(url, depth)
        for (dropped,) in q("SELECT value FROM meta WHERE key = ?", (f"urls_dropped:{run}",)):
            self._dropped = int(dropped)
        unread: list[tuple[str, int, str | None]] = []  # rows not as linkaudit writes them
        for url, depth, referer, text, cached, failed_at in q(
            "SELECT url, depth, referer, result, cached, first_failed_at FROM urls "
            "WHERE checked_run = ?",
            (run,),
        ):
            result = load_result(text, url)
            if result is None:
                unread.append((url, depth if type(depth) is int else 0, referer))
                continue
            if cached:
                result = replace(result, from_cache=True)
            super()._remember(result, failed_at if result.outcome == Outcome.BROKEN else None)
        for url, depth, referer in unread:  # checked anew
            self._unreadable(url)
            super().enqueue(url, depth, referer if isinstance(referer, str) else None)
        for url, depth, queued, referer in q(
            "SELECT url, depth, queued, referer FROM urls WHERE run = ? AND queued > 0 "
            "AND checked_run IS NOT ? ORDER BY rowid",
            (run, run),
        ):
            super().enqueue(url, depth, referer)
            if queued in _PHASE and _PHASE[queued]:
                level = self._frontier[depth]
                level[-1] = level[-1]._replace(phase=_PHASE[queued])
        for page, line, target in q(
            "SELECT l.page, l.line, l.target FROM links l JOIN urls u ON u.url = l.page "
            "WHERE u.links_run = ? ORDER BY l.rowid",
            (run,),
        ):
            if _a_link(target, line) and isinstance(page, str):
                super().add_referrer(target, page, line)
            else:
                self._unreadable(str(page))

    def finish_run(self, finish_reason: str, broken: list[str]) -> None:
        self._write()
        self.conn.execute(
            "UPDATE runs SET finished_at = ?, finish_reason = ?, broken = ? WHERE id = ?",
            (time.time(), finish_reason, json.dumps(sorted(broken)), self.run_id),
        )

    def past(self) -> Past | None:
        return audits.past(self.conn, self._starts, self.run_id or 0)

    def keep_audit(self, record: AuditRecord, broken: Runs, carrying: Runs) -> None:
        runs = {audits.URL: broken, audits.PAGE: carrying}  # one transaction, with the record
        audits.keep_audit(self.conn, self._starts, self.run_id or 0, record, runs)

    def history(self, url: str) -> History | None:
        row = self.conn.execute(
            "SELECT result, checked_at, last_ok_at, first_failed_at, fail_count, etag, "
            "last_modified FROM urls WHERE url = ? AND result IS NOT NULL "
            "AND checked_run IS NOT ?",
            (url, self.run_id),
        ).fetchone()
        if row is None:
            return None
        result = load_result(row[0], url) if _history_row(row) else None
        if result is None:  # checked anew, as a URL never seen
            self._unreadable(url)
            return None
        links = None
        if result.page is not None or result.location is not None:
            rows = self.conn.execute(
                "SELECT target, line FROM links WHERE page = ? ORDER BY rowid", (url,)
            ).fetchall()
            links = [(target, line) for target, line in rows if _a_link(target, line)]
            if len(links) < len(rows):  # a link lost: the page is read anew, all of them
                self._unreadable(url)
                return None
        return History(result, row[1], row[2], row[3], row[4], row[5], row[6], links)

    def _unreadable(self, url: str) -> None:
        """A stored result, or a page's link, not as linkaudit writes it (an
        altered file): the row is skipped (a result's URL checked anew),
        with one warning an audit."""
        self._skipped += 1
        if self._skipped == 1:
            logger.warning(
                "linkaudit: the audit database %s holds rows not as linkaudit writes them "
                "(the first: %s): they are skipped, a result's URL checked anew",
                self.path,
                url,
            )

    # -- writes, buffered --------------------------------------------------------
    def discover(self, url: str, depth: int) -> bool | None:
        new = super().discover(url, depth)
        if new:
            self._urls[url] = (depth, 0, None)
        return new

    def enqueue(self, url: str, depth: int, referer: str | None) -> None:
        super().enqueue(url, depth, referer)
        self._urls[url] = (depth, 1, referer)

    def owe(self, url: str, phase: str) -> None:
        buffered = self._urls.get(url)  # None referer: the stored one is kept
        self._urls[url] = (self._found_at(url), _QUEUED[phase], buffered[2] if buffered else None)

    def _settle(
        self, result: UrlResult, now: float
    ) -> tuple[float | None, int, list[tuple[str, int | None]]]:
        url = result.url
        if result.from_cache:  # carried over: the earlier check's row stays as it was
            row = self.conn.execute(
                "SELECT first_failed_at FROM urls WHERE url = ?", (url,)
            ).fetchone()
            failing = row[0] if row and result.outcome == Outcome.BROKEN else None
            self._checked[url] = ("cached", bool(result.links))
        else:
            prev = self.conn.execute(
                "SELECT last_ok_at, first_failed_at, fail_count, etag, last_modified "
                "FROM urls WHERE url = ? AND checked_run IS NOT ?",
                (url, self.run_id),
            ).fetchone() or (None, None, 0, None, None)
            if not _history_row((None, None, *prev)):  # an altered row: as if none
                prev = (None, None, 0, None, None)
            last_ok, failing, count = prev[0], prev[1], prev[2]
            if result.outcome == Outcome.BROKEN:
                failing = failing if count else now
                count += 1
            elif result.outcome in (Outcome.OK, Outcome.REDIRECT):
                failing, count, last_ok = None, 0, now
            # blocked, excluded, unchecked: no news about the URL itself
            page = result.page
            etag, modified = result.etag, _http_date(page.get("last_modified") if page else None)
            if result.not_modified:  # a 304 may leave out the validators it matched
                etag, modified = etag or prev[3], modified or prev[4]
            self._checked[url] = (
                "checked",
                dump_result(result),
                now,
                last_ok,
                failing,
                count,
                etag,
                modified,
                bool(result.links),
            )
            if result.links and not result.stored_links:
                self._links.append((url, list(result.links)))
        count, refs = self.referrers(url)  # before an ok result drops them
        return super()._remember(result, failing), count, refs

    def note_get_only(self, host: str, record: GetOnlyNote) -> None:
        """Kept at once, for this audit's resumption and the next audits."""
        super().note_get_only(host, record)
        self.conn.execute(
            "INSERT OR REPLACE INTO meta VALUES (?, ?)", (f"get_only:{host}", json.dumps(record))
        )

    def note_archived(self, url: str, record: ArchiveNote) -> None:
        """Kept at once: the next audits do not ask the archive again."""
        super().note_archived(url, record)
        self.conn.execute(
            "INSERT OR REPLACE INTO meta VALUES (?, ?)", (f"archived:{url}", json.dumps(record))
        )

    def commit(self) -> None:
        """Write what is buffered, in one transaction."""
        if not (self._urls or self._checked or self._links):
            return
        started = time.monotonic()
        n = len(self._checked)
        self._write()
        logger.debug("Committed %d results in %.3f s", n, time.monotonic() - started)

    def _write(self) -> None:
        run = self.run_id
        conn = self.conn
        conn.execute("BEGIN")
        try:
            conn.executemany(
                "INSERT INTO urls (url, run, depth, queued, referer) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT (url) DO UPDATE SET run = excluded.run, depth = excluded.depth, "
                "queued = excluded.queued, referer = coalesce(excluded.referer, urls.referer)",
                ((u, run, d, q, r) for u, (d, q, r) in self._urls.items()),
            )
            conn.executemany(
                "UPDATE urls SET queued = 0, checked_run = ?, cached = 1, "
                "links_run = CASE WHEN ? THEN ? ELSE links_run END WHERE url = ?",
                ((run, row[1], run, u) for u, row in self._checked.items() if row[0] == "cached"),
            )
            conn.executemany(
                "UPDATE urls SET queued = 0, checked_run = ?, cached = 0, result = ?, "
                "checked_at = ?, last_ok_at = ?, first_failed_at = ?, fail_count = ?, etag = ?, "
                "last_modified = ?, links_run = CASE WHEN ? THEN ? ELSE links_run END "
                "WHERE url = ?",
                (
                    (run, *row[1:], run, u)
                    for u, row in self._checked.items()
                    if row[0] == "checked"
                ),
            )
            for page, links in self._links:
                conn.execute("DELETE FROM links WHERE page = ?", (page,))
                conn.executemany(
                    "INSERT INTO links (page, line, target) VALUES (?, ?, ?)",
                    ((page, line, target) for target, line in links),
                )
            if self._dropped:  # --max-urls: a resumed audit still counts them
                conn.execute(
                    "INSERT OR REPLACE INTO meta VALUES (?, ?)",
                    (f"urls_dropped:{run}", str(self._dropped)),
                )
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        self._urls.clear()
        self._checked.clear()
        self._links.clear()

    def close(self) -> None:
        if self._loop is not None and self._loop.running:
            self._loop.stop()
        self._write()
        self.conn.close()
