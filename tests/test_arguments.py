"""Bad arguments: one clear line, exit code 2, no traceback, no request."""

from __future__ import annotations

import pytest

from tests.conftest import run_crawl


@pytest.mark.parametrize(
    "args, message",
    [
        ([], "start: give at least one URL"),
        (["-a", "start=ftp://example.com/"], "start: 'ftp://example.com/' is not an http(s) URL"),
        (["-a", "start=http://256.1.1.1/"], "start: 'http://256.1.1.1/' is not a valid URL"),
        (
            ["-a", "start={url}/", "-a", "report=/nonexistent/dir/r.json"],
            "report: directory /nonexistent/dir does not exist",
        ),
        (["-a", "start={url}/", "-a", "depth=two"], "depth: 'two' is not a whole number"),
        (
            ["-a", "start={url}/", "-a", "contact=nobody"],
            "contact: 'nobody' is not an e-mail address",
        ),
        (["-a", "start={url}/", "-a", "colour=red"], "colour: unknown argument"),
    ],
)
def test_bad_arguments(tmp_path, server, args, message):
    args = [a.replace("{url}", server.url) for a in args]
    crawl = run_crawl(tmp_path, *args)
    assert crawl.returncode == 2
    assert "Traceback" not in crawl.stderr
    errors = [line for line in crawl.stderr.splitlines() if "error" in line.lower()]
    assert errors == [f"linkaudit: error: {message}" + errors[0].split(message, 1)[1]], crawl.stderr
    assert crawl.report is None
    assert server.log == []


@pytest.mark.parametrize(
    "settings, message",
    [
        ({"DOWNLOAD_DELAY": "-1"}, "DOWNLOAD_DELAY: '-1' is negative"),
        ({"DOWNLOAD_DELAY": "soon"}, "DOWNLOAD_DELAY: 'soon' is not a number"),
        ({"CLOSESPIDER_PAGECOUNT": "many"}, "CLOSESPIDER_PAGECOUNT: 'many' is not a whole number"),
        ({"CLOSESPIDER_TIMEOUT": "-5"}, "CLOSESPIDER_TIMEOUT: '-5' is negative"),
        ({"DOWNLOAD_TIMEOUT": "0"}, "DOWNLOAD_TIMEOUT: '0' is too small (at least 0.001)"),
        ({"LINKAUDIT_DEPTH": "deep"}, "LINKAUDIT_DEPTH: 'deep' is not a whole number"),
        ({"LINKAUDIT_PAGE_MAXSIZE": "1e"}, "LINKAUDIT_PAGE_MAXSIZE: '1e' is not a whole number"),
        (
            {"LINKAUDIT_ACCEPT_STATUS": "403,abc"},
            "LINKAUDIT_ACCEPT_STATUS: 'abc' is not an HTTP status",
        ),
        ({"LINKAUDIT_EXCLUDE": "("}, "LINKAUDIT_EXCLUDE: '(' is not a regular expression"),
        ({"ROBOTSTXT_OBEY": "maybe"}, "ROBOTSTXT_OBEY: 'maybe' is not true or false"),
        (
            {"LINKAUDIT_CONTACT": "webmaster"},
            "LINKAUDIT_CONTACT: 'webmaster' is not an e-mail address",
        ),
        ({"LINKAUDIT_STATE": "no.such.State"}, "LINKAUDIT_STATE: cannot load 'no.such.State'"),
        (
            {"LINKAUDIT_JOURNAL": "/nonexistent/j.jsonl"},
            "journal: directory /nonexistent does not exist",
        ),
    ],
)
def test_bad_settings(tmp_path, server, settings, message):
    crawl = run_crawl(tmp_path, "-a", f"start={server.url}/", settings=settings)
    assert crawl.returncode == 2
    assert "Traceback" not in crawl.stderr
    errors = [line for line in crawl.stderr.splitlines() if "error" in line.lower()]
    assert len(errors) == 1 and errors[0].startswith(f"linkaudit: error: {message}"), crawl.stderr
    assert crawl.report is None
    assert server.log == []
