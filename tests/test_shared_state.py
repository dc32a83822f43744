"""The shared state's operations against a real redis-server, one call at a
time: orderings that an end-to-end crawl hits only by chance."""

from __future__ import annotations

from linkaudit.items import UrlResult
from linkaudit.state.redis.connection import connect
from linkaudit.state.redis.state import RedisState
from tests.redisserver import RedisServer

START = "http://a.test/"


def test_a_worker_claiming_while_the_creator_starts_does_not_end_the_audit(tmp_path):
    """The creator opens the audit only with its start URLs queued: a
    worker that claims in between must not find level 0 empty and take the
    audit for finished (a bench run with 3 workers once did)."""
    server = RedisServer(tmp_path).start()
    try:
        creator = RedisState(connect(server.url), "race", lease=30.0, batch=10)
        other = RedisState(connect(server.url), "race", lease=30.0, batch=10)
        creator.open_run([START], (START,))
        other.open_run([START], (START,))
        assert creator.discover(START, 0)
        creator.enqueue(START, 0, None)
        claimed = []
        send = creator._execute

        def interleaved(calls):  # the other worker claims before each call
            claimed.extend(p.url for p in other.next_level())
            return send(calls)

        creator._execute = interleaved
        claimed.extend(p.url for p in creator.next_level())
        assert claimed == [START]
        assert creator.over() is None and other.over() is None
        assert creator.status == "running"
    finally:
        server.stop()


def test_links_found_by_a_worker_that_died_before_queueing_them_are_placed_again(tmp_path):
    """A worker scans a page (its links discovered) and dies before the
    links are queued; the worker that checks the page again must place
    them, or they would stay discovered, never checked (once seen as an
    unchecked URL after every worker was killed and the audit resumed)."""
    link = START + "next"
    server = RedisServer(tmp_path).start()
    try:
        dead = RedisState(connect(server.url), "stranded", lease=30.0, batch=10)
        dead.open_run([START], (START,))
        alive = RedisState(connect(server.url), "stranded", lease=30.0, batch=10)
        alive.open_run([START], (START,))
        dead.discover(START, 0)
        dead.enqueue(START, 0, None)
        assert [p.url for p in dead.next_level()] == [START]
        assert dead.discover_many([link], 1) == [True]
        # the other worker meets the link meanwhile (on a page of its own)
        assert alive.discover_many([link], 1) == [False]
        dead.enqueue(link, 1, START)  # waits for the next call: never sent
        dead.client.delete(dead.key(f"w:{dead.worker}"))  # its heartbeat expires

        assert [p.url for p in alive.next_level()] == [START]  # handed back
        assert alive.discover_many([link], 1) == [True]
        alive.enqueue(link, 1, START)
        alive.add_referrers(START, [(link, 1)])
        alive.record(UrlResult(url=START, near=True, outcome="ok", depth=0, status=200), 0.0)
        assert [p.url for p in alive.next_level()] == [link]
        # a live worker's discovery is not taken over
        other = RedisState(connect(server.url), "stranded", lease=30.0, batch=10)
        other.open_run([START], (START,))
        assert alive.discover_many([START + "more"], 2) == [True]
        assert other.discover_many([START + "more"], 2) == [False]
    finally:
        server.stop()


def test_redirect_hops_are_shared_by_the_workers(tmp_path):
    """A chain's hops counted by one worker are read by another, which may
    check the next URL of the chain (components/discovery.py ``redirect_target``)."""
    with RedisServer(tmp_path / "redis") as server:
        one = RedisState(connect(server.url), "hops", lease=30.0, batch=10)
        other = RedisState(connect(server.url), "hops", lease=30.0, batch=10)
        assert other.hops("http://a.test/r/7") == 0
        one.set_hops("http://a.test/r/7", 7)
        assert other.hops("http://a.test/r/7") == 7
