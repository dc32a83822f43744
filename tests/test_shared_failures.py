"""A shared audit when things go wrong: a worker killed or stopped, every
worker killed, Redis gone; the audit's limits are global; politeness per
host holds across workers (measured in the servers' logs)."""

from __future__ import annotations

import json
import signal
from collections import Counter
from contextlib import ExitStack

import pytest

from tests.conftest import Spawned
from tests.redisserver import RedisServer
from tests.shared import (
    finish,
    requests_made,
    shared_env,
    start_workers,
    the_report,
    wait_for_results,
    worker_command,
)
from tests.sitegen import assert_same, audit, comparable, generated_site

SLOW = {"CONCURRENT_REQUESTS_PER_DOMAIN": "1"}  # one request at a time per host


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    with ExitStack() as stack:
        yield shared_env(stack, tmp_path_factory)


def _owner(redis, name: str, host: str = "127.0.0.1") -> int:
    """The PID of the worker that owns ``host``."""
    worker = redis.client().get(f"la:{{{name}}}:lease:{host}")
    assert worker, f"nobody owns {host}"
    return int(worker.split(":")[1])


def _slowly(site):
    site.clear_logs()
    site.near.delay = site.far.delay = 0.01


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM], ids=["kill", "term"])
def test_a_worker_stops_the_others_finish_the_audit(env, tmp_path, sig):
    site, redis, plain, plain_requests = env
    name = f"stop-{sig.name}"
    _slowly(site)
    try:
        workers = start_workers(site, redis.url, name, tmp_path, 3, **SLOW)
        wait_for_results(redis.client(), name, len(plain["urls"]) // 4)
        victim = next(w for w in workers if w.crawl.proc.pid == _owner(redis, name))
        victim.crawl.signal(sig)
        finish(workers)
    finally:
        site.near.delay = site.far.delay = 0.0
    others = [w for w in workers if w is not victim]
    assert [w.code for w in others] == [1, 1], [w.crawl.stderr[-1500:] for w in others]
    assert not victim.report.exists()
    if sig == signal.SIGKILL:
        assert victim.code == -signal.SIGKILL
    else:  # it hands its claims back and leaves at once
        assert victim.code == 3
        assert "handing" in victim.crawl.stderr and "back" in victim.crawl.stderr
    assert_same(the_report(others), plain)
    # what the dead worker had claimed was checked again, at most once
    again = requests_made(site) - plain_requests
    assert max(again.values(), default=0) <= 1, again
    assert not (plain_requests - requests_made(site))


def test_every_worker_killed_then_the_same_command_resumes(env, tmp_path):
    site, redis, plain, _ = env
    _slowly(site)
    try:
        first = start_workers(site, redis.url, "resume", tmp_path / "first", 2, **SLOW)
        wait_for_results(redis.client(), "resume", len(plain["urls"]) // 3)
        for w in first:
            w.crawl.signal(signal.SIGKILL)
        assert {w.crawl.wait() for w in first} == {-signal.SIGKILL}
    finally:
        site.near.delay = site.far.delay = 0.0
    done = int(redis.client().hget("la:{resume}:meta", "checked"))
    assert done < len(plain["urls"])
    second = finish(start_workers(site, redis.url, "resume", tmp_path / "second", 2))
    assert_same(the_report(second), plain)


def test_redis_gone_mid_audit_one_line_and_exit_3(env, tmp_path):
    site, _, _, _ = env
    with RedisServer(tmp_path / "redis") as own:
        _slowly(site)
        try:
            report = tmp_path / "report.json"
            crawl = Spawned(worker_command(site, own.url, "gone", report, **SLOW))
            wait_for_results(own.client(), "gone", 30)
            own.stop()
            code = crawl.wait(timeout=60)  # checks the log: no traceback, no fault
        finally:
            site.near.delay = site.far.delay = 0.0
    assert code == 3
    assert "lost the connection to Redis" in crawl.stderr
    assert not report.exists()


def test_limits_are_the_audits(env, tmp_path):
    site, redis, plain, _ = env
    site.clear_logs()
    workers = finish(
        start_workers(site, redis.url, "limited", tmp_path, 2, "--max-requests", "120", **SLOW)
    )
    report = the_report(workers)
    assert report["complete"] is False
    assert report["finish_reason"] == "closespider_pagecount"
    assert len({w.code for w in workers}) == 1
    answered = len(site.near.log) + len(site.far.log)
    # the count is shared once a second (the heartbeat): what was in flight
    # and answered in that second comes on top; far fewer than the whole audit
    assert 120 <= answered < plain["summary"]["requests"] // 2, answered
    unchecked = [u for u in report["urls"] if u["outcome"] == "unchecked"]
    assert unchecked and all(u["error"] == "Not checked: hit limit reached" for u in unchecked)


def test_depth_limit_is_the_audits(env, tmp_path):
    site, redis, _, _ = env
    alone = audit(site, tmp_path / "alone", "--depth", "1")
    workers = finish(start_workers(site, redis.url, "depth", tmp_path / "w", 2, "--depth", "1"))
    report = the_report(workers)
    assert comparable(report) == comparable(alone)
    assert report["complete"] is False and report["summary"] == alone["summary"]


def test_politeness_per_host_across_three_workers(tmp_path):
    delay = 0.2
    with ExitStack() as stack:
        site = generated_site(stack, tmp_path / "site", pages=12, far_host="127.0.0.2")
        redis = stack.enter_context(RedisServer(tmp_path / "redis"))
        site.near.route_for("/").delay = 1.0  # every worker joins before level 1
        workers = start_workers(
            site,
            redis.url,
            "polite",
            tmp_path / "w",
            3,
            "--delay",
            str(delay),
            CONCURRENT_REQUESTS_PER_DOMAIN="4",
        )
        # --delay after the defaults: the last option wins
        finish(workers, timeout=180)
        report = the_report(workers)
        for server in (site.near, site.far):
            times = sorted(h.arrived for h in server.log)
            gaps = [b - a for a, b in zip(times, times[1:], strict=False)]
            assert len(times) > 5
            assert min(gaps) >= delay - 0.02, (server.url, sorted(gaps)[:5])
    assert report["complete"] is True
    assert Counter(w.code for w in workers) == Counter({1: 3})
    json.dumps(report)
