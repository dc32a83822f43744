"""One audit across several workers on Redis gives the single process's
report: same URLs, outcomes, statuses, depths, referrers and counts, every
(method, URL) requested once, robots.txt once per host, the report written
once; politeness per host holds across workers."""

from __future__ import annotations

import json
import time
from contextlib import ExitStack

import pytest

from tests.shared import finish, requests_made, shared_env, start_workers, the_report
from tests.sitegen import assert_same


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    with ExitStack() as stack:
        site, redis, plain, plain_requests = shared_env(stack, tmp_path_factory)
        yield site, redis, plain, plain_requests


@pytest.mark.parametrize("n", [1, 2, 3])
def test_n_workers_write_the_single_process_report(env, tmp_path, n):
    site, redis, plain, plain_requests = env
    site.clear_logs()
    # the start page is answered once every worker has joined: the first
    # level opens to all of them, so the two hosts go to two workers
    # (however late a loaded machine starts the last one)
    joined = redis.client()

    def all_joined() -> None:
        deadline = time.monotonic() + 60
        while joined.scard(f"la:{{same-{n}}}:workers") < n and time.monotonic() < deadline:
            time.sleep(0.02)

    site.near.route_for("/").gate = all_joined
    try:
        workers = finish(start_workers(site, redis.url, f"same-{n}", tmp_path, n))
    finally:
        site.near.route_for("/").gate = None
    assert [w.code for w in workers] == [1] * n  # the site has broken links
    report = the_report(workers)
    assert_same(report, plain)
    # one report and nothing else: no worker leaves its journal behind
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        w.report.name for w in workers if w.report.exists()
    ]
    assert report["summary"]["pages"] == plain["summary"]["pages"]
    assert report["summary"]["requests"] == plain["summary"]["requests"]
    made = requests_made(site)
    # each (method, URL) as often as alone: once (twice for the URL that
    # answers 429 once), robots.txt once per host
    assert made == plain_requests, (made - plain_requests, plain_requests - made)
    assert made["near", "GET", "/robots.txt"] == made["far", "GET", "/robots.txt"] == 1
    # the work was shared: each host's owner sent its requests
    work = redis.client().hgetall(f"la:{{same-{n}}}:work")
    busy = [k for k, v in work.items() if k.endswith(":requests") and int(v) > 0]
    assert len(busy) == min(n, 2), work


def test_a_finished_audit_makes_no_request_and_gives_its_verdict(env, tmp_path):
    site, redis, plain, _ = env
    first = finish(start_workers(site, redis.url, "done", tmp_path / "first", 1))
    report = the_report(first)
    site.clear_logs()
    again = finish(start_workers(site, redis.url, "done", tmp_path / "again", 1))
    assert again[0].code == 1
    assert not again[0].report.exists()
    assert str(first[0].report) in again[0].crawl.stderr
    assert not site.near.log and not site.far.log
    # --restart audits again
    fresh = finish(start_workers(site, redis.url, "done", tmp_path / "fresh", 1, "--restart"))
    assert_same(the_report(fresh), report)


def test_two_audits_share_one_redis_and_keys_expire(env, tmp_path):
    site, redis, plain, _ = env
    one = start_workers(site, redis.url, "alpha", tmp_path / "a", 2)
    two = start_workers(site, redis.url, "beta", tmp_path / "b", 1, LINKAUDIT_REDIS_EXPIRE="0")
    finish(one + two)
    assert_same(the_report(one), plain)
    assert_same(the_report(two), plain)
    client = redis.client()
    alpha = list(client.scan_iter("la:{alpha}:*"))
    beta = list(client.scan_iter("la:{beta}:*"))
    assert alpha and beta
    assert all(0 < client.ttl(k) <= 86400 for k in alpha)  # a day by default
    kept = [k for k in beta if k.split(":")[2] in ("meta", "u", "c", "r", "work")]
    assert kept and all(client.ttl(k) == -1 for k in kept)  # kept: the results


def test_linkaudit_report_rebuilds_it_from_redis(env, tmp_path):
    site, redis, plain, _ = env
    workers = finish(start_workers(site, redis.url, "rebuild", tmp_path, 2))
    written = the_report(workers)
    rebuilt = tmp_path / "rebuilt.json"
    from tests.conftest import run_process
    from tests.sitegen import LINKAUDIT

    out = run_process(
        [LINKAUDIT, "report", "--redis", redis.url, "--audit", "rebuild", "--report", str(rebuilt)]
    )
    assert out.returncode == 1, out.stderr
    again = json.loads(rebuilt.read_text())
    for report in (written, again):
        report.pop("finished_at")
    assert again == written


def test_retries_are_every_worker_s(env, tmp_path):
    """summary.retries of a shared audit counts every worker's retries (each
    adds its own to Redis when it leaves), in the report a worker writes and
    in ``linkaudit report``: not only the writer's."""
    site, redis, _plain, _ = env
    site.clear_logs()  # the generated site's one 429 answers 429 again
    workers = finish(start_workers(site, redis.url, "retried", tmp_path, 2))
    written = the_report(workers)
    throttled = sum(1 for h in site.near.log + site.far.log if h.status == 429)
    assert throttled >= 1
    assert written["summary"]["retries"] >= throttled, written["summary"]
    rebuilt = tmp_path / "rebuilt.json"
    from tests.conftest import run_process
    from tests.sitegen import LINKAUDIT

    cmd = [LINKAUDIT, "report", "--redis", redis.url, "--audit", "retried", "--report", str(rebuilt)]
    out = run_process(cmd)
    assert out.returncode == 1, out.stderr
    assert json.loads(rebuilt.read_text())["summary"]["retries"] == written["summary"]["retries"]
