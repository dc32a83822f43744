"""Connecting to the audit's Redis, and naming an audit's keys.

The client is built by scrapy-redis's connection factory, so its
``REDIS_PARAMS`` setting works as in scrapy-redis (timeouts, a password, a
client class); responses are always decoded as UTF-8 text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, Protocol

import redis
from scrapy_redis import defaults
from scrapy_redis.connection import get_redis

from linkaudit.rules.userinfo import masked_service

FAILURES = (redis.ConnectionError, redis.TimeoutError)


class TextPipeline(Protocol):
    """The pipeline of a :class:`TextClient` (the commands queued on one)."""

    def evalsha(self, sha: str, numkeys: int, *args: Any) -> Any: ...
    def hget(self, name: str, key: str) -> Any: ...
    def lrange(self, name: str, start: int, end: int) -> Any: ...
    def pexpire(self, name: str, time: int) -> Any: ...
    def execute(self) -> list[Any]: ...


class TextClient(Protocol):
    """The commands linkaudit sends, as a client made by :func:`connect`
    answers them: ``decode_responses=True``, so every reply is text, where
    redis-py's own types say ``bytes | str`` for any client."""

    connection_pool: redis.ConnectionPool

    def ping(self) -> bool: ...
    def info(self, section: str) -> dict[str, Any]: ...
    def close(self) -> None: ...
    def pipeline(self, transaction: bool = ...) -> TextPipeline: ...
    def script_load(self, script: str) -> str: ...
    def scan_iter(self, match: str, count: int) -> Iterator[str]: ...
    def delete(self, *names: str) -> int: ...
    def exists(self, *names: str) -> int: ...
    def hget(self, name: str, key: str) -> str | None: ...
    def hmget(self, name: str, keys: Iterable[str]) -> list[str | None]: ...
    def hgetall(self, name: str) -> dict[str, str]: ...
    def hvals(self, name: str) -> list[str]: ...
    def hset(
        self, name: str, key: str | None = ..., value: Any = ..., mapping: Mapping[str, Any] = ...
    ) -> int: ...
    def hsetnx(self, name: str, key: str, value: str) -> int: ...
    def hincrby(self, name: str, key: str, amount: int = ...) -> int: ...
    def llen(self, name: str) -> int: ...
    def lrange(self, name: str, start: int, end: int) -> list[str]: ...
    def sadd(self, name: str, *values: str) -> int: ...
    def sismember(self, name: str, value: str) -> int: ...
    def smembers(self, name: str) -> set[str]: ...
    # last: a method named set would shadow the type in the annotations below it
    def set(self, name: str, value: str, nx: bool = ..., px: int | None = ...) -> bool | None: ...


class RedisUnavailable(Exception):
    """Redis cannot be used (one line for the user)."""


def connect(url: str, params: dict[str, Any] | None = None) -> TextClient:
    """A client for ``url``, checked with a PING."""
    kwargs = dict(defaults.REDIS_PARAMS)
    kwargs.update(params or {})
    kwargs.update(url=url, decode_responses=True, encoding="utf-8")
    try:
        client = get_redis(**kwargs)
        client.ping()
        version = client.info("server").get("redis_version", "0")
    except FAILURES as exc:
        raise RedisUnavailable(f"cannot reach Redis at {_safe(url)}: {_reason(exc)}") from None
    except redis.RedisError as exc:
        raise RedisUnavailable(f"Redis at {_safe(url)} refused us: {_reason(exc)}") from None
    except ValueError as exc:  # a URL redis-py cannot read
        # its words may quote a piece of the password ("Port could not be
        # cast to integer value as 'S3cr'", for "redis://:S3cr/et@host")
        said = str(exc) if _safe(url) == url else "a password's / @ : # ? must be %-encoded"
        raise RedisUnavailable(f"{_safe(url)}: not a Redis URL that can be read: {said}") from None
    if int(str(version).split(".")[0]) < 6:
        raise RedisUnavailable(f"Redis at {_safe(url)} is version {version}: 6 or later needed")
    return client


def prefix(audit: str) -> str:
    """The keys of one audit: ``la:{NAME}:`` (one hash slot)."""
    return f"la:{{{audit}}}:"


def audit_keys(client: TextClient, audit: str) -> Iterator[str]:
    pattern = re.sub(r"([*?\[\]\\])", r"\\\1", prefix(audit)) + "*"
    yield from client.scan_iter(match=pattern, count=1000)


def delete_audit(client: TextClient, audit: str) -> int:
    keys = list(audit_keys(client, audit))
    for i in range(0, len(keys), 500):
        client.delete(*keys[i : i + 500])
    return len(keys)


def expire_audit(client: TextClient, audit: str, seconds: float) -> None:
    pipe = client.pipeline(transaction=False)
    for key in audit_keys(client, audit):
        pipe.pexpire(key, int(seconds * 1000))
    pipe.execute()


def _safe(url: str) -> str:
    """The URL without its password, wherever redis-py reads one (a
    password holding "/" or "@", ``?password=``)."""
    return masked_service(url)


def _reason(exc: Exception) -> str:
    text = str(exc).strip().rstrip(".")
    return text.splitlines()[0] if text else type(exc).__name__
