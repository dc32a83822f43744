"""Marks and redirect hops in the shared state, so that every worker
reads what another noted (a part of RedisState): ``m:<kind>``, a set of
URLs per kind; ``hops``, a hash URL -> how many redirects led to it."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from linkaudit.state.redis.state import RedisState


class Marks:
    """RedisState's marks and hops (a mixin)."""

    def mark(self: RedisState, kind: str, urls: list[str]) -> None:
        if urls:
            self._do(lambda: self.client.sadd(self.key("m:" + kind), *urls), None)

    def marked(self: RedisState, kind: str, url: str) -> bool:
        return bool(self._do(lambda: self.client.sismember(self.key("m:" + kind), url), False))

    def hops(self: RedisState, url: str) -> int:
        return int(self._do(lambda: self.client.hget(self.key("hops"), url), None) or 0)

    def set_hops(self: RedisState, url: str, hops: int) -> None:
        self._do(lambda: self.client.hset(self.key("hops"), url, hops), None)
