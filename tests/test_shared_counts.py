"""A shared audit's counts come from the shared state: after workers are
killed (``kill -9``) and replaced, ``summary.pages`` is the single process's
and ``summary.requests`` is every request the servers received, the killed
workers' included.

A worker is killed the instant its request for a trap page reaches the
server (the page answers normally, and once its headers are out, the
server kills whoever owns its host): one request at a time per host, so
that worker has nothing else on its way and its count is known exactly."""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator
from contextlib import ExitStack

import pytest
from redis import Redis

from linkaudit.state.redis.counting import RequestCounter
from tests.conftest import wait_for
from tests.redisserver import RedisServer
from tests.server import Route
from tests.shared import finish, start_workers, the_report
from tests.sitegen import assert_same, audit, generated_site

SLOW = {"CONCURRENT_REQUESTS_PER_DOMAIN": "1"}  # one request at a time per host


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    """A site of 200 pages on two hosts (127.0.0.1 and .2), a Redis, and
    the single process's report."""
    with ExitStack() as stack:
        site = generated_site(stack, tmp_path_factory.mktemp("site"), 200, "127.0.0.2")
        redis = stack.enter_context(RedisServer(tmp_path_factory.mktemp("redis")))
        yield site, redis, audit(site, tmp_path_factory.mktemp("plain"))


class Trap:
    """A near page whose first GET kills the owner of the site's host (or
    every worker, ``everyone``) and notes which hosts that owner held."""

    def __init__(self, site, redis, audit: str, plain: dict, everyone: bool = False):
        self.site, self.redis, self.audit, self.everyone = site, redis, audit, everyone
        # a page of the second level: the audit is well under way
        pages = [u["url"] for u in plain["urls"] if u.get("page") and u["depth"] == 2]
        self.path = pages[len(pages) // 2].removeprefix(site.near.url)
        self.route = site.near.route_for(self.path)
        assert self.route is not None and not self.route.sequence
        self.killed: list[int] = []
        self.held: set[str] = set()
        self.sprung = threading.Event()

    def __enter__(self) -> Trap:
        kind = self.route.content_type
        self.site.near.add(self.path, Route(content_type=kind, stream=self._spring))
        return self

    def __exit__(self, *exc: object) -> None:
        self.site.near.add(self.path, self.route)

    def _spring(self) -> Iterator[bytes]:
        if not self.sprung.is_set():
            client = self.redis.client()
            key = f"la:{{{self.audit}}}:"
            owner = client.get(key + "lease:127.0.0.1")
            self.held = client.smembers(key + "ls:" + owner)
            workers = client.smembers(key + "workers") if self.everyone else {owner}
            for worker in workers:
                pid = int(worker.split(":")[1])
                os.kill(pid, signal.SIGKILL)
                self.killed.append(pid)
            self.sprung.set()
        yield self.route.body


def _received(site, before: tuple[int, int]) -> int:
    return len(site.near.arrivals) - before[0] + len(site.far.arrivals) - before[1]


@pytest.mark.parametrize("everyone", [False, True], ids=["one-killed", "all-killed"])
def test_counts_after_kill_9_are_the_audits(env, tmp_path, everyone):
    site, redis, plain = env
    name = f"counts-{everyone}"
    site.clear_logs()
    before = (len(site.near.arrivals), len(site.far.arrivals))
    start = site.near.route_for("/")
    start.delay = 1.0  # every worker joins before level 1: one host each
    site.near.delay = site.far.delay = 0.01
    first, again = [], []
    try:
        with Trap(site, redis, name, plain, everyone) as trap:
            first = start_workers(site, redis.url, name, tmp_path / "first", 3, **SLOW)
            assert trap.sprung.wait(timeout=60), [w.crawl.stderr[-1500:] for w in first]
            dead = [w for w in first if w.crawl.proc.pid in trap.killed]
            assert len(dead) == (3 if everyone else 1)
            assert {w.crawl.wait() for w in dead} == {-signal.SIGKILL}
            # mid-audit, and the owner of the site's host had no other host
            assert trap.held == {"127.0.0.1"}
            checked = int(redis.client().hget(f"la:{{{name}}}:meta", "checked"))
            assert 0 < checked < len(plain["urls"])
            # the same command again, in place of the dead
            again = start_workers(site, redis.url, name, tmp_path / "again", len(dead), **SLOW)
            workers = finish([w for w in first if w not in dead] + again)
    finally:
        for w in first + again:  # a failed wait leaves none running
            if w.crawl.proc.poll() is None:
                w.crawl.proc.kill()
        start.delay = 0.0
        site.near.delay = site.far.delay = 0.0
    report = the_report(workers)
    assert_same(report, plain)
    summary = report["summary"]
    assert summary["pages"] == plain["summary"]["pages"]
    received = _received(site, before)
    # what the dead had claimed was checked again: more requests than alone
    assert received > plain["summary"]["requests"]
    if everyone:
        # the owner of the far host was killed at any instant: it may have
        # had its one request to it counted and not yet received
        assert received <= summary["requests"] <= received + 1
    else:
        assert summary["requests"] == received


def test_a_redis_that_refuses_client_reply_gets_the_count_with_the_heartbeat(tmp_path):
    """Counted in Redis at once without a reply to wait for; where Redis
    refuses CLIENT REPLY (here an ACL), counted at the next heartbeat."""
    with RedisServer(tmp_path / "redis") as server:
        admin = server.client()
        admin.acl_setuser(
            "limited",
            enabled=True,
            passwords=["+secret"],
            keys=["*"],
            commands=["+@all", "-client|reply"],
        )
        key = "la:{t}:meta"
        silent = RequestCounter(Redis(port=server.port, decode_responses=True), key)
        silent.open()
        assert silent.conn is not None
        for _ in range(1000):
            silent.count()
        wait_for(lambda: admin.hget(key, "requests") == "1000", timeout=10, what="1000 counted")
        assert not silent.conn.can_read(timeout=0.2)  # Redis never answered
        silent.close()

        url = f"redis://limited:secret@127.0.0.1:{server.port}/0"
        refused = RequestCounter(Redis.from_url(url, decode_responses=True), key)
        refused.open()
        assert refused.conn is None
        for _ in range(3):
            refused.count()
        assert admin.hget(key, "requests") == "1000"
        refused.flush()
        assert admin.hget(key, "requests") == "1003"
