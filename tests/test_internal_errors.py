"""A fault of ours is never a verdict on someone's link: an exception of
linkaudit's (injected here by tests/faulty.py) leaves the URL unchecked with
"Internal error: ...", logs the traceback, and makes the run exit 4."""

from __future__ import annotations

import json
import os

import pytest
from scrapy.exceptions import CannotResolveHostError, DownloadTimeoutError
from twisted.internet import error as twisted_error

from linkaudit import settings as project_settings
from linkaudit.exceptions import HostUnreachable
from linkaudit.network.failures import is_network_failure
from linkaudit.rules.statuses import internal_error
from tests.conftest import ROOT, check_no_fault, run_crawl, run_process, validate
from tests.helpers.command import LINKAUDIT

BUGS = {
    "/bug-request": "TypeError: injected bug in a downloader middleware",
    "/bug-input": "AttributeError: injected bug before the callback",
    "/bug-output": "KeyError: 'injected bug after the callback'",
    "/bug-item": "ValueError: injected bug in a pipeline",
}
# -s replaces a whole component dict: the project's components stay in
FAULTY = {
    name: json.dumps({**getattr(project_settings, name), path: order})
    for name, path, order in (
        ("DOWNLOADER_MIDDLEWARES", "tests.faulty.BuggyDownloaderMiddleware", 120),
        ("SPIDER_MIDDLEWARES", "tests.faulty.BuggySpiderMiddleware", 500),
        ("ITEM_PIPELINES", "tests.faulty.BuggyPipeline", 200),
    )
}


@pytest.fixture
def site(server, closed_port):
    links = [f'<a href="{path}">bug</a>' for path in BUGS]
    links += ['<a href="/missing">404</a>', f'<a href="http://127.0.0.1:{closed_port}/">down</a>']
    server.add("/", "\n".join(links))
    for path in BUGS:
        server.add(path, "<p>a fine page</p>")
    return server


def check_report(report: dict, server) -> None:
    for path, words in BUGS.items():
        entry = next(u for u in report["urls"] if u["url"] == server.url + path)
        assert entry["outcome"] == "unchecked", entry
        assert entry["error"].startswith(f"Internal error: {words}"), entry
    assert report["summary"]["internal_errors"] == len(BUGS)
    assert report["summary"]["broken"] == 2  # the real failures stay verdicts
    assert not report["complete"]
    errors = {u["error"] for u in report["urls"] if u["outcome"] == "broken"}
    assert errors == {"404 Not Found", "Connection refused"}


def test_scrapy_crawl_reports_its_own_faults_as_internal_errors(tmp_path, site):
    crawl = run_crawl(tmp_path, "-a", f"start={site.url}/", settings=FAULTY, allow_faults=True)
    check_report(crawl.report, site)
    assert crawl.returncode == 4
    said = [line for line in crawl.stderr.splitlines() if "ERROR: Internal error while" in line]
    assert {path for path in BUGS if any(f"{site.url}{path} " in line for line in said)} == set(
        BUGS
    )
    assert "Traceback (most recent call last)" in crawl.stderr
    # the helper every crawl of the suite goes through fails on this run
    with pytest.raises(AssertionError, match="fault of ours"):
        check_no_fault(crawl.stderr)
    with pytest.raises(AssertionError):
        check_no_fault(report=crawl.report)


def test_the_command_exits_4_and_says_how_many(tmp_path, site):
    args = [LINKAUDIT, f"{site.url}/", "--delay", "0", "--report", str(tmp_path / "r.json")]
    args += [f"-s{name}={value}" for name, value in FAULTY.items()]
    env = dict(os.environ, PYTHONPATH=str(ROOT))  # tests.faulty
    out = run_process(args, cwd=tmp_path, env=env, allow_faults=True)
    assert out.returncode == 4, out.stderr[-2000:]  # wins over 1 (a 404 was found too)
    report = json.loads((tmp_path / "r.json").read_text())
    validate(report)
    check_report(report, site)
    assert "unchecked 4 (4 by internal errors)" in out.stdout
    assert "Internal errors (4): linkaudit could not check these URLs" in out.stdout
    assert f"  {site.url}/bug-item  [Internal error: ValueError" in out.stdout


@pytest.mark.parametrize(
    "exc",
    [
        CannotResolveHostError("x"),
        DownloadTimeoutError(),
        twisted_error.ConnectionRefusedError(),
        twisted_error.ConnectionLost(),
        ConnectionResetError(),
        HostUnreachable("down"),
    ],
)
def test_network_failures_are_verdicts(exc):
    assert is_network_failure(exc)


@pytest.mark.parametrize("exc", [TypeError("x"), KeyError("k"), AttributeError(), OSError(24)])
def test_everything_else_is_ours(exc):
    assert not is_network_failure(exc)
    assert internal_error(exc).startswith(f"Internal error: {type(exc).__name__}")


def test_a_fault_reading_robots_txt_is_logged_not_hidden(tmp_path, server):
    """Not "robots.txt could not be fetched": an ERROR with the traceback,
    and the site is audited as if it had no robots.txt."""
    server.add("/", '<a href="/a">a</a>')
    server.add("/robots.txt", "User-agent: *\nAllow: /\n")
    server.add("/a", "a page")
    crawl = run_crawl(
        tmp_path,
        "-a",
        f"start={server.url}/",
        settings={"ROBOTSTXT_PARSER": "tests.faulty.BuggyRobotParser"},
        allow_faults=True,
    )
    assert "ERROR: Internal error while reading robots.txt" in crawl.stderr
    assert "TypeError: injected bug in the robots.txt parser" in crawl.stderr
    assert crawl.url(f"{server.url}/a")["outcome"] == "ok"
