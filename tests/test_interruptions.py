"""Interruptions and failures at the end: nothing already checked is lost."""

from __future__ import annotations

import json
import os
import re
import resource
import shutil
import signal
import sys
from pathlib import Path

import pytest

from tests.conftest import (
    ROOT,
    Spawned,
    check_no_fault,
    crawl_command,
    journal_records,
    run_process,
    spawn_crawl,
    validate,
    wait_for,
)
from tests.server import Route

# One request at a time.  A delay is needed as well: with DOWNLOAD_DELAY=0,
# Scrapy 2.19's downloader starts every queued request of a slot at once,
# whatever CONCURRENT_REQUESTS_PER_DOMAIN says.
SERIAL = {"CONCURRENT_REQUESTS_PER_DOMAIN": "1", "DOWNLOAD_DELAY": "0.01"}


def _site(server, fast: int, slow: int, delay: float) -> None:
    links = [f'<a href="/q{i}">q</a>' for i in range(fast)]
    links += [f'<a href="/p{i}">p</a>' for i in range(slow)]
    server.add("/", "\n".join(links))
    server.add("/q*", Route(body="fast", content_type="text/plain"))
    server.add("/p*", Route(body="slow", content_type="text/plain", delay=delay))


def _checked(records: list[dict]) -> set[str]:
    return {r["url"] for r in records if r["type"] == "url"}


def test_sigterm_behaves_like_one_ctrl_c(tmp_path, server):
    _site(server, fast=3, slow=10, delay=0.3)
    journal = tmp_path / "kept.journal.jsonl"  # asked for: kept after the report
    proc = spawn_crawl(
        tmp_path, "-a", f"start={server.url}/", "-a", f"journal={journal}", settings=SERIAL
    )
    wait_for(lambda: len(_checked(journal_records(journal))) >= 4, what="four results")
    proc.signal(signal.SIGTERM)
    proc.wait(timeout=30)
    err = proc.stderr
    data = json.loads((tmp_path / "report.json").read_text())
    validate(data)
    assert data["finish_reason"] == "shutdown" and data["complete"] is False
    undone = [u for u in data["urls"] if u["outcome"] == "unchecked"]
    assert undone and {u["error"] for u in undone} == {"Not checked: the audit was interrupted"}
    assert data["summary"]["ok"] >= 4
    assert "Traceback" not in err
    # the journal ended cleanly too, with the same close reason
    assert journal_records(journal)[-1]["finish_reason"] == "shutdown"


def test_ctrl_c_twice_loses_nothing_the_journal_rebuilds_the_report(tmp_path, server):
    _site(server, fast=5, slow=5, delay=4)
    journal = tmp_path / "report.journal.jsonl"
    proc = spawn_crawl(tmp_path, "-a", f"start={server.url}/", settings=SERIAL)
    # "/" and the five fast links are done; /p0 now hangs for 4 s
    wait_for(lambda: len(_checked(journal_records(journal))) >= 6, what="six results")
    # in flight (read by the server, not answered): it keeps the first
    # Ctrl-C's graceful close waiting, so the second one lands before it ends
    wait_for(lambda: "/p0" in server.arrivals, what="the slow request")
    proc.signal(signal.SIGINT)
    # a second signal sent before Python ran the first handler would merge with it
    wait_for(lambda: "Send again to force" in proc.stderr, what="the first Ctrl-C to land")
    proc.signal(signal.SIGINT)
    proc.wait(timeout=30)
    records = journal_records(journal)
    assert records[0]["type"] == "start"
    assert all(r["type"] != "end" for r in records)  # Scrapy skipped spider_closed
    answered = {f"{server.url}{h.path}" for h in server.hits() if h.path != "/robots.txt"}
    answered.discard(f"{server.url}/p0")  # cut off by the second Ctrl-C
    assert answered <= _checked(records)

    rebuilt = tmp_path / "rebuilt.json"
    out = run_process(
        [sys.executable, "-m", "linkaudit.output.journal", str(journal), "-o", str(rebuilt)], timeout=30
    )
    assert out.returncode == 0, out.stderr
    data = json.loads(rebuilt.read_text())
    validate(data)
    assert data["finish_reason"] == "shutdown" and data["complete"] is False
    by_url = {u["url"]: u for u in data["urls"]}
    for i in range(5):
        entry = by_url[f"{server.url}/q{i}"]
        assert entry["outcome"] == "ok" and entry["referrer_count"] == 1
    assert by_url[f"{server.url}/p4"]["outcome"] == "unchecked"
    assert by_url[f"{server.url}/p4"]["referrers"] == [{"url": f"{server.url}/", "line": 10}]


@pytest.mark.parametrize("how", ["SIGINT", "--max-time"])
def test_an_interrupted_audit_counts_the_requests_the_servers_saw(
    tmp_path, server, far_server, how
):
    """``summary.requests`` counts a request as it is sent.  It counted each
    as it entered the downloader, where, at the default pace, most wait for
    their host's delay: an audit interrupted after a few seconds reported
    20 requests when the servers had received 6, the rest dropped at the
    close, never sent.  robots.txt is counted, as the report's words say."""
    near = [f"/p{i}" for i in range(30)]
    far = [f"{far_server.url}/f{i}" for i in range(30)]
    server.add("/", "".join(f'<a href="{link}">x</a>' for link in near + far))
    server.add("/p*", Route(body="slow", content_type="text/plain", delay=0.5))
    far_server.add("/f*", Route(body="slow", content_type="text/plain", delay=0.5))
    report = tmp_path / "report.json"
    cmd = [sys.executable, "-m", "linkaudit", f"{server.url}/", "--report", str(report)]
    if how == "SIGINT":
        crawl = Spawned(cmd)
        wait_for(lambda: len(server.arrivals) >= 5, what="the audit under way")
        crawl.signal(signal.SIGINT)
    else:
        crawl = Spawned([*cmd, "--max-time", "3"])
    code = crawl.wait(timeout=60)
    data = json.loads(report.read_text())
    validate(data)
    check_no_fault(crawl.stderr, report=data)
    assert code == 3 and data["complete"] is False, crawl.stderr[-2000:]
    assert data["finish_reason"] == ("shutdown" if how == "SIGINT" else "closespider_timeout")
    assert data["summary"]["unchecked"] > 0
    received = server.arrivals + far_server.arrivals
    assert "/robots.txt" in received
    assert data["summary"]["requests"] == len(received), (data["summary"], received)


def test_rebuilding_from_a_bad_journal_is_one_line(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not json\n")
    out = run_process(
        [sys.executable, "-m", "linkaudit.output.journal", str(bad), "-o", str(tmp_path / "r.json")],
        timeout=30,
    )
    assert out.returncode == 2
    assert out.stderr.strip().splitlines() == [
        "linkaudit: error: not a linkaudit journal (no start record)"
    ]


def test_report_directory_gone_at_the_end(tmp_path, server):
    _site(server, fast=3, slow=6, delay=0.3)
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    journal = out_dir / "r.journal.jsonl"
    proc = spawn_crawl(
        tmp_path,
        "-a",
        f"start={server.url}/",
        "-a",
        f"report={out_dir / 'r.json'}",
        settings=SERIAL,
    )
    wait_for(lambda: len(_checked(journal_records(journal))) >= 3, what="three results")
    shutil.rmtree(out_dir)
    assert proc.wait(timeout=60) != 0
    err = proc.stderr
    assert "Traceback" not in err
    assert re.search(r"cannot write the report .*r\.json: No such file or directory", err), err
    saved = re.search(r"the journal was saved to (\S+)", err)
    assert saved, err
    rescued = journal_records(Path(saved.group(1)))
    try:
        assert rescued[-1]["type"] == "end" and rescued[-1]["finish_reason"] == "finished"
        # every URL is in it: the start page, 3 fast and 6 slow links
        assert len(_checked(rescued)) == 10
    finally:
        os.unlink(saved.group(1))


def test_report_too_big_for_the_disk(tmp_path, server):
    """A full disk, as the process sees it: RLIMIT_FSIZE makes a write past
    24 KB fail (EFBIG, as ENOSPC would; the limit is per file).  The journal,
    written line by line, fits (about 22 KB); the report does not (about
    26 KB)."""
    server.add("/", "\n".join(f'<a href="/missing-{i:02}">x</a>' for i in range(80)))
    limit = 24 * 1024

    def small_disk() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    cmd = crawl_command(tmp_path, "-a", f"start={server.url}/")
    proc = run_process(
        cmd, timeout=60, preexec_fn=small_disk, env=dict(os.environ, PYTHONPATH=str(ROOT))
    )
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    assert re.search(
        r"cannot write the report .*report\.json: File too large; the results are in the "
        r"journal .*report\.journal\.jsonl",
        proc.stderr,
    ), proc.stderr[-2000:]
    assert not (tmp_path / "report.json").exists()
    records = journal_records(tmp_path / "report.journal.jsonl")
    assert records[-1]["type"] == "end"
    assert len(_checked(records)) == 81  # the start page and its 80 links
