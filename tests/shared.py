"""Helpers of the shared-audit tests: a Redis, and N linkaudit workers on
one audit of a generated site (tests/sitegen.py)."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from tests.conftest import Spawned, validate, wait_for
from tests.redisserver import RedisServer
from tests.sitegen import FAST, LINKAUDIT, GeneratedSite, audit, generated_site

# short leases: a killed worker's hosts are taken over within seconds
QUICK = {"LINKAUDIT_REDIS_LEASE": "2", "LINKAUDIT_REDIS_POLL": "0.05"}


@dataclass
class Worker:
    crawl: Spawned
    report: Path
    code: int | None = None


def worker_command(
    site: GeneratedSite, redis_url: str, audit: str, report: Path, *options: str, **settings: str
) -> list[str]:
    cmd = [LINKAUDIT, site.start, "--delay", "0", "--report", str(report)]
    cmd += ["--redis", redis_url, "--audit", audit]
    for name, value in {**FAST, **QUICK, **settings}.items():
        cmd += ["-s", f"{name}={value}"]
    return [*cmd, *options]


def start_workers(
    site: GeneratedSite,
    redis_url: str,
    audit: str,
    directory: Path,
    n: int,
    *options: str,
    **s: str,
) -> list[Worker]:
    directory.mkdir(parents=True, exist_ok=True)
    workers = []
    for i in range(n):
        report = directory / f"worker{i}.json"
        cmd = worker_command(site, redis_url, audit, report, *options, **s)
        workers.append(Worker(Spawned(cmd), report))
    return workers


def finish(workers: list[Worker], timeout: float = 120) -> list[Worker]:
    for w in workers:
        w.code = w.crawl.wait(timeout=timeout)
    return workers


def the_report(workers: list[Worker]) -> dict:
    """Exactly one worker wrote a report; the others said where it is."""
    written = [w for w in workers if w.report.exists()]
    assert len(written) == 1, [w.crawl.stderr[-1500:] for w in workers]
    report = json.loads(written[0].report.read_text())
    validate(report)
    for w in workers:
        if w is not written[0]:
            assert f"to {written[0].report}" in w.crawl.stderr, w.crawl.stderr[-1500:]
    return report


def requests_made(site: GeneratedSite) -> Counter:
    """(origin, method, path) -> how many times the servers answered it."""
    return Counter(
        [("near", h.method, h.path) for h in site.near.log]
        + [("far", h.method, h.path) for h in site.far.log]
    )


def wait_for_results(redis_client, audit: str, at_least: int, timeout: float = 60) -> None:
    def checked() -> int:
        return int(redis_client.hget(f"la:{{{audit}}}:meta", "checked") or 0)

    wait_for(lambda: checked() >= at_least, timeout=timeout, what=f"{at_least} results")


def shared_env(stack, tmp_path_factory):
    """The generated site on two hosts (127.0.0.1 and .2: each owned by one
    worker at a time), a Redis, the plain audit and its requests."""
    site = generated_site(stack, tmp_path_factory.mktemp("site"), far_host="127.0.0.2")
    redis = stack.enter_context(RedisServer(tmp_path_factory.mktemp("redis")))
    plain = audit(site, tmp_path_factory.mktemp("plain"))
    return site, redis, plain, requests_made(site)
