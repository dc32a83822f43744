"""Marks and redirect hops in the shared state, so that every worker
reads what another noted (a part of RedisState): ``m:<kind>``, a set of
URLs per kind; ``hops``, a hash URL -> how many redirects led to it;
``bo``, a hash host -> its back-off (JSON), as its lease is shared."""

from __future__ import annotations

import json
from typing import Any

from linkaudit.rules.backoff import MAX_COUNT
from linkaudit.state.redis.calls import Calls


class Marks(Calls):
    """RedisState's marks and hops."""

    def mark(self, kind: str, urls: list[str]) -> None:
        if urls:
            self._do(lambda: self.client.sadd(self.key("m:" + kind), *urls), None)

    def marked(self, kind: str, url: str) -> bool:
        return bool(self._do(lambda: self.client.sismember(self.key("m:" + kind), url), False))

    def hops(self, url: str) -> int:
        return int(self._do(lambda: self.client.hget(self.key("hops"), url), None) or 0)

    def set_hops(self, url: str, hops: int) -> None:
        self._do(lambda: self.client.hset(self.key("hops"), url, hops), None)

    def backoff(self, host: str) -> dict[str, Any] | None:
        """The host's record as JSON gives it; None when it is not a JSON
        object (an altered record: the rules clamp each value, see
        ``HostBackoff.restore``)."""
        return _record(self._do(lambda: self.client.hget(self.key("bo"), host), None))

    def save_backoff(self, host: str, record: dict[str, Any]) -> None:
        self._do(lambda: self.client.hset(self.key("bo"), host, json.dumps(record)), None)

    def backoff_totals(self) -> tuple[int, int] | None:
        records = self._do(lambda: self.client.hvals(self.key("bo")), [])
        hosts = [r for r in map(_record, records) if r is not None]
        return _total(hosts, "backoffs"), _total(hosts, "paused")


def _record(raw: str | None) -> dict[str, Any] | None:
    try:
        record = json.loads(raw) if raw else None
    except (ValueError, RecursionError):
        return None
    return record if isinstance(record, dict) else None


def _total(records: list[dict[str, Any]], name: str) -> int:
    """The sum of the counts ``name`` of the records; what is not a count
    (text, a negative number, a float, a number past 2**53) counts 0."""
    counts = (r.get(name) for r in records)
    return min(sum(n for n in counts if type(n) is int and 0 <= n <= MAX_COUNT), MAX_COUNT)
