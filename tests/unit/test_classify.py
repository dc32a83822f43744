"""What answers and failures mean; which URLs are never requested."""

from __future__ import annotations

import email.utils
import re
import time

import pytest
from scrapy.exceptions import (
    CannotResolveHostError,
    DownloadConnectionRefusedError,
    DownloadTimeoutError,
)
from scrapy.settings import Settings

from linkaudit.config import checks
from linkaudit.hosts.retryafter import retry_after_seconds
from linkaudit.network.failures import describe_failure
from linkaudit.rules.guards import TrapGuards
from linkaudit.rules.statuses import judge_status, media_type, status_text


@pytest.mark.parametrize(
    "status, headers, head, verdict",
    [
        (200, {}, True, "ok"),
        (204, {}, False, "ok"),
        (301, {}, True, "fallback"),  # HEAD is a hint: its redirect is confirmed by GET
        (301, {}, False, "redirect"),
        (404, {}, True, "fallback"),  # a GET's answer is the verdict, 404 and 410 too
        (410, {}, True, "fallback"),
        (404, {}, False, "broken"),
        (405, {}, True, "fallback"),
        (501, {}, True, "fallback"),
        (403, {}, True, "fallback"),
        (500, {}, True, "fallback"),
        (500, {}, False, "broken"),
        (405, {}, False, "broken"),
        (429, {}, True, "unchecked"),
        (999, {}, True, "fallback"),  # a wall on a HEAD: the GET decides
        (999, {}, False, "unchecked"),
        (403, {b"cf-mitigated": [b"challenge"]}, False, "unchecked"),
    ],
)
def test_judge_status(status, headers, head, verdict):
    assert judge_status(status, headers, head=head) == verdict


def test_accepted_statuses_are_ok():
    assert judge_status(403, {}, head=False, accept={403}) == "ok"


def test_words_for_people():
    assert status_text(404) == "404 Not Found"
    assert status_text(301) == "301 Moved Permanently"
    assert media_type(b"Text/HTML; charset=UTF-8") == "text/html"
    assert media_type(None) is None
    assert describe_failure(CannotResolveHostError("x"), host="nosuch.invalid", timeout=15) == (
        "DNS lookup failed for nosuch.invalid"
    )
    assert (
        describe_failure(DownloadConnectionRefusedError(), host="h", timeout=15)
        == "Connection refused"
    )
    assert describe_failure(DownloadTimeoutError(), host="h", timeout=15) == "Timed out after 15 s"


@pytest.mark.parametrize(
    "url, reason",
    [
        ("http://user:pw@h/", "user info"),
        ("http://h/a//b", "'//' in the path"),
        ("http://h/docs/docs/docs/docs/", "repeated more than 3 times"),
        ("http://h/" + "a/" * 40, "deeper than 32"),
        ("http://h/private/x", "LINKAUDIT_EXCLUDE"),
        ("http://h/docs/docs/docs/", None),
        ("http://h/2024/01/01/post", None),
    ],
)
def test_trap_guards(url, reason):
    guards = TrapGuards(patterns=(re.compile(r"/private/"),))
    got = guards.reason(url)
    assert (got is None) if reason is None else (reason in got)


@pytest.mark.parametrize(
    "url",
    [
        "https://web.archive.org/web/2020/https://example.com/",
        "http://h/docs/docs/docs/docs/",
        "http://h/" + "a/" * 40,
    ],
)
def test_trap_guards_leave_far_urls_alone(url):
    """Far URLs are checked, never crawled: they cannot trap the crawl."""
    guards = TrapGuards(patterns=(re.compile(r"/private/"),))
    assert guards.reason(url, near=True) is not None
    assert guards.reason(url, near=False) is None
    assert "LINKAUDIT_EXCLUDE" in guards.reason("http://far/private/x", near=False)
    assert "user info" in guards.reason("http://u:p@far/", near=False)


def test_guards_can_be_switched_off():
    off = TrapGuards(0, 0, False, False)
    assert off.reason("http://u@h//docs/docs/docs/docs/docs/") is None


def test_retry_after_forms():
    assert retry_after_seconds(b"120") == 120
    when = email.utils.formatdate(time.time() + 30, usegmt=True).encode()
    assert 28 <= retry_after_seconds(when) <= 31
    assert retry_after_seconds(b"soon") is None and retry_after_seconds(None) is None
    # not ASCII digits, or a date out of range once converted: absent, never an error
    for odd in ["²", "٣", " ", "-1", "1.5", "Fri, 31 Dec 9999 23:59:59 -2359", "Fri, ٣1 Dec 2099"]:
        for value in (odd.encode("latin-1", "replace"), odd.encode()):
            assert retry_after_seconds(value) is None, value
    assert retry_after_seconds(b"9" * 5000) == float("inf")  # more than int()'s 4300 digits


def _read(reader, value):
    return reader(Settings({"X": value}), "X")


def test_argument_parsing():
    depth = checks.number(int, 0, optional=True)
    assert checks.split_list(" a, b\tc ,, ") == ["a", "b", "c"]
    assert _read(checks.start_urls, "http://H/ https://h/x,http://H/") == (
        "http://h/",
        "https://h/x",
    )
    assert _read(depth, "0") == 0 and _read(depth, None) is None
    assert _read(checks.email, " bot-admin@example.org ") == "bot-admin@example.org"
    for reader, bad in ((checks.start_urls, ""), (depth, "-1"), (checks.email, "a@b")):
        with pytest.raises(ValueError):
            _read(reader, bad)
