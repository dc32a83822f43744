"""Bad arguments: one clear line, exit code 2, no traceback, no request."""

from __future__ import annotations

import pytest

from tests.conftest import run_crawl


@pytest.mark.parametrize(
    "args, message",
    [
        ([], "start: give at least one URL"),
        (["-a", "start=ftp://example.com/"], "start: 'ftp://example.com/' is not an http(s) URL"),
        (["-a", "start=http:///nohost"], "start: 'http:///nohost' is not a valid URL"),
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
