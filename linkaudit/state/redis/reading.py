"""Reading the shared state: a URL's referrers, every entry of the report,
the audit's counts and progress (a part of RedisState)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

from linkaudit.state.base import Entry, ProgressCounts, Totals
from linkaudit.state.compact import decode_result
from linkaudit.state.redis.calls import Calls
from linkaudit.state.redis.codec import fingerprint

_READ = 5000  # list items and URLs read per round trip


class Reading(Calls):
    """RedisState's reading side."""

    def waiting(self) -> int:
        meta = self._do(lambda: self.client.hgetall(self.key("meta")), {})
        return sum(int(v) for k, v in meta.items() if k.startswith("out:"))

    def progress(self, own: ProgressCounts) -> ProgressCounts:
        """The whole audit: URLs checked, waiting, broken (not this worker's)."""
        checked, broken = self.meta("checked", "broken")
        return ProgressCounts(int(checked or 0), self.waiting(), int(broken or 0))

    def referrers(self, url: str) -> tuple[int, list[tuple[str, int | None]]]:
        bucket, field = fingerprint(url)
        pipe = self.client.pipeline(transaction=False)
        pipe.hget(self.key(f"c:{bucket}"), field)
        pipe.lrange(self.key(f"r:{bucket}{field}"), 0, -1)
        nothing: list[Any] = [0, []]
        count, refs = self._do(pipe.execute, nothing)
        return int(count or 0), [parse_referrer(r) for r in refs]

    def entries(self) -> Iterator[Entry]:
        """Every URL: the results first (the last of a URL's counts), then
        the URLs in the order discovered, a chunk at a time, with their
        states, counts and referrers."""
        client = self.client
        results: dict[str, str] = {}
        for start in range(0, client.llen(self.key("v")), _READ):
            for record in client.lrange(self.key("v"), start, start + _READ - 1):
                results[record[:19]] = record[20:]
        for start in range(0, client.llen(self.key("n")), _READ):
            urls = client.lrange(self.key("n"), start, start + _READ - 1)
            ids = [fingerprint(url) for url in urls]
            pipe = client.pipeline(transaction=False)
            for bucket, field in ids:
                pipe.hget(self.key(f"u:{bucket}"), field)
                pipe.hget(self.key(f"c:{bucket}"), field)
            replies = pipe.execute()
            states, counts = replies[::2], replies[1::2]
            pipe = client.pipeline(transaction=False)
            for (bucket, field), state in zip(ids, states, strict=True):
                if not (state or "").startswith("o"):
                    pipe.lrange(self.key(f"r:{bucket}{field}"), 0, -1)
            kept = iter(pipe.execute())
            for url, (bucket, field), state, count in zip(urls, ids, states, counts, strict=True):
                depth = int(state[1:].partition("@")[0])  # d<depth>@<worker>
                refs = [] if state.startswith("o") else [parse_referrer(r) for r in next(kept)]
                text = results.get(bucket + field) if state[0] in "ox" else None
                if text is None:
                    yield Entry(url, depth, None, int(count or 0), refs, None)
                    continue
                result, failing = decode_result(url, depth, text)
                yield Entry(url, depth, result, int(count or 0), refs, failing)

    def totals(self, own: Totals) -> Totals:
        """The whole audit: pages scanned, requests sent, when it started
        (not this worker's ``own``).  Both are counts of the shared state,
        not sums of the workers' own (a killed worker's would miss its last
        second): the URLs whose result is a scanned page (the settling
        script counts them), and the requests as they were sent
        (counting.py)."""
        pages, requests, started = self.meta("pages", "requests", "started_at")
        when = datetime.fromtimestamp(float(started or time.time()), UTC)
        return Totals(int(pages or 0), int(requests or 0), when.isoformat(timespec="seconds"))


def parse_referrer(text: str) -> tuple[str, int | None]:
    line, _, page = text.partition("\t")
    return page, int(line) if line else None
