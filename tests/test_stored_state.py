"""Stored state is data, not instructions: an audit database altered
between two runs (or a Redis record) never makes linkaudit request what a
link could not, and ``--db`` never writes into another application's
SQLite file."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3

import pytest

from linkaudit.rules.judge import NOT_CANONICAL
from linkaudit.state.database import APPLICATION_ID, DatabaseError, open_database
from linkaudit.state.redis.connection import connect
from linkaudit.state.redis.state import RedisState
from tests.conftest import Spawned, run_crawl, wait_for
from tests.helpers.command import LINKAUDIT, run
from tests.redisserver import RedisServer
from tests.server import Route

SECRET = "linkaudit-secret-3f9c"  # the content of a local file: never in any output


def tamper(db, rows: list[tuple[str, str | None]]) -> None:
    """What an attacker with write access to the file does: the last run
    looks interrupted, and its frontier holds ``rows`` (url, referer)."""
    conn = sqlite3.connect(db)
    (run_id,) = conn.execute("SELECT max(id) FROM runs").fetchone()
    conn.execute("UPDATE runs SET finish_reason = 'shutdown' WHERE id = ?", (run_id,))
    conn.executemany(
        "INSERT INTO urls (url, run, depth, queued, referer) VALUES (?, ?, 1, 1, ?)",
        [(url, run_id, referer) for url, referer in rows],
    )
    conn.commit()
    conn.close()


def test_a_tampered_frontier_is_judged_again_before_any_request(tmp_path, server):
    server.add("/", '<a href="/a.html">a</a>')
    server.add("/a.html", "a")
    server.add("/fresh.html", "fresh")
    secret = tmp_path / "secret.html"
    secret.write_text(f"<h1>{SECRET}</h1>")
    db = tmp_path / "audit.sqlite"
    args = ("-a", f"start={server.url}/", "-a", f"db={db}")
    first = run_crawl(tmp_path, *args)
    assert first.report["complete"], first.stderr[-2000:]

    base = server.url
    tamper(
        db,
        [
            ("file:///etc/passwd", f"{base}/"),
            (secret.as_uri(), f"{base}/"),
            (f"{base}/../", f"{base}/"),
            (f"HTTP://127.0.0.1:{server.port}/a.html?x", f"{base}/"),
            ("ftp://127.0.0.1/x", None),
            # a valid URL still resumes, but not with a forged Referer header
            (f"{base}/fresh.html", f"{base}/\r\nX-Injected: 1"),
        ],
    )
    server.log.clear()
    second = run_crawl(tmp_path, *args)
    assert "Resuming the interrupted audit" in second.stderr
    report = second.report
    text = json.dumps(report) + second.stderr
    assert SECRET not in text and "root:x:0:0" not in text  # no file was read
    assert second.url("file:///etc/passwd")["outcome"] == "excluded"
    assert second.url("file:///etc/passwd")["error"] == "Excluded: file: link"
    assert second.url(secret.as_uri())["outcome"] == "excluded"
    assert second.url("ftp://127.0.0.1/x")["error"] == "Excluded: ftp: link"
    for forged in (f"{base}/../", f"HTTP://127.0.0.1:{server.port}/a.html?x"):
        assert second.url(forged)["outcome"] == "excluded"
        assert second.url(forged)["error"] == NOT_CANONICAL
    assert "not requested" in second.stderr
    # every request the audit sent is one this server answered: none went
    # to a file, none was sent as the altered state wrote it
    assert [(h.method, h.path) for h in server.log if h.path != "/robots.txt"] == [
        ("HEAD", "/fresh.html"),
        ("GET", "/fresh.html"),
    ]
    assert report["summary"]["requests"] == len(server.log)
    assert not [h for h in server.log if "X-Injected" in h.headers]
    assert second.url(f"{base}/fresh.html")["outcome"] == "ok"


def sha_and_mtime(path) -> tuple[str, int]:
    return hashlib.sha256(path.read_bytes()).hexdigest(), os.stat(path).st_mtime_ns


def test_db_refuses_another_applications_sqlite_file_untouched(tmp_path, server):
    server.add("/", "home")
    other = tmp_path / "app.sqlite"
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE accounts (id INTEGER PRIMARY KEY, name TEXT)")
    conn.execute("INSERT INTO accounts (name) VALUES ('alice')")
    conn.commit()
    conn.close()
    before = sha_and_mtime(other)
    out = run(tmp_path, f"{server.url}/", "--db", str(other))
    assert out.returncode == 2, out.stdout + out.stderr
    assert out.stderr.startswith(f"linkaudit: error: db: {other}: not a linkaudit database")
    assert len(out.stderr.splitlines()) == 1, out.stderr
    assert sha_and_mtime(other) == before
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("app")) == ["app.sqlite"]
    assert server.log == []


def test_db_marks_new_files_and_upgrades_todays_in_place(tmp_path, server):
    server.add("/", "home")
    new = tmp_path / "new.sqlite"
    new.touch()  # an empty file is a new database
    assert run(tmp_path, f"{server.url}/", "--db", str(new)).returncode == 0
    conn = sqlite3.connect(new)
    assert conn.execute("PRAGMA application_id").fetchone() == (APPLICATION_ID,)
    # today's databases have no application id: the same file without it
    conn.execute("PRAGMA application_id = 0")
    conn.commit()
    conn.close()
    out = run(tmp_path, f"{server.url}/", "--db", str(new))
    assert out.returncode == 0, out.stdout + out.stderr
    conn = sqlite3.connect(new)
    assert conn.execute("PRAGMA application_id").fetchone() == (APPLICATION_ID,)
    assert conn.execute("SELECT count(*) FROM runs").fetchone() == (2,)  # its history kept
    conn.close()


def test_a_record_put_in_a_shared_audits_redis_queue_is_judged_too(tmp_path, server):
    """The Redis variant: anyone who can write to the audit's Redis can
    queue a record; the worker that claims it judges it first."""
    server.add("/", Route(body='<a href="/a.html">a</a>', delay=1.0))  # level 0 lasts 1 s
    server.add("/a.html", "a")
    secret = tmp_path / "secret.txt"
    secret.write_text(SECRET)
    redis = RedisServer(tmp_path / "redis").start()
    try:
        report = tmp_path / "report.json"
        cmd = [LINKAUDIT, f"{server.url}/", "--delay", "0", "--report", str(report)]
        cmd += ["--redis", redis.url, "--audit", "tampered", "-s", "LINKAUDIT_REDIS_POLL=0.05"]
        worker = Spawned(cmd)
        wait_for(lambda: "/" in server.arrivals, what="the start page requested")
        # a record of the next level, written with the state's own calls
        intruder = RedisState(connect(redis.url), "tampered", lease=30.0, batch=10)
        forged = [secret.as_uri(), f"{server.url}/../"]
        assert intruder.discover_many(forged, 1) == [True, True]
        for url in forged:
            intruder.enqueue(url, 1, f"{server.url}/")
        # any call sends the queue: a URL the worker knows changes nothing
        assert intruder.discover_many([f"{server.url}/"], 0) == [False]
        assert worker.wait(timeout=60) == 0, worker.stderr[-2000:]
    finally:
        redis.stop()
    data = json.loads(report.read_text())
    urls = {u["url"]: u for u in data["urls"]}
    assert (urls[secret.as_uri()]["outcome"], urls[secret.as_uri()]["error"]) == (
        "excluded",
        "Excluded: file: link",
    )
    assert urls[f"{server.url}/../"]["error"] == NOT_CANONICAL
    assert SECRET not in report.read_text() + worker.stderr
    assert {h.path for h in server.log} <= {"/", "/a.html", "/robots.txt"}
    assert data["summary"]["requests"] == len(server.log)


def test_db_refuses_any_file_that_is_not_linkaudits_and_leaves_it_as_it_was(tmp_path):
    """Without a crawl: an empty SQLite file another program marked as its
    own, and a file that is not SQLite at all."""
    marked = tmp_path / "marked.db"
    conn = sqlite3.connect(marked)
    conn.execute("PRAGMA application_id = 1234")
    conn.commit()
    conn.close()
    notes = tmp_path / "notes.txt"
    notes.write_text("not a database, but a page of notes\n" * 100)
    for path, words in ((marked, "application id 0x000004d2"), (notes, "file is not a database")):
        before = sha_and_mtime(path)
        with pytest.raises(DatabaseError, match=words):
            open_database(str(path))
        assert sha_and_mtime(path) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["marked.db", "notes.txt"]


def _bad_results(base: str) -> dict[str, str | None]:
    """Stored results that are not results, by the URL they stand for."""
    near = '"near":true,"depth":1'
    return {
        f"{base}/a.html": "not json",
        f"{base}/b.html": "[1, 2]",
        f"{base}/c.html": json.dumps({"url": f"{base}/c.html", "bogus": 1}),
        f"{base}/d.html": f'{{"url":"{base}/d.html","near":"yes","outcome":"ok","depth":1}}',
        f"{base}/e.html": f'{{"url":"{base}/other","outcome":"ok",{near}}}',
        f"{base}/missing": f'{{"url":"{base}/missing","outcome":"ok","status":"200",{near}}}',
        f"{base}/f.html": f'{{"url":"{base}/f.html","outcome":"ok",{near},"page":{{"bytes":"x"}}}}',
        f"{base}/g.html": None,
    }


def test_stored_results_that_are_no_results_are_skipped_with_one_warning(tmp_path, server):
    """A tampered ``--db`` whose stored results are not JSON or not results:
    each such row is skipped, its URL checked anew, one warning line; the
    audit finishes with the site's verdicts (exit 1), resumed or not."""
    pages = "abcdefg"
    server.add(
        "/", "\n".join(f'<a href="/{p}.html">{p}</a>' for p in pages) + '<a href="/missing">'
    )
    for page in pages:
        server.add(f"/{page}.html", page)
    db = tmp_path / "audit.sqlite"
    args = (f"{server.url}/", "--delay", "0", "--db", str(db), "--report", "r.json")
    assert run(tmp_path, *args).returncode == 1
    bad = _bad_results(server.url)

    def altered(resume: bool) -> None:
        conn = sqlite3.connect(db)
        conn.executemany(
            "UPDATE urls SET result = ? WHERE url = ?", [(t, u) for u, t in bad.items()]
        )
        # the columns beside a result: a count that is text, a date with a CRLF
        conn.execute(
            "UPDATE urls SET fail_count = 'y', checked_at = 'x', last_modified = ? WHERE url = ?",
            ("Mon\r\nX-Injected: 1", f"{server.url}/missing"),
        )
        # the home page's links: a line that is text, a target that is a number
        conn.execute("UPDATE links SET line = 'abc' WHERE rowid = (SELECT min(rowid) FROM links)")
        conn.execute("UPDATE links SET target = 5 WHERE rowid = (SELECT max(rowid) FROM links)")
        if resume:  # the last audit looks interrupted: it is resumed
            conn.execute(
                "UPDATE runs SET finish_reason = 'shutdown' WHERE id = (SELECT max(id) FROM runs)"
            )
        conn.commit()
        conn.close()

    # resumed: the rows of the audit being resumed; then a new audit that
    # reads the last one's results for its rechecks
    for resume, again in ((True, ("-v",)), (False, ("-s", "LINKAUDIT_RECHECK_AFTER=86400"))):
        altered(resume)
        server.log.clear()
        out = run(tmp_path, *args, *again)
        assert out.returncode == 1, out.stderr[-3000:]
        assert ("Resuming the interrupted audit:" in out.stderr) is resume
        warnings = [line for line in out.stderr.splitlines() if "not as linkaudit writes" in line]
        assert len(warnings) == 1 and "skipped, a result's URL checked anew" in warnings[0]
        report = json.loads((tmp_path / "r.json").read_text())
        outcomes = {e["url"]: e["outcome"] for e in report["urls"]}
        assert outcomes[f"{server.url}/missing"] == "broken", outcomes
        assert all(outcomes[f"{server.url}/{p}.html"] == "ok" for p in pages), outcomes
        assert not [h for h in server.log if "X-Injected" in h.headers]
        asked = {h.path for h in server.log if h.method == "GET"}
        assert {f"/{p}.html" for p in pages if p != "g"} | {"/missing"} <= asked
