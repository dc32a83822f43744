"""What the GET confirmations cost: requests and wall time of linkaudit at
two commits (a tree of each, ``--before`` and ``--after``), on the real
documentation sets served over HTTP by Python's ``http.server`` and walked
as build directories, and on the generated site served by the test suite's
servers (``tests/sitegen.py``: nginx needs a system package).

    git archive 4b47b87 | tar -x -C /tmp/before
    .venv/bin/python bench/confirmations.py --before /tmp/before --after . --rounds 3
    .venv/bin/python bench/confirmations.py --before /tmp/before --after . --site 10000

Requests are counted in the server's log (robots.txt included) and in the
report's ``summary.requests`` (for a build directory, what the walk says
the build's server would have been asked); times are medians of wall
seconds, rounds alternating between the two trees.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SETS = {
    "python": "/usr/share/doc/python3.11/html",
    "postgresql": "/usr/share/doc/postgresql-doc-15/html",
    "glib": "/usr/share/gtk-doc/html/gio",
}
LOGGED = re.compile(r'"(HEAD|GET) ')


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _linkaudit(tree: str, args: list[str], cwd: Path) -> tuple[float, dict]:
    report = cwd / "report.json"
    env = dict(os.environ, PYTHONPATH=str(Path(tree).resolve()))
    cmd = [sys.executable, "-m", "linkaudit", *args, "-q", "--report", str(report)]
    started = time.monotonic()
    out = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=1800)
    wall = time.monotonic() - started
    if out.returncode not in (0, 1):
        raise SystemExit(f"bench: {cmd} exited {out.returncode}: {out.stderr[-2000:]}")
    return wall, json.loads(report.read_text())


def _row(report: dict, wall: float, logged: tuple[int, int] | None) -> dict:
    s = report["summary"]
    row = {"wall": wall, "requests": s["requests"], "broken": s["broken"], "urls": s["urls"]}
    row["get_only_hosts"] = len(s.get("get_only_hosts") or ())
    if logged is not None:
        row["head"], row["get"] = logged
    return row


def served(tree: str, directory: str, work: Path) -> dict:
    """An audit of ``directory`` served by ``python3 -m http.server``."""
    port = _port()
    log = work / "server.log"
    with log.open("w") as fh:
        server = subprocess.Popen(
            [sys.executable, "-m", "http.server", "--bind", "127.0.0.1", str(port)],
            cwd=directory,
            stdout=subprocess.DEVNULL,
            stderr=fh,
        )
    try:
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        start = f"http://127.0.0.1:{port}/"
        wall, report = _linkaudit(tree, [start, "--skip-far", "--delay", "0"], work)
    finally:
        server.terminate()
        server.wait(timeout=10)
    methods = LOGGED.findall(log.read_text(errors="replace"))
    return _row(report, wall, (methods.count("HEAD"), methods.count("GET")))


def walked(tree: str, directory: str, work: Path) -> dict:
    """``linkaudit DIR``: the walk of a build directory."""
    wall, report = _linkaudit(tree, [directory, "--skip-far"], work)
    return _row(report, wall, None)


def site(tree: str, pages: int, work: Path, stack: ExitStack, cache: dict) -> dict:
    """The generated site, near and far origins, as the benchmark audits
    it (32 requests at a time, no delay)."""
    if "site" not in cache:
        sys.path.insert(0, str(ROOT))
        from tests.sitegen import generated_site

        cache["site"] = generated_site(stack, work / "site", pages, far_host="127.0.0.2")
    gen = cache["site"]
    gen.clear_logs()
    args = [gen.start, "--delay", "0", "-s", "CONCURRENT_REQUESTS=32"]
    args += ["-s", "CONCURRENT_REQUESTS_PER_DOMAIN=32"]
    wall, report = _linkaudit(tree, args, work)
    hits = [h.method for srv in (gen.near, gen.far) for h in srv.log]
    return _row(report, wall, (hits.count("HEAD"), hits.count("GET")))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--before", required=True)
    parser.add_argument("--after", required=True)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("--site", type=int, default=0, help="pages of the generated site only")
    ns = parser.parse_args()
    trees = {"before": ns.before, "after": ns.after}
    runs: dict[tuple[str, str], list[dict]] = {}
    cache: dict = {}
    with ExitStack() as stack, tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for _ in range(ns.rounds):
            for name, tree in trees.items():
                if ns.site:
                    rows = {f"site {ns.site}": site(tree, ns.site, work, stack, cache)}
                else:
                    rows = {}
                    for key in ns.sets.split(","):
                        rows[f"{key} http"] = served(tree, SETS[key], work)
                        rows[f"{key} dir"] = walked(tree, SETS[key], work)
                for what, row in rows.items():
                    runs.setdefault((what, name), []).append(row)
                    print(what, name, json.dumps(row), flush=True)
    print("| set | tree | requests (HEAD/GET) | summary.requests | broken | wall s median |")
    print("| --- | --- | --- | --- | --- | --- |")
    for (what, name), rows in runs.items():
        walls = [r["wall"] for r in rows]
        first = rows[0]
        logged = "-"
        if "head" in first:
            logged = f"{first['head'] + first['get']} ({first['head']}/{first['get']})"
        print(
            f"| {what} | {name} | {logged} | {first['requests']} | {first['broken']} | "
            f"{statistics.median(walls):.1f} ({min(walls):.1f}-{max(walls):.1f}) |"
        )


if __name__ == "__main__":
    main()
