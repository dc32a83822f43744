"""Marks and redirect hops in the shared state, so that every worker
reads what another noted (a part of RedisState): ``m:<kind>``, a set of
URLs per kind; ``hops``, a hash URL -> how many redirects led to it;
``bo``, a hash host -> its back-off (JSON), as its lease is shared;
``getonly``, a hash host -> what showed that its HEAD answers are no hint
(JSON), read again at most every ``GET_ONLY_READ`` seconds (it is asked
before each URL's first request: a round trip each would double them);
``archived``, a hash URL -> its archived copy's record (JSON, --archive)."""

from __future__ import annotations

import json
import time
from typing import Any

from linkaudit.rules.backoff import MAX_COUNT, BackoffRecord
from linkaudit.rules.memento import ArchiveNote
from linkaudit.state.base import GetOnlyNote, KeptRecord
from linkaudit.state.redis.calls import Calls

GET_ONLY_READ = 2.0  # seconds a worker's copy of ``getonly`` is trusted for a host not in it


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

    def backoff(self, host: str) -> KeptRecord | None:
        """The host's record as JSON gives it; None when it is not a JSON
        object (an altered record: the rules clamp each value, see
        ``HostBackoff.restore``)."""
        return _record(self._do(lambda: self.client.hget(self.key("bo"), host), None))

    def save_backoff(self, host: str, record: BackoffRecord) -> None:
        self._do(lambda: self.client.hset(self.key("bo"), host, json.dumps(record)), None)

    # this worker's copy of ``getonly``, and when it was read (monotonic)
    _get_only: dict[str, KeptRecord] | None = None
    _get_only_read = 0.0

    def get_only(self, host: str) -> bool:
        known = self._get_only
        if known is None or (
            host not in known and time.monotonic() - self._get_only_read > GET_ONLY_READ
        ):
            known = self._get_only = self.get_only_hosts()
            self._get_only_read = time.monotonic()
        return host in known

    def note_get_only(self, host: str, record: GetOnlyNote) -> None:
        self._do(lambda: self.client.hset(self.key("getonly"), host, json.dumps(record)), None)
        if self._get_only is not None:
            self._get_only[host] = record

    def get_only_hosts(self) -> dict[str, KeptRecord]:
        records = self._do(lambda: self.client.hgetall(self.key("getonly")), {})
        hosts = {host: _record(raw) for host, raw in records.items()}
        return {host: record for host, record in hosts.items() if record is not None}

    def archived(self, url: str) -> KeptRecord | None:
        return _record(self._do(lambda: self.client.hget(self.key("archived"), url), None))

    def note_archived(self, url: str, record: ArchiveNote) -> None:
        self._do(lambda: self.client.hset(self.key("archived"), url, json.dumps(record)), None)

    def archived_copies(self) -> dict[str, KeptRecord]:
        records = self._do(lambda: self.client.hgetall(self.key("archived")), {})
        found = {url: _record(raw) for url, raw in records.items()}
        return {url: record for url, record in found.items() if record is not None}

    def share_retries(self, count: int) -> None:
        if count > 0:
            self._do(lambda: self.client.hincrby(self.key("meta"), "retries", count), None)

    def retries(self, own: int) -> int:
        """Every worker's retries, as they shared them when they left (a
        worker killed before it left has not shared its own)."""
        (value,) = self.meta("retries")
        try:
            count = int(value or 0)
        except ValueError:  # an altered record counts nothing
            return 0
        return min(max(count, 0), MAX_COUNT)

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
