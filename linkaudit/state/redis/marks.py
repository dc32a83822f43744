"""Marks and redirect hops in the shared state, so that every worker
reads what another noted (a part of RedisState): ``m:<kind>``, a set of
URLs per kind; ``hops``, a hash URL -> how many redirects led to it;
``bo``, a hash host -> its back-off (JSON), as its lease is shared."""

from __future__ import annotations

import json
from typing import Any

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
        raw = self._do(lambda: self.client.hget(self.key("bo"), host), None)
        return json.loads(raw) if raw else None

    def save_backoff(self, host: str, record: dict[str, Any]) -> None:
        self._do(lambda: self.client.hset(self.key("bo"), host, json.dumps(record)), None)

    def backoff_totals(self) -> tuple[int, int] | None:
        records = self._do(lambda: self.client.hvals(self.key("bo")), [])
        hosts = [json.loads(raw) for raw in records]
        return sum(h.get("backoffs", 0) for h in hosts), sum(h.get("paused", 0) for h in hosts)
