"""One site, every mode, the same answer.

A generated site that has everything (tests/sitegen.py: far origin,
redirects and chains of them into 404 and to the far origin, 404/410/500
near and far, extension-less binaries, robots.txt rules, a URL that answers
429 once).  The plain audit must find exactly the generator's ground truth;
then every other door and mode must give the same outcome, status, depth,
location and referrer count for every URL, and the same referrers (pages and
lines) for every URL that is not ok.  Only ``from_cache``, ``not_modified``
and ``checked_at`` may differ.
"""

from __future__ import annotations

import json
import signal
import sqlite3
import sys
from contextlib import ExitStack
from pathlib import Path

import pytest

from tests.conftest import (
    Spawned,
    crawl_command,
    journal_records,
    run_crawl,
    run_process,
    validate,
    wait_for,
)
from tests.helpers.command import LINKAUDIT
from tests.sitegen import GeneratedSite, assert_same, audit, generated_site

FAST = {"CONCURRENT_REQUESTS_PER_DOMAIN": "8"}
# one request at a time per host: slow enough to interrupt where we choose
SERIAL = {"CONCURRENT_REQUESTS_PER_DOMAIN": "1", "LINKAUDIT_DB_COMMIT_INTERVAL": "0.1"}


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> GeneratedSite:
    with ExitStack() as stack:
        yield generated_site(stack, tmp_path_factory.mktemp("site"))


@pytest.fixture(scope="module")
def plain(site, tmp_path_factory) -> dict:
    return audit(site, tmp_path_factory.mktemp("plain"))


def test_the_plain_audit_finds_the_ground_truth(site, plain):
    got = {u["url"]: (u["outcome"], u["status"]) for u in plain["urls"]}
    assert got == site.expected()
    assert plain["complete"] is True
    # binaries are never downloaded, whatever their name; far pages neither:
    # a far GET is robots.txt or the GET after a HEAD that failed or redirected
    near_gets = {h.path for h in site.near.hits(method="GET")}
    assert not {p for p in near_gets if p.startswith(("/bin/", "/img/"))}
    failed_heads = {h.path for h in site.far.hits(method="HEAD") if h.status >= 300}
    far_gets = {h.path for h in site.far.hits(method="GET")}
    assert far_gets - failed_heads == {"/robots.txt"}


def test_fast_mode(site, plain, tmp_path):
    assert_same(audit(site, tmp_path, settings={"LINKAUDIT_HEAD_FIRST": "False"}), plain)


def test_scrapy_crawl(site, plain, tmp_path):
    crawl = run_crawl(tmp_path, "-a", f"start={site.start}", settings=FAST)
    assert_same(crawl.report, plain)


def test_database_fresh_then_recheck_then_conditional(site, plain, tmp_path):
    db = str(tmp_path / "audit.sqlite")
    assert_same(audit(site, tmp_path / "fresh", "--db", db), plain)

    again = audit(
        site, tmp_path / "recheck", "--db", db, settings={"LINKAUDIT_RECHECK_GOOD_AFTER": "3600"}
    )
    assert_same(again, plain)
    ok = {u["url"] for u in plain["urls"] if u["outcome"] == "ok"}
    asked = {site.near.url + h.path for h in site.near.log} | {
        site.far.url + h.path for h in site.far.log
    }
    assert not (asked & ok), sorted(asked & ok)[:5]  # fresh ok URLs are not requested
    assert any(u.get("from_cache") for u in again["urls"])

    conditional = audit(site, tmp_path / "conditional", "--db", db)
    assert_same(conditional, plain)
    assert any(u.get("not_modified") for u in conditional["urls"])
    assert any(h.status == 304 for h in site.near.log)


def _committed(db: Path) -> int:
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
            return conn.execute(
                "SELECT count(*) FROM urls WHERE checked_run IS NOT NULL"
            ).fetchone()[0]
    except sqlite3.Error:
        return 0


def _interrupt(site: GeneratedSite, directory: Path, db: Path, sig: int, after: int) -> None:
    """Start the command, stop it with ``sig`` once ``after`` results are
    committed to the database."""
    directory.mkdir()
    site.clear_logs()
    cmd = [LINKAUDIT, site.start, "--delay", "0", "--report", str(directory / "report.json")]
    cmd += ["--db", str(db)] + [f"-s{k}={v}" for k, v in SERIAL.items()]
    site.near.delay = 0.005  # about 4 s in all: time to stop it where we choose
    try:
        crawl = Spawned(cmd)
        wait_for(lambda: _committed(db) >= after, timeout=60, what=f"{after} committed results")
        crawl.signal(sig)
        code = crawl.wait(timeout=60)
    finally:
        site.near.delay = 0.0
    if sig == signal.SIGKILL:
        assert code == -signal.SIGKILL
    else:  # the report of an interrupted audit: broken links found so far, or incomplete
        assert code in (1, 3), crawl.stderr[-2000:]
        report = json.loads((directory / "report.json").read_text())
        assert report["finish_reason"] == "shutdown" and not report["complete"]


@pytest.mark.parametrize(
    "sig, share",
    [(signal.SIGKILL, 0.1), (signal.SIGKILL, 0.8), (signal.SIGTERM, 0.4)],
    ids=["kill-early", "kill-late", "term"],
)
def test_interrupted_then_the_same_command(site, plain, tmp_path, sig, share):
    db = tmp_path / "audit.sqlite"
    _interrupt(site, tmp_path / "first", db, sig, int(len(plain["urls"]) * share))
    assert _committed(db) < len(plain["urls"])  # stopped mid-audit
    resumed = audit(site, tmp_path / "second", "--db", str(db))
    assert_same(resumed, plain)


def test_ctrl_c_twice_then_the_journal(site, plain, tmp_path):
    """No report after a forced stop; the journal gives back what was
    checked, with the plain audit's outcomes."""
    journal = tmp_path / "audit.journal.jsonl"
    cmd = crawl_command(
        tmp_path, "-a", f"start={site.start}", "-a", f"journal={journal}", settings=SERIAL
    )
    site.clear_logs()
    site.near.delay = 0.005
    try:
        crawl = Spawned(cmd)
        wait_for(lambda: len(journal_records(journal)) > 100, timeout=60, what="100 results")
        crawl.signal(signal.SIGINT)
        crawl.signal(signal.SIGINT)
        crawl.wait(timeout=60)
    finally:
        site.near.delay = 0.0
    rebuilt = tmp_path / "rebuilt.json"
    out = run_process(
        [sys.executable, "-m", "linkaudit.output.journal", str(journal), "-o", str(rebuilt)]
    )
    assert out.returncode == 0, out.stderr
    report = json.loads(rebuilt.read_text())
    validate(report)
    assert report["complete"] is False
    want = {u["url"]: (u["outcome"], u["status"], u["depth"]) for u in plain["urls"]}
    checked = [u for u in report["urls"] if u["outcome"] != "unchecked"]
    assert len(checked) > 100
    for u in checked:
        assert (u["outcome"], u["status"], u["depth"]) == want[u["url"]], u
    assert {u["url"] for u in report["urls"]} <= set(want)
