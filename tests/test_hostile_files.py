"""Files, pipes and devices where linkaudit reads and writes (issue 35): the
files the user names are regular files or refused at once, in one line
(a pipe's ``open`` or a device's ``read`` never ends); the journal, the page
archive and the views beside the report never write through a symbolic
link planted where they are written.  Every run is bounded far below the
time a hang would take."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import threading

import pytest

from linkaudit.state.audits import MAX_AUDITS
from tests.conftest import run_process, validate
from tests.helpers.command import HANG_BOUND as BOUND
from tests.helpers.command import LINKAUDIT, refused, run
from tests.peak import measure

# -- what the user names: a regular file, or one line at once ---------------------------


@pytest.mark.parametrize(
    ("option", "path", "words"),
    [
        ("--config", "{fifo}", "{fifo}: cannot read it: not a regular file (a named pipe)"),
        ("--config", "/dev/zero", "/dev/zero: cannot read it: not a regular file (a device)"),
        ("--config", "/dev/null", "/dev/null: cannot read it: not a regular file (a device)"),
        ("--cookie-jar", "{fifo}", "not a regular file (a named pipe)"),
        ("--cookie-jar", "/dev/zero", "not a regular file (a device)"),
        ("--baseline", "{fifo}", "baseline: cannot read {fifo}: not a regular file (a named pipe)"),
        ("--baseline", "/dev/zero", "baseline: cannot read /dev/zero: not a regular file"),
        ("--jsonl", "{fifo}", "--jsonl: {fifo} is a named pipe that nobody reads"),
    ],
)
def test_a_pipe_or_a_device_is_one_line_at_once(tmp_path, server, option, path, words):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    path, words = path.replace("{fifo}", str(fifo)), words.replace("{fifo}", str(fifo))
    # before: each of these hung (the pipe's open, or a read of /dev/zero
    # that filled the memory): the bound fails them
    out = run(tmp_path, f"{server.url}/", option, path, timeout=BOUND)
    refused(out, words)
    assert server.log == [] and not (tmp_path / "linkaudit-report.json").exists()


def test_a_feed_to_a_pipe_that_is_read_is_written(tmp_path, server):
    """``--jsonl /dev/stdout | jq``: a pipe with a reader is a feed's place."""
    server.add("/", "<a href=/a>a</a>")
    server.add("/a", "ok")
    cmd = [LINKAUDIT, f"{server.url}/", "--delay", "0", "--jsonl", "/dev/stdout"]
    with subprocess.Popen(cmd, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as p:
        out, err = p.communicate(timeout=BOUND)
    assert p.returncode == 0, err
    assert b'"url": "' in out or b'"url":"' in out, out[-2000:]


def test_a_feed_to_a_named_pipe_that_is_read_is_written(tmp_path, server):
    """``mkfifo f; cat f & linkaudit --jsonl f``: the check that the pipe
    has a reader does not end the reader's input."""
    server.add("/", "<a href=/a>a</a>")
    server.add("/a", "ok")
    fifo = tmp_path / "feed"
    os.mkfifo(fifo)
    got: list[bytes] = []

    def read() -> None:
        with open(fifo, "rb") as pipe:  # waits for a writer, reads to the end
            got.extend(pipe.read().splitlines())

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        out = run(tmp_path, f"{server.url}/", "--delay", "0", "--jsonl", str(fifo), timeout=BOUND)
    finally:
        if reader.is_alive():  # a writer of our own, so the reader ends
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        reader.join(10)
    assert out.returncode == 0, out.stderr
    assert len(got) == 2 and all(json.loads(line)["outcome"] == "ok" for line in got), got


# -- what linkaudit writes as it goes: never through a planted link -------------------
VICTIM = b"the victim's own bytes\n"


def plant(link, victim) -> None:
    """A symbolic link at ``link`` to ``victim``, a file of someone else's."""
    victim.write_bytes(VICTIM)
    os.symlink(victim, link)


@pytest.mark.parametrize("kept", [False, True], ids=["default journal", "--journal"])
def test_a_link_planted_at_the_journal_is_replaced_not_followed(tmp_path, server, kept):
    server.add("/", "<a href=/a>a</a>")
    server.add("/a", "ok")
    journal = tmp_path / ("mine.jsonl" if kept else "linkaudit-report.journal.jsonl")
    plant(journal, tmp_path / "victim")
    args = ["--journal", str(journal)] if kept else []
    out = run(tmp_path, f"{server.url}/", "--delay", "0", *args, timeout=BOUND)
    assert out.returncode == 0, out.stderr
    # before: the journal was written into the victim through the link
    assert (tmp_path / "victim").read_bytes() == VICTIM
    assert (tmp_path / "linkaudit-report.json").exists()
    if kept:  # the journal is a file of its own now, holding the audit
        assert not journal.is_symlink() and b'"type":"end"' in journal.read_bytes()


def test_a_link_planted_in_the_page_archive_is_replaced_not_followed(tmp_path, server):
    server.add("/", "<a href=/a>a</a>")
    server.add("/a", "<p>page a</p>")
    pages = tmp_path / "pages"
    pages.mkdir()
    for name in ("0", "1"):
        plant(pages / name, tmp_path / f"victim{name}")
    out = run(tmp_path, f"{server.url}/", "--delay", "0", "--pagedir", str(pages), timeout=BOUND)
    assert out.returncode == 0, out.stderr
    for name in ("0", "1"):
        assert (tmp_path / f"victim{name}").read_bytes() == VICTIM
        assert not (pages / name).is_symlink()
    assert (pages / "0").read_bytes().startswith(f"{server.url}/\n0\n".encode())


def test_a_link_planted_at_the_feed_is_replaced_not_followed(tmp_path, server):
    server.add("/", "<a href=/a>a</a>")
    server.add("/a", "ok")
    feed = tmp_path / "feed.jsonl"
    plant(feed, tmp_path / "victim")
    out = run(tmp_path, f"{server.url}/", "--delay", "0", "--jsonl", str(feed), timeout=BOUND)
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "victim").read_bytes() == VICTIM
    assert not feed.is_symlink() and len(feed.read_text().splitlines()) == 2


# -- a tampered audit database (--db): bounded and typed ------------------------------
ROWS = 200_000  # a tampered history; the report's keeps MAX_AUDITS of them
COLUMNS = (
    "run, start_urls, started_at, finished_at, seconds, finish_reason, complete, urls, pages, "
    "requests, ok, redirect, broken, blocked, excluded, unchecked, new, fixed"
)
BAD = [  # what a tamperer writes where linkaudit writes numbers and short text
    {"seconds": None},
    {"urls": "many"},
    {"broken": 2**62},
    {"pages": 1e308},
    {"seconds": float("inf")},
    {"seconds": float("nan")},  # SQLite stores NULL
    {"complete": 5},
    {"started_at": "2026-11-27T00:00:00" + "0" * 10_000_000},  # 10 MB of text
    {"urls": "9" * 10_000_000},  # 10 MB of text where a count is
    {"finish_reason": 7},
    {"new": -1},
]


def tamper(db, starts: str, rows: int) -> None:
    """The audits table recreated without its types and constraints (SQLite
    lets anyone), then ``rows`` audits of the site before the real one, the
    latest ten of them each wrong in one way."""
    good = {
        "started_at": "2026-01-01T00:00:00+00:00",
        "finished_at": "2026-01-01T00:01:00+00:00",
        "seconds": 60.0,
        "finish_reason": "finished",
        "complete": 1,
        **dict.fromkeys(COLUMNS.split(", ")[7:], 1),
    }
    names = COLUMNS.split(", ")

    def row(run: int, change: dict) -> tuple:
        values = {**good, **change, "run": run, "start_urls": starts}
        return tuple(values[n] for n in names)

    with sqlite3.connect(db) as conn:
        conn.execute("ALTER TABLE audits RENAME TO kept")
        conn.execute(f"CREATE TABLE audits ({COLUMNS})")
        conn.execute(f"INSERT INTO audits SELECT {COLUMNS} FROM kept")
        conn.execute("DROP TABLE kept")
        conn.executemany(
            f"INSERT INTO audits VALUES ({', '.join('?' * len(names))})",
            (row(-n, BAD[n] if n < len(BAD) else {}) for n in range(rows)),
        )


def test_a_tampered_database_is_read_bounded_and_typed(tmp_path, server):
    server.add("/", "<a href=/a>a</a>")
    server.add("/a", "ok")
    db = tmp_path / "audits.db"
    audit = [LINKAUDIT, f"{server.url}/", "--delay", "0", "--db", str(db)]
    first = run_process(audit, cwd=tmp_path, timeout=BOUND)
    assert first.returncode == 0, first.stderr
    with sqlite3.connect(db) as conn:
        (starts,) = conn.execute("SELECT start_urls FROM audits").fetchone()
    tamper(db, starts, ROWS)
    # before: every row read into the report (1,000,000 rows: 52 s, 4.24 GB,
    # a 378 MB report), and a text count a traceback
    again = measure(audit, limit=60, cwd=tmp_path)
    assert again.proc.returncode == 0, again.proc.stderr[-3000:]
    assert again.peak_kib < 300 * 1024 and again.seconds < 30, (again.peak_kib, again.seconds)
    report = json.loads((tmp_path / "linkaudit-report.json").read_text())
    validate(report)
    history = report["history"]
    # the last 999 earlier ones read, those not as linkaudit writes them
    # skipped (NaN is NULL in SQLite), and this one
    assert len(history) == MAX_AUDITS - len(BAD)
    assert history[-1]["finish_reason"] == "finished" and history[-1]["summary"]["urls"] == 2
    assert all(r == history[0] for r in history[1:-2])  # only good rows; the real one
    warned = [line for line in again.proc.stderr.splitlines() if "skipped" in line]
    assert len(warned) == 1 and f" {len(BAD)} rows of" in warned[0], warned
    shown = measure([LINKAUDIT, "history", "--db", str(db)], limit=30, cwd=tmp_path)
    assert shown.proc.returncode == 0, shown.proc.stderr
    assert shown.peak_kib < 300 * 1024 and shown.seconds < 10, (shown.peak_kib, shown.seconds)
    lines = shown.proc.stdout.splitlines()
    assert lines[0].endswith(f"({MAX_AUDITS - len(BAD)}, of the last {MAX_AUDITS} kept):")
    assert len(lines) == MAX_AUDITS - len(BAD) + 2  # the title, the head, a line each
    assert (
        shown.proc.stderr
        == f"linkaudit history: {len(BAD)} rows of {db} skipped: not as linkaudit writes them\n"
    )


@pytest.mark.parametrize(
    ("broken", "finished"),
    [("1", "x"), ('{"a": [1]}', 1e300), ("[1, null]", None), ("[" * 100_000, 0.0)],
    ids=["a number, text", "an object, a year past time_t", "not URLs, NULL", "nested"],
)
def test_a_tampered_baseline_in_the_database_is_no_baseline(tmp_path, server, broken, finished):
    server.add("/", "<a href=/a>a</a>")
    server.add("/a", "ok")
    db = tmp_path / "audits.db"
    audit = [LINKAUDIT, f"{server.url}/", "--delay", "0", "--db", str(db)]
    assert run_process(audit, cwd=tmp_path, timeout=BOUND).returncode == 0
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE runs SET broken = ?, finished_at = ?", (broken, finished))
    again = run_process(audit, cwd=tmp_path, timeout=BOUND)  # before: a traceback, exit 3
    assert again.returncode == 0, again.stderr[-3000:]
    warned = [line for line in again.stderr.splitlines() if "WARNING" in line]
    assert len(warned) == 1 and "no baseline from it" in warned[0], again.stderr
    report = json.loads((tmp_path / "linkaudit-report.json").read_text())
    validate(report)
    assert "baseline" not in report  # no baseline: no "since the baseline" section
