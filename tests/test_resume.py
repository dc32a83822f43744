"""The audit database: an interrupted audit resumes where it stopped.

Each test interrupts a real crawl of a local site (Ctrl-C, SIGTERM, a hit
limit, kill -9), runs the same command again, and compares the final report
with an uninterrupted audit's, and the server's log over both runs with
"each URL checked once"."""

from __future__ import annotations

import signal
import sqlite3
from collections import Counter

import pytest

from tests.conftest import run_crawl, spawn_crawl, wait_for
from tests.server import Route

PAGES = 16


def build_site(server) -> None:
    """A start page, 16 pages (each with an image, a shared broken link and
    a link back), a redirect, and a far-looking 404; answers take 30 ms so
    that an interruption lands mid-crawl."""
    links = "\n".join(f'<a href="/p{i}.html">p{i}</a>' for i in range(PAGES))
    server.add("/", Route(body=links + '\n<a href="/old">old</a>', delay=0.03))
    for i in range(PAGES):
        server.add(
            f"/p{i}.html",
            Route(
                body=f'<img src="/img{i}.png">\n<a href="/missing-{i % 3}">m</a>\n<a href="/">home</a>',
                delay=0.03,
            ),
        )
        server.add(f"/img{i}.png", Route(body=b"png", content_type="image/png", delay=0.03))
    server.add("/old", Route(301, headers={"Location": "/p0.html"}, delay=0.03))


SLOW = {"CONCURRENT_REQUESTS_PER_DOMAIN": "2"}


def comparable(report: dict) -> dict:
    """What must not depend on interruptions: per URL, the outcome, status,
    method, depth and referrers."""
    return {
        u["url"]: (
            u["outcome"],
            u["status"],
            u["method"],
            u["depth"],
            u["referrer_count"],
            sorted((r["url"], r["line"] or 0) for r in u["referrers"]),
        )
        for u in report["urls"]
    }


def checks(hits) -> Counter:
    """(method, path) of every request but robots.txt."""
    return Counter((h.method, h.path) for h in hits if h.path != "/robots.txt")


def reference(tmp_path, server) -> tuple[dict, Counter]:
    ref_dir = tmp_path / "ref"
    ref_dir.mkdir()
    crawl = run_crawl(ref_dir, "-a", f"start={server.url}/", settings=SLOW)
    assert crawl.report["complete"], crawl.stderr[-2000:]
    requested = checks(server.log)
    assert max(requested.values()) == 1  # an uninterrupted audit checks each URL once
    server.log.clear()
    return comparable(crawl.report), requested


@pytest.mark.parametrize("how", ["SIGTERM", "SIGINT", "limit"])
def test_resume_after_an_interruption(tmp_path, server, how):
    build_site(server)
    expected, requested = reference(tmp_path, server)
    db = tmp_path / "audit.sqlite"
    args = ("-a", f"start={server.url}/", "-a", f"db={db}")
    if how == "limit":
        first = run_crawl(tmp_path, *args, settings={**SLOW, "CLOSESPIDER_PAGECOUNT": "12"})
        assert first.report["finish_reason"] == "closespider_pagecount"
    else:
        crawl = spawn_crawl(tmp_path, *args, settings=SLOW)
        wait_for(lambda: len(server.log) >= 15, what="15 requests")
        crawl.signal(getattr(signal, how))
        assert crawl.wait() == 0, crawl.stderr[-2000:]
    first_hits = len(server.log)
    assert 0 < first_hits < sum(requested.values())

    second = run_crawl(tmp_path, *args, settings=SLOW)
    assert "Resuming the interrupted audit" in second.stderr
    assert second.report["complete"] is True
    assert second.report["finish_reason"] == "finished"
    assert comparable(second.report) == expected
    assert second.report["summary"]["pages"] == PAGES + 1  # over both runs
    both = checks(server.log)
    assert both == requested  # every URL checked once over both runs, nothing left out

    if how == "limit":  # once is enough: a finished audit is not resumed, the next is new
        third = run_crawl(tmp_path, *args, settings=SLOW)
        assert "Resuming" not in third.stderr
        assert comparable(third.report) == expected


def test_resume_after_kill_9(tmp_path, server):
    """SIGKILL: nothing runs at exit.  What was committed (every second by
    default; 0.1 s here) is kept, the file is intact, and the next run
    requests none of the committed URLs again."""
    build_site(server)
    expected, requested = reference(tmp_path, server)
    server.delay = 0.05  # about 2 s in all: time to kill it mid-audit
    db = tmp_path / "audit.sqlite"
    args = ("-a", f"start={server.url}/", "-a", f"db={db}")
    settings = {**SLOW, "LINKAUDIT_DB_COMMIT_INTERVAL": "0.1"}
    crawl = spawn_crawl(tmp_path, *args, settings=settings)

    def committed() -> int:
        try:
            with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
                return conn.execute(
                    "SELECT count(*) FROM urls WHERE checked_run IS NOT NULL"
                ).fetchone()[0]
        except sqlite3.Error:
            return 0

    wait_for(lambda: committed() >= 12, what="12 committed results")
    crawl.signal(signal.SIGKILL)
    assert crawl.wait() == -signal.SIGKILL
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    # killed mid-audit, not after it finished (the server is slow enough)
    assert conn.execute("SELECT finish_reason FROM runs").fetchall() == [(None,)]
    done = {
        url.removeprefix(server.url)
        for (url,) in conn.execute("SELECT url FROM urls WHERE checked_run IS NOT NULL")
    }
    conn.close()
    server.log.clear()

    second = run_crawl(tmp_path, *args, settings=settings)
    assert second.report["complete"] is True
    assert comparable(second.report) == expected
    # pages scanned before the kill count, once
    assert second.report["summary"]["pages"] == PAGES + 1
    again = {path for _method, path in checks(server.log)} & done
    assert not again, f"requested again after being committed: {sorted(again)}"
