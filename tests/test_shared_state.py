"""The shared state's operations against a real redis-server, one call at a
time: orderings that an end-to-end crawl hits only by chance."""

from __future__ import annotations

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
