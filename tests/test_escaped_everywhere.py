"""What linkaudit prints outside the report formats shows hostile text as the
formats do (issue 35): ``linkaudit history``, the note of a worker that
joins a shared audit, and the log (``-vv``'s debug lines too).  A terminal
escape is written ``\\x1b``, a bidi override ``\\u202e``; never raw."""

from __future__ import annotations

import json
import re
import sqlite3
import subprocess

import pytest

from tests.conftest import run_crawl, run_process
from tests.helpers.command import HANG_BOUND as BOUND
from tests.helpers.command import LINKAUDIT, run
from tests.redisserver import RedisServer

# what a terminal acts on or hides (C0 but the line break, DEL, C1, bidi)
RAW = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
CLEAR, OVERRIDE = "\x1b[2J", "\u202e"
HOSTILE = f"x{CLEAR}{OVERRIDE}gnp.exe"
SEEN = "x\\x1b[2J\\u202egnp.exe"  # as the formats show it


def no_raw(text: str) -> None:
    found = RAW.search(text)
    assert found is None, text[max(0, found.start() - 200) : found.end() + 200]


# -- linkaudit history: what the database holds --------------------------------------
@pytest.fixture
def hostile_db(tmp_path, server):
    """An audit database of one real audit, whose record then holds hostile
    text where text is (the site's start URLs, the finish reason, a time)."""
    server.add("/", "ok")
    db = tmp_path / "audits.db"
    out = run(tmp_path, f"{server.url}/", "--delay", "0", "--db", str(db), timeout=BOUND)
    assert out.returncode == 0, out.stderr
    with sqlite3.connect(db) as conn:
        conn.execute(
            "UPDATE audits SET start_urls = ?, finish_reason = ?, started_at = ?",
            (json.dumps([f"http://{HOSTILE}/"]), HOSTILE, "2026-11-27T" + HOSTILE),
        )
    return db


def test_history_shows_stored_text_escaped(tmp_path, hostile_db):
    out = run(tmp_path, "history", "--db", str(hostile_db), timeout=BOUND)
    assert out.returncode == 0, out.stderr
    no_raw(out.stdout + out.stderr)
    assert f"Audits of http://{SEEN}/ (1):" in out.stdout, out.stdout
    assert SEEN in out.stdout.splitlines()[-1]  # the finish reason, in its row


def test_history_as_json_is_written_as_the_report_is(tmp_path, hostile_db):
    out = run(tmp_path, "history", "--db", str(hostile_db), "--format", "json", timeout=BOUND)
    assert out.returncode == 0, out.stderr
    no_raw(out.stdout)
    assert "\\u202e" in out.stdout  # JSON's escape, as the report writes it
    assert json.loads(out.stdout)[0]["finish_reason"] == HOSTILE  # read back the same


# -- the note of a worker that joins a shared audit ----------------------------------
def test_the_joining_worker_note_shows_what_redis_holds_escaped(tmp_path, server):
    server.add("/", "<a href=/a>a</a>")
    server.add("/a", "ok")
    with RedisServer(tmp_path / "redis") as redis:
        cmd = [LINKAUDIT, f"{server.url}/", "--delay", "0", "--redis", redis.url]
        cmd += ["--audit", "t"]
        first = run_process([*cmd, "--report", "one.json"], cwd=tmp_path, timeout=BOUND)
        assert first.returncode == 0, first.stderr
        # what the joining worker names comes from Redis: the winner, the path
        redis.client().hset(
            "la:{t}:meta", mapping={"winner": HOSTILE, "report": f"/x/{HOSTILE}.json"}
        )
        second = run_process([*cmd, "--report", "two.json"], cwd=tmp_path, timeout=BOUND)
    no_raw(second.stderr)
    note = f"linkaudit: the audit 't' is over: its report was written by {SEEN} to /x/{SEEN}.json"
    assert note in second.stderr.splitlines(), second.stderr[-2000:]


@pytest.mark.parametrize("verdict", ["{", "[1]", '{"summary": 1}', '{"summary": {}}'])
def test_an_altered_verdict_is_one_line_and_incomplete(tmp_path, server, verdict):
    server.add("/", "ok")
    with RedisServer(tmp_path / "redis") as redis:
        cmd = [LINKAUDIT, f"{server.url}/", "--delay", "0", "--redis", redis.url]
        cmd += ["--audit", "t"]
        first = run_process([*cmd, "--report", "one.json"], cwd=tmp_path, timeout=BOUND)
        assert first.returncode == 0, first.stderr
        redis.client().hset("la:{t}:meta", "verdict", verdict)
        second = run_process([*cmd, "--report", "two.json"], cwd=tmp_path, timeout=BOUND)
    assert second.returncode == 3, second.stderr[-3000:]  # before: a traceback
    assert "its report was written by" in second.stderr


# -- the log -----------------------------------------------------------------------------
PAGE = (
    f'<a href="http://x{CLEAR}.example/">1</a><a href="mailto:{CLEAR}@x">2</a>'
    f'<a href="ftp://h/{OVERRIDE}">3</a><a href="http://[{OVERRIDE}]/">4</a>'
    f'<a href="/a{CLEAR}">5</a>'
)


def test_the_debug_log_shows_escapes_escaped(tmp_path, server):
    server.add("/", PAGE)
    cmd = [LINKAUDIT, f"{server.url}/", "--delay", "0", "-vv"]
    out = subprocess.run(cmd, cwd=tmp_path, capture_output=True, timeout=BOUND)
    err = out.stderr.decode("utf-8")  # the bytes as written
    assert "DEBUG: excluded mailto:\\x1b[2J@x" in err, err[-3000:]
    assert "DEBUG: excluded ftp://h/\\u202e" in err
    no_raw(err)


def test_the_log_of_scrapy_crawl_shows_escapes_escaped(tmp_path, server):
    server.add("/", PAGE)
    crawl = run_crawl(tmp_path, "-a", f"start={server.url}/", settings={"LOG_LEVEL": "DEBUG"})
    assert "DEBUG: excluded mailto:\\x1b[2J@x" in crawl.stderr, crawl.stderr[-3000:]
    no_raw(crawl.stderr)
