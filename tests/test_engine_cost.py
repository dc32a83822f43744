"""What the audit's machinery does per request and at start, counted (not
timed): no log record built that the log will not show, no stats call
through Scrapy's deprecation wrapper, no ``inspect.stack()`` at start, no
component in the chain that has nothing to do in this audit, and few
garbage collections while requests are made.  Each was a measurable share
of a small site's audit (bench/README.md, "Start-up")."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from tests.conftest import run_process
from tests.server import Route

# The command in this process, with counters around what it should not do;
# the counts are printed last.  ``SITE`` is the audited origin: a record
# whose arguments name one of its URLs is a per-URL line.
PROBE = """
import collections, gc, inspect, json, logging, sys, time
import scrapy.statscollectors

SITE = sys.argv.pop(1)
counts = collections.Counter()

make_record = logging.Logger.makeRecord
def counting_make_record(self, name, level, *args, **kwargs):
    record = make_record(self, name, level, *args, **kwargs)
    if SITE in str(record.args):
        counts["records " + logging.getLevelName(level)] += 1
    return record
logging.Logger.makeRecord = counting_make_record

scrapy_getattribute = scrapy.statscollectors.StatsCollector.__getattribute__
def counting_getattribute(self, name):
    counts["stats wrapper"] += 1
    return scrapy_getattribute(self, name)
scrapy.statscollectors.StatsCollector.__getattribute__ = counting_getattribute

stack = inspect.stack
def counting_stack(*args, **kwargs):
    counts["inspect.stack"] += 1
    return stack(*args, **kwargs)
inspect.stack = counting_stack

collections_at = []  # (time.monotonic(), generation) of each collection
def on_collection(phase, info):
    if phase == "stop":
        collections_at.append((time.monotonic(), info["generation"]))
gc.callbacks.append(on_collection)

from linkaudit.cli import main
try:
    code = main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
counts["collections"] = collections_at
print("COUNTS", json.dumps(counts))
sys.exit(code)
"""


def _site(server, pages: int = 12) -> None:
    links = "".join(f'<a href="/p{i}">{i}</a>' for i in range(pages))
    server.add("/", Route(body=f"<title>home</title>{links}<a href='/gone'>x</a>"))
    for i in range(pages):
        server.add(f"/p{i}", Route(body=f"<title>p{i}</title><a href='/'>home</a>"))


def _audit(server, tmp_path: Path, *args: str) -> tuple[int, dict, str, dict]:
    """The command's exit code, its counts, its stderr and its report."""
    report = tmp_path / "report.json"
    cmd = [sys.executable, "-c", PROBE, server.url, f"{server.url}/", "--delay", "0"]
    proc = run_process([*cmd, "--report", str(report), *args])
    line = next(x for x in proc.stdout.splitlines() if x.startswith("COUNTS"))
    return proc.returncode, json.loads(line[len("COUNTS") :]), proc.stderr, json.loads(
        report.read_text()
    )


def _enabled(stderr: str, kind: str) -> list[str]:
    """The components Scrapy's log says are enabled (``kind``: spider
    middlewares, downloader middlewares...)."""
    found = re.search(rf"Enabled {kind}:\n(\[.*?\])", stderr, re.S)
    assert found, stderr[-3000:]
    return re.findall(r"'([\w.]+)'", found.group(1))


def test_a_quiet_audit_builds_no_line_per_url_and_counts_straight(server, tmp_path):
    _site(server)
    code, counts, stderr, report = _audit(server, tmp_path, "-q")
    assert code == 1, stderr[-3000:]  # /gone
    assert report["summary"]["urls"] == 14
    # Scrapy's "crawled" (INFO) and "scraped" (DEBUG) lines, one per
    # response and per URL, were built and thrown away at -q
    assert {k: n for k, n in counts.items() if k.startswith("records")} == {}
    assert stderr == ""
    # the stats are right, and none went through Scrapy's per-call wrapper
    assert report["summary"]["requests"] == len(server.log)
    assert counts.get("stats wrapper", 0) == 0
    # Scrapy's deprecated TLS classes, defined when its HTTP handler is
    # imported, looked their module up in inspect.stack() (every frame's source)
    assert counts.get("inspect.stack", 0) == 0


def test_the_log_still_says_what_it_said(server, tmp_path):
    _site(server, pages=3)
    code, counts, stderr, _ = _audit(server, tmp_path, "-v")
    assert code == 1
    for hit in server.log:  # one INFO line per response, as before
        assert f"{hit.method} {hit.status} {server.url}{hit.path}\n" in stderr, hit
    assert counts.get("records DEBUG", 0) == 0  # -v is INFO: no DEBUG line built


def test_components_with_nothing_to_do_are_out_of_the_chain(server, tmp_path):
    _site(server, pages=1)
    *_, stderr, _ = _audit(server, tmp_path, "-v")
    spider = _enabled(stderr, "spider middlewares")
    downloader = _enabled(stderr, "downloader middlewares")
    # no build directory: no symbolic link out of one to look for
    assert "linkaudit.localbuild.middleware.LinkOutMiddleware" not in spider
    # the spider builds every request's meta afresh: nothing to warn about
    assert "scrapy.spidermiddlewares.metacopy.MetaCopyDetectionMiddleware" not in spider
    # no audit database: no history to look up
    assert "linkaudit.middlewares.recheck.RecheckMiddleware" not in downloader
    assert "linkaudit.middlewares.robots.RobotsMiddleware" in downloader  # the list is read

    *_, stderr, _ = _audit(server, tmp_path, "-v", "--db", str(tmp_path / "audit.db"))
    assert "linkaudit.middlewares.recheck.RecheckMiddleware" in _enabled(
        stderr, "downloader middlewares"
    )

    build = tmp_path / "build"
    build.mkdir()  # a far link: the crawl checks it after the walk of the build
    (build / "index.html").write_text(f'<title>home</title><a href="{server.url}/">far</a>')
    proc = run_process([sys.executable, "-m", "linkaudit", str(build), "-v"], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "linkaudit.localbuild.middleware.LinkOutMiddleware" in _enabled(
        proc.stderr, "spider middlewares"
    )


def _during_requests(server, counts: dict) -> list[int]:
    """The generations of the collections made between the first request
    the server read and the last (its clock and the probe's are the same,
    CLOCK_MONOTONIC)."""
    arrived = [hit.arrived for hit in server.log]
    return [g for at, g in counts["collections"] if min(arrived) <= at <= max(arrived)]


def test_few_garbage_collections_while_requests_are_made(server, tmp_path):
    _site(server, pages=60)
    code, counts, stderr, report = _audit(server, tmp_path, "-q")
    assert code == 1, stderr[-3000:]
    assert report["summary"]["urls"] == 62
    requests = len(server.log)
    assert requests > 120
    # Python's pace (every 700 allocations) was a collection every few
    # requests (21 of them here), and now and then a full one over
    # everything alive; now the first comes after about 40 requests
    during = _during_requests(server, counts)
    assert len(during) <= requests / 10, (len(during), requests)
    assert 2 not in during


def test_the_collector_can_be_left_as_python_sets_it(server, tmp_path):
    _site(server, pages=60)
    code, counts, stderr, _ = _audit(server, tmp_path, "-q", "-s", "LINKAUDIT_GC_THRESHOLD=0")
    assert code == 1, stderr[-3000:]
    assert len(_during_requests(server, counts)) > len(server.log) / 10  # the test above can fail
