"""The shared audit's benchmark: one audit of the bench site by 1, 2 and 3
workers on Redis against the single process without Redis, in the same run.

    .venv/bin/python bench/shared.py --pages 10000 --rounds 3
    .venv/bin/python bench/shared.py --pages 100000 --rounds 1 --workers 0,1   # memory

For each: wall time (first start to last exit), total CPU seconds of every
worker, CPU per URL and its ratio to the single process, peak RSS, Redis
round trips per URL (INFO stats, total_reads_processed: a read per request
or pipeline received), commands per URL (total_commands_processed, with
every command a script ran) and Redis memory per URL and per link
occurrence (INFO memory used_memory, after the audit, keys kept).  It
uses run.py's nginx and site generator; redis-server is started on a free
port of 127.0.0.1 (persistence off) and stopped by its PID.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import time
from pathlib import Path

import redis
from run import CONCURRENCY, VENV_BIN, WORK, Nginx, _site


def _redis() -> tuple[subprocess.Popen, int]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", ""]
        + ["--appendonly", "no"],
        stdout=subprocess.DEVNULL,
    )
    for _ in range(100):
        try:
            redis.Redis(port=port).ping()
            return proc, port
        except redis.ConnectionError:
            time.sleep(0.05)
    raise SystemExit("bench: redis-server did not start")


def _command(start: str, report: Path, *extra: str) -> list[str]:
    cmd = [str(VENV_BIN / "linkaudit"), start, "--report", str(report), "--quiet", "--delay", "0"]
    cmd += ["-s", f"CONCURRENT_REQUESTS={CONCURRENCY}"]
    return [*cmd, "-s", f"CONCURRENT_REQUESTS_PER_DOMAIN={CONCURRENCY}", *extra]


def _run(cmds: list[list[str]], cwd: Path) -> tuple[float, float, float]:
    """Wall seconds, total CPU seconds, largest peak RSS (MB) of ``cmds``
    run together."""
    start = time.monotonic()
    procs = [subprocess.Popen(c, cwd=cwd, stdout=subprocess.DEVNULL) for c in cmds]
    cpu, rss = 0.0, 0.0
    for p in procs:
        _pid, status, usage = os.wait4(p.pid, 0)
        code = os.waitstatus_to_exitcode(status)
        if code not in (0, 1):
            raise SystemExit(f"bench: a worker exited {code}")
        cpu += usage.ru_utime + usage.ru_stime
        rss = max(rss, usage.ru_maxrss / 1024)
    return time.monotonic() - start, cpu, rss


def measure(start: str, workers: int, cwd: Path) -> dict:
    shutil.rmtree(cwd, ignore_errors=True)
    cwd.mkdir(parents=True)
    if workers == 0:  # the single process, no Redis
        wall, cpu, rss = _run([_command(start, cwd / "report.json")], cwd)
        report = json.loads((cwd / "report.json").read_text())
        return {"wall": wall, "cpu": cpu, "rss": rss, "urls": report["summary"]["urls"]}
    proc, port = _redis()
    try:
        client = redis.Redis(port=port, decode_responses=True)
        before = client.info("memory")["used_memory"]
        url = f"redis://127.0.0.1:{port}/0"
        cmds = [
            _command(start, cwd / f"w{i}.json", "--redis", url, "--audit", "bench")
            + ["-s", "LINKAUDIT_REDIS_EXPIRE=0"]
            for i in range(workers)
        ]
        wall, cpu, rss = _run(cmds, cwd)
        report = next(json.loads(p.read_text()) for p in cwd.glob("w*.json"))
        stats = client.info("stats")
        commands = stats["total_commands_processed"]
        # a read event per request or pipeline the clients sent: round trips
        trips = stats["total_reads_processed"]
        memory = client.info("memory")["used_memory"] - before
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    urls = report["summary"]["urls"]
    links = sum(u["referrer_count"] for u in report["urls"])
    return {
        "wall": wall,
        "cpu": cpu,
        "rss": rss,
        "urls": urls,
        "commands_per_url": commands / urls,
        "trips_per_url": trips / urls,
        "bytes_per_url": memory / urls,
        "bytes_per_link": memory / links,
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--pages", type=int, default=10000)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--workers", default="0,1,2,3", help="0 is the single process, no Redis")
    ns = p.parse_args()
    site, truth = _site(ns.pages)
    nginx = Nginx(site)
    counts = [int(w) for w in ns.workers.split(",")]
    rows: dict[int, list[dict]] = {n: [] for n in counts}
    try:
        for rnd in range(ns.rounds):
            for n in counts:
                row = measure(truth["start"], n, WORK / "runs" / f"shared-{n}-{rnd}")
                rows[n].append(row)
                print(f"round {rnd + 1}, {n} workers: {row}", flush=True)
    finally:
        nginx.stop()
    base = None
    print(
        "| workers | wall s | CPU s (all workers) | CPU ms/URL | vs single | peak RSS MB "
        "| Redis round trips/URL | Redis commands/URL | Redis B/URL | Redis B/link |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for n in counts:
        med = {k: statistics.median(r[k] for r in rows[n]) for k in rows[n][0]}
        per_url = med["cpu"] / med["urls"] * 1000
        base = per_url if n == 0 else base
        ratio = f"{per_url / base:.2f}x" if base else "-"
        print(
            f"| {n or 'single, no Redis'} | {med['wall']:.1f} | {med['cpu']:.1f} | {per_url:.2f} "
            f"| {ratio} | {med['rss']:.0f} | {med.get('trips_per_url', 0):.2f} "
            f"| {med.get('commands_per_url', 0):.1f} "
            f"| {med.get('bytes_per_url', 0):.0f} | {med.get('bytes_per_link', 0):.1f} |"
        )


if __name__ == "__main__":
    main()
