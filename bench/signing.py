"""What signing every request costs (``--sign-key``, Web Bot Auth).

    .venv/bin/python bench/signing.py --pages 1000 --rounds 5

Serves a site of ``--pages`` pages on 127.0.0.1 (tests/server.py: each page
links the next and one more), makes a key with ``linkaudit keygen``, and
audits it with and without ``--sign-key``, alternating, at ``--delay 0``.
Prints each variant's median wall time and CPU (the linkaudit process's,
user and system) and the requests the server answered; then the cost of
one signature alone (``rules/signatures.py``'s headers, Ed25519 included).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from linkaudit.rules.signatures import Signer, signed_headers, thumbprint  # noqa: E402
from tests.server import Route, TestServer  # noqa: E402

LINKAUDIT = str(Path(sys.executable).with_name("linkaudit"))


def _audit(url: str, work: Path, extra: list[str]) -> tuple[float, float]:
    """(wall s, CPU s) of one audit of ``url``."""
    cmd = [LINKAUDIT, url, "--delay", "0", "--report", str(work / "r.json"), "-q", *extra]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=work, timeout=600)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    assert done.returncode == 0, done.stderr[-2000:]
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _one_signature(n: int = 20_000) -> float:
    """Microseconds to make one request's three headers."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    key = Ed25519PrivateKey.generate()
    raw = key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    signer = Signer("bench", key, thumbprint(raw))
    started = time.perf_counter()
    for _ in range(n):
        signed_headers(signer, "https://bot.example", "example.com", 1, 61, os.urandom(64))
    return (time.perf_counter() - started) / n * 1e6


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--pages", type=int, default=1000)
    p.add_argument("--rounds", type=int, default=5)
    ns = p.parse_args()
    links = "".join(f'<a href="/p{i}">p</a>' for i in range(ns.pages))
    routes = {"/": Route(body=links)}
    for i in range(ns.pages):
        nxt, far = (i + 1) % ns.pages, (i * 7) % ns.pages
        routes[f"/p{i}"] = Route(body=f'<a href="/p{nxt}">n</a><a href="/p{far}">m</a>')
    with tempfile.TemporaryDirectory() as tmp, TestServer(routes) as site:
        work = Path(tmp)
        made = subprocess.run([LINKAUDIT, "keygen", "keys"], capture_output=True, cwd=work)
        assert made.returncode == 0, made.stderr
        signing = [
            "--sign-key",
            "keys/linkaudit-key.pem",
            "--signature-agent",
            "https://bot.example",
            "--sign-http",  # the site here is on plain http: signed as a site on https is
        ]
        variants = {"unsigned": [], "--sign-key": signing}
        results: dict[str, list[tuple[float, float]]] = {name: [] for name in variants}
        requests: dict[str, int] = {}
        for _ in range(ns.rounds):
            for name, extra in variants.items():
                site.log.clear()
                results[name].append(_audit(f"{site.url}/", work, extra))
                requests[name] = len(site.log)
    print(f"{ns.pages + 1} URLs, {ns.rounds} rounds, median:")
    for name, runs in results.items():
        wall = statistics.median(r[0] for r in runs)
        cpu = statistics.median(r[1] for r in runs)
        print(f"  {name:10} wall {wall:6.2f} s  CPU {cpu:6.2f} s  requests {requests[name]}")
    print(f"one signature: {_one_signature():.0f} us")


if __name__ == "__main__":
    main()
