"""Calling Redis from a worker (a part of RedisState): every operation a
script (scripts.py), sent with the writes waiting to go in one round trip;
a Redis that goes away noted once, never raised into the crawl."""

from __future__ import annotations

import logging
import os
import socket
import uuid
from collections.abc import Callable
from typing import Any, TypeVar

import redis

from linkaudit.state.redis.connection import FAILURES, TextClient, prefix
from linkaudit.state.redis.lifecycle import SCRIPTS

logger = logging.getLogger(__name__)
T = TypeVar("T")
D = TypeVar("D")  # a default of another type than the reply (None, an empty dict)
CHUNK = 500  # URLs per script call


class Calls:
    """One worker's connection to one audit in Redis: the base of
    RedisState and of its parts (election.py, reading.py, marks.py)."""

    def __init__(self, client: TextClient, audit: str):
        self.client = client
        self.audit = audit
        self.prefix = prefix(audit)
        self.worker = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"
        self.shas: dict[str, str] = {}  # script name -> SHA-1, loaded when first needed
        self.lost: str | None = None  # why Redis could not be used mid-audit
        self._queue: list[Any] = []  # ENQUEUE arguments not sent yet
        self._owed: list[str] = []  # OWE arguments not sent yet

    def key(self, name: str) -> str:
        return self.prefix + name

    def meta(self, *fields: str) -> list[str | None]:
        return self._do(lambda: self.client.hmget(self.key("meta"), fields), [None] * len(fields))

    def _run(self, name: str, args: list[Any], default: T) -> T:
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

    def _execute(self, calls: list[tuple[str, list[Any]]]) -> list[Any]:
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

    def _do(self, call: Callable[[], T], default: D) -> T | D:
        if self.lost is not None:
            return default
        try:
            return call()
        except FAILURES as exc:
            self.lost = str(exc).strip() or type(exc).__name__
            logger.error("linkaudit: lost the connection to Redis: %s", self.lost)
            return default
