"""A shared audit whose Redis was altered (issue 35): the records that make a
worker wait (a host's back-off in the ``bo`` hash, a lease, a host's
not-before) are clamped to what the rules could have written, so one
record never stalls every worker.  A real redis-server and a real site; the
test writes the altered record before the audit starts, and the audit
finishes, within a bound far below the hang (before: for ever)."""

from __future__ import annotations

import json
import math
import time

import pytest

from linkaudit.rules.backoff import BackoffPolicy, HostBackoff
from tests.conftest import run_process, validate
from tests.helpers.command import HANG_BOUND as BOUND
from tests.helpers.command import LINKAUDIT
from tests.redisserver import RedisServer

PAUSE, MAX_DELAY = 1.0, 0.5  # the rules' longest wait: one pause, then the delay
SETTINGS = {
    "LINKAUDIT_BACKOFF_PAUSE": str(PAUSE),
    "LINKAUDIT_BACKOFF_MAX_DELAY": str(MAX_DELAY),
    "LINKAUDIT_REDIS_LEASE": "2",
    "LINKAUDIT_REDIS_POLL": "0.05",
}
P = "la:{t}:"
HOST = "127.0.0.1"  # the site's host: Scrapy's slot key, the lease's host
ALTERED = {
    # a pause until the year 31 million: every worker held for ever
    "paused until far ahead": {P + "bo": {HOST: json.dumps({"paused_until": 1e18})}},
    # 2**(10**9): an OverflowError on every request (an internal error)
    "a level of 10**9": {P + "bo": {HOST: json.dumps({"level": 10**9, "pauses": 10**9})}},
    "negative and NaN": {
        P + "bo": {HOST: '{"level": -3, "pauses": -1, "paused_until": NaN, "backoffs": -5}'}
    },
    # the report's totals: text and a number past 2**53 (a TypeError, no report)
    "counts of text": {P + "bo": {HOST: json.dumps({"backoffs": "x", "paused": 10**30})}},
    "not JSON": {P + "bo": {HOST: "{", "other": "[1, 2]"}},
    # a lease of a worker that never was, and a not-before, neither expiring
    "a lease and a not-before for ever": {P + "lease:" + HOST: "ghost", P + "nb:" + HOST: "ghost"},
}


@pytest.mark.parametrize("altered", list(ALTERED), ids=list(ALTERED))
def test_an_altered_record_never_stalls_the_audit(tmp_path, server, altered):
    server.add("/", "".join(f"<a href=/p{i}>{i}</a>" for i in range(4)))
    for i in range(4):
        server.add(f"/p{i}", f"<p>page {i}</p>")
    with RedisServer(tmp_path / "redis") as redis:
        client = redis.client()
        for key, value in ALTERED[altered].items():
            if isinstance(value, dict):
                client.hset(key, mapping=value)
            else:
                client.set(key, value)  # no expiry
        cmd = [LINKAUDIT, f"{server.url}/", "--delay", "0", "--redis", redis.url, "--audit", "t"]
        for name, value in SETTINGS.items():
            cmd += ["-s", f"{name}={value}"]
        started = time.monotonic()
        out = run_process(cmd, cwd=tmp_path, timeout=BOUND)  # a fault of ours fails it too
        took = time.monotonic() - started
    assert out.returncode == 0, out.stderr[-3000:]
    # 6 requests at most MAX_DELAY apart, one PAUSE, start-up: far below the bound
    assert took < 15, took
    report = json.loads((tmp_path / "linkaudit-report.json").read_text())
    validate(report)
    assert report["summary"]["ok"] == 5 and report["complete"] is True
    assert 0 <= report["summary"]["backoffs"] <= 2**53


def test_the_rules_clamp_a_record_to_what_they_could_write():
    policy = BackoffPolicy(max_delay=8.0, pause=30.0, max_pauses=2)
    now = 1_000_000.0
    host = HostBackoff(policy)
    host.restore({"level": 10**9, "pauses": 10**9, "paused_until": 1e18, "backoffs": 10**30}, now)
    assert (host.level, host.pauses, host.paused_until) == (5, 2, now + 30.0)  # 0.25 * 2**5 = 8
    assert host.delay == 8.0 and host.backoffs == 2**53
    for junk in ("x", None, -1, math.nan, math.inf, 1.5, [1], True):
        host = HostBackoff(policy)
        record = dict.fromkeys(("level", "pauses", "paused_until", "backoffs", "paused"), junk)
        given_up = None if isinstance(junk, str) else junk  # a reason is text
        host.restore({**record, "given_up": given_up}, now)
        assert (host.level, host.pauses, host.paused_until, host.backoffs) == (0, 0, 0.0, 0)
        assert host.given_up is None and not host.struggling(now)
    host = HostBackoff(policy)
    host.restore(
        {"level": 2, "pauses": 1, "paused_until": now + 10, "given_up": "Host failing"}, now
    )
    assert (host.level, host.pauses, host.paused_until) == (2, 1, now + 10)  # as written
    assert host.given_up == "Host failing"
    host.restore([], now)  # not a record: nothing taken
    assert host.level == 2
