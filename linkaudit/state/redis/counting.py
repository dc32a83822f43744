"""The audit's request count, exact whatever happens to the workers.

``summary.requests`` of a shared audit is one counter in Redis (``meta``
field ``requests``) that every worker increments as it sends a request,
before the request's bytes leave (signal ``request_sent``): a worker killed
at any instant has every request a server may have received counted.

A round trip per request would cost as much as the request's own CPU, so
the increments go over a connection of their own on which Redis does not
answer (``CLIENT REPLY OFF``): each is one write into the socket, never
waited for.  The kernel delivers what was written even after a
``kill -9`` (nothing is left unread on that socket, so it closes gracefully,
not with a reset that would drop data).  The count can only exceed what
servers received by the requests a killed worker had counted and not yet
written, the few it was sending at that instant.

A Redis that refuses ``CLIENT REPLY`` (an ACL, a proxy) gets the count with
each heartbeat instead: a killed worker's last second is then missing.
"""

from __future__ import annotations

import logging

import redis

from linkaudit.state.redis.connection import FAILURES, TextClient

logger = logging.getLogger(__name__)


class RequestCounter:
    """Counts the requests one worker sends into ``key``'s ``requests``."""

    def __init__(self, client: TextClient, key: str):
        self.client = client
        self.key = key
        self.pending = 0  # counted here, not yet in Redis (only without REPLY OFF)
        self.conn: redis.connection.ConnectionInterface | None = None
        self._packed: list[bytes] = []  # the HINCRBY, encoded once

    def open(self) -> None:
        """The silent connection, if this Redis allows one."""
        conn = self.client.connection_pool.make_connection()
        try:
            conn.connect()
            # asked with a reply first: a refusal (ACL, proxy) is read here,
            # where OFF's own refusal could never be told from its silence
            conn.send_command("CLIENT", "REPLY", "ON", check_health=False)
            conn.read_response()
            conn.send_command("CLIENT", "REPLY", "OFF", check_health=False)
        except redis.ResponseError as exc:
            conn.disconnect()
            logger.info("Redis refused CLIENT REPLY (%s): requests counted once a second", exc)
            return
        except FAILURES:  # counted with the heartbeat, which notes a lost Redis
            conn.disconnect()
            return
        self.conn = conn
        self._packed = [b"".join(conn.pack_command("HINCRBY", self.key, "requests", 1))]

    def count(self) -> None:
        """One request sent: in Redis now (or with the next ``flush``)."""
        if self.conn is None:
            self.pending += 1
            return
        try:
            self.conn.send_packed_command(self._packed, check_health=False)
        except FAILURES:  # from now on with the heartbeat, as above
            self.conn.disconnect()
            self.conn = None
            self.pending += 1

    def flush(self) -> None:
        """What was counted here, into Redis (called with the heartbeat)."""
        if self.pending:
            self.client.hincrby(self.key, "requests", self.pending)
            self.pending = 0

    def sync(self) -> None:
        """Every request counted so far is in Redis when this returns: a
        connection's commands run in order, so the answer to one asked now
        comes after them (a worker leaving, before the report is read)."""
        self.flush()
        if self.conn is not None:
            self.conn.send_command("CLIENT", "REPLY", "ON", check_health=False)
            self.conn.read_response()
            self.conn.send_command("CLIENT", "REPLY", "OFF", check_health=False)

    def close(self) -> None:
        if self.conn is not None:
            self.conn.disconnect()
            self.conn = None
