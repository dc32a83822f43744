"""Calling Redis from a worker (a part of RedisState): every operation a
script (scripts.py), sent with the writes waiting to go in one round trip;
a Redis that goes away noted once, never raised into the crawl."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import redis

from linkaudit.state.redis.connection import FAILURES
from linkaudit.state.redis.lifecycle import SCRIPTS

if TYPE_CHECKING:
    from linkaudit.state.redis.state import RedisState

logger = logging.getLogger(__name__)
T = TypeVar("T")
CHUNK = 500  # URLs per script call


class Calls:
    """RedisState's calls (a mixin)."""

    def _run(self: RedisState, name: str, args: list[Any], default: T) -> T:
        """A script, in one round trip with the writes waiting to be sent
        (URLs enqueued, phases owed: sent before it, in order).  If Redis
        is gone, note it (the spider closes) and go on with ``default``:
        this worker's results are not settled, so another worker (or this
        command again) checks those URLs."""
        if self.lost is not None:
            return default
        calls = []
        queue, self._queue = self._queue, []
        for i in range(0, len(queue), CHUNK * 4):
            calls.append(("ENQUEUE", queue[i : i + CHUNK * 4]))
        if self._owed:
            calls.append(("OWE", [self.worker, *self._owed]))
            self._owed = []
        calls.append((name, args))
        try:
            return self._execute(calls)[-1]
        except FAILURES as exc:
            self.lost = str(exc).strip() or type(exc).__name__
            logger.error("linkaudit: lost the connection to Redis: %s", self.lost)
            return default

    def _execute(self: RedisState, calls: list[tuple[str, list[Any]]]) -> list[Any]:
        """EVALSHA each call in one pipeline (redis-py's Script objects
        would ask SCRIPT EXISTS first, one more round trip each time); the
        scripts are loaded once, and again if Redis forgot them."""
        for attempt in (1, 2):
            if not self.shas:
                self.shas = {name: self.client.script_load(lua) for name, lua in SCRIPTS.items()}
            pipe = self.client.pipeline(transaction=False)
            for name, args in calls:
                pipe.evalsha(self.shas[name], 0, self.prefix, *args)
            try:
                return pipe.execute()
            except redis.exceptions.NoScriptError:
                if attempt == 2:
                    raise
                self.shas = {}  # a restarted Redis: no script ran, load and send again
        raise AssertionError("unreachable")

    def _do(self: RedisState, call: Callable[[], T], default: T) -> T:
        if self.lost is not None:
            return default
        try:
            return call()
        except FAILURES as exc:
            self.lost = str(exc).strip() or type(exc).__name__
            logger.error("linkaudit: lost the connection to Redis: %s", self.lost)
            return default
