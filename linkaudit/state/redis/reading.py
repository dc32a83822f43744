"""Reading the shared state: a URL's referrers, every entry of the report,
the audit's counts and progress (a part of RedisState)."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from linkaudit.state.base import Entry
from linkaudit.state.redis.codec import decode_value

if TYPE_CHECKING:
    from linkaudit.state.redis.state import RedisState


class Reading:
    """RedisState's reading side (a mixin)."""

    def waiting(self: RedisState) -> int:
        meta = self._do(lambda: self.client.hgetall(self.key("meta")), {})
        return sum(int(v) for k, v in meta.items() if k.startswith("out:"))

    def progress(self: RedisState) -> tuple[int, int, int]:
        """The whole audit: URLs checked, waiting, broken."""
        checked, broken = self.meta("checked", "broken")
        return int(checked or 0), self.waiting(), int(broken or 0)

    def referrers(self: RedisState, url: str) -> tuple[int, list[tuple[str, int | None]]]:
        bucket, fp = _fingerprint(url)
        pipe = self.client.pipeline(transaction=False)
        pipe.hget(self.key(f"c:{bucket}"), fp)
        pipe.lrange(self.key(f"r:{url}"), 0, -1)
        count, refs = self._do(pipe.execute, [0, []])
        return int(count or 0), [_referrer(r) for r in refs]

    def entries(self: RedisState) -> Iterator[Entry]:
        client = self.client
        for start in range(0, 4096, 256):
            buckets = [f"{b:03x}" for b in range(start, start + 256)]
            pipe = client.pipeline(transaction=False)
            for b in buckets:
                pipe.hgetall(self.key(f"u:{b}"))
                pipe.hgetall(self.key(f"c:{b}"))
            replies = pipe.execute()
            for urls, counts in zip(replies[::2], replies[1::2], strict=True):
                yield from self._entries(urls, counts)

    def _entries(self: RedisState, urls: dict[str, str], counts: dict[str, str]) -> Iterator[Entry]:
        decoded = {url: decode_value(url, value) for url, value in urls.items()}
        needs = [u for u, (_d, r, _f) in decoded.items() if r is None or r.outcome != "ok"]
        pipe = self.client.pipeline(transaction=False)
        for url in needs:
            pipe.lrange(self.key(f"r:{url}"), 0, -1)
        refs = dict(zip(needs, pipe.execute(), strict=True))
        for url, (depth, result, failing) in decoded.items():
            count = int(counts.get(_fingerprint(url)[1], 0))
            kept = [_referrer(r) for r in refs.get(url, ())]
            yield Entry(url, depth, result, count, kept, failing)

    def totals(self: RedisState) -> tuple[int, int, str]:
        """The whole audit: pages scanned, requests sent, when it started."""
        work = self._do(lambda: self.client.hgetall(self.key("work")), {})
        pages = sum(int(v) for k, v in work.items() if k.endswith(":pages"))
        requests = sum(int(v) for k, v in work.items() if k.endswith(":requests"))
        started = float(self.meta("started_at")[0] or time.time())
        return pages, requests, datetime.fromtimestamp(started, UTC).isoformat(timespec="seconds")


def _fingerprint(url: str) -> tuple[str, str]:
    """As the scripts compute it: SHA-1 hex, 3 digits of bucket, 16 of key."""
    digest = hashlib.sha1(url.encode("utf-8")).hexdigest()
    return digest[:3], digest[3:19]


def _referrer(text: str) -> tuple[str, int | None]:
    line, _, page = text.partition("\t")
    return page, int(line) if line else None
