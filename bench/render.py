"""What ``--render`` costs: time, CPU and memory per page rendered in
Chromium, on bench/jsapp.py's single-page app; and what ``--render auto``
costs on real documentation sets, where no page should be rendered.

    .venv/bin/python bench/render.py app --routes 500 --rounds 3 [--pages-at-once 1,2,4]
    .venv/bin/python bench/render.py docs --rounds 5 [--sets python,postgresql,glib]

Each audit is ``linkaudit URL --delay 0 -q --report R`` in a child process:
wall seconds; CPU seconds (user + system) of linkaudit and of every process
below it that was waited for (Playwright's driver, Chromium and its
renderers), from ``wait4``; the peak memory of the whole process tree,
polled in ``/proc`` every 0.1 s, as the sum of the processes' resident sizes
(RSS: pages shared between Chromium's processes counted once per process)
and of their proportional set sizes (PSS: each shared page counted once in
all); counts from the report's summary.  Modes alternate within a round;
tables give medians.

The app is served in this process by bench/jsapp.py's server; a doc set by
a child process running the standard library's ``http.server`` with a
listen backlog of 128 (``python3 -m http.server`` keeps Python's default
of 5: a crawler's burst of connections overflows it, and the kernel's 1 s
SYN retries make a set of 1,000 pages take minutes).
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from jsapp import JsAppServer  # noqa: E402

from linkaudit.rendering.memory import descendants  # noqa: E402

LINKAUDIT = str(Path(sys.executable).parent / "linkaudit")
SETS = {
    "python": "/usr/share/doc/python3.11/html",
    "postgresql": "/usr/share/doc/postgresql-doc-15/html",
    "glib": "/usr/share/gtk-doc/html/gio",
}
MiB = 1024 * 1024
PAGE = os.sysconf("SC_PAGE_SIZE")


def _memory(pid: int) -> tuple[int, int]:
    """(RSS, PSS) of one process in bytes; (0, 0) once it is gone."""
    rss = pss = 0
    try:
        with open(f"/proc/{pid}/statm", "rb") as fh:
            rss = int(fh.read().split()[1]) * PAGE
        with open(f"/proc/{pid}/smaps_rollup", "rb") as fh:
            for line in fh:
                if line.startswith(b"Pss:"):
                    pss = int(line.split()[1]) * 1024
                    break
    except (OSError, IndexError, ValueError):
        pass
    return rss, pss


class TreeMemory(threading.Thread):
    """Polls the memory of ``pid`` and its descendants until ``stop``."""

    def __init__(self, pid: int, interval: float = 0.1):
        super().__init__(daemon=True)
        self.pid, self.interval = pid, interval
        self.rss = self.pss = self.processes = 0
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.is_set():
            pids = [self.pid, *descendants(self.pid)]
            sizes = [_memory(p) for p in pids]
            self.rss = max(self.rss, sum(s[0] for s in sizes))
            self.pss = max(self.pss, sum(s[1] for s in sizes))
            self.processes = max(self.processes, len(pids))
            self.done.wait(self.interval)


def audit(url: str, args: list[str], work: Path) -> dict:
    """One audit of ``url``: its measures and its summary's counts."""
    report = work / "report.json"
    report.unlink(missing_ok=True)
    cmd = [LINKAUDIT, url, "--delay", "0", "-q", "--report", str(report), *args]
    started = time.monotonic()
    with (work / "stderr.txt").open("w+b") as log:
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=log)
    poll = TreeMemory(proc.pid)
    poll.start()
    _pid, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - started
    poll.done.set()
    poll.join()
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = (work / "stderr.txt").read_text(errors="replace")
    if proc.returncode not in (0, 1):
        raise SystemExit(f"bench: {cmd} exited {proc.returncode}:\n{err[-3000:]}")
    s = json.loads(report.read_text())["summary"]
    return {
        "wall": wall,
        "cpu": usage.ru_utime + usage.ru_stime,
        "rss": poll.rss / MiB,
        "pss": poll.pss / MiB,
        "processes": poll.processes,
        "urls": s["urls"],
        "broken": s["broken"],
        "requests": s["requests"],
        "rendered": s.get("rendered_pages") or 0,
        "render_requests": s.get("render_requests") or 0,
        "failures": s.get("render_failures") or 0,
        "shells": s.get("app_shells") or 0,
    }


def _med(rows: list[dict], key: str) -> float:
    return statistics.median(r[key] for r in rows)


def _range(rows: list[dict], key: str, digits: int = 1) -> str:
    v = [r[key] for r in rows]
    return f"{statistics.median(v):.{digits}f} ({min(v):.{digits}f}-{max(v):.{digits}f})"


def app(ns: argparse.Namespace, work: Path) -> None:
    """``--render always`` and ``never`` on the app of ``--routes`` routes."""
    variants = {"never": ["--render", "never"]}
    for n in ns.pages_at_once.split(","):
        pages = ["-s", f"LINKAUDIT_RENDER_PAGES={n}"]
        variants[f"always, {n} at once"] = ["--render", "always", *pages]
    if ns.memory:
        for args in variants.values():
            if "always" in args:
                args += ["-s", f"LINKAUDIT_RENDER_MEMORY={ns.memory}"]
    server = JsAppServer(ns.routes)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    runs: dict[str, list[dict]] = {}
    try:
        for i in range(ns.rounds):
            for name, args in variants.items():
                row = audit(server.url, args, work)
                runs.setdefault(name, []).append(row)
                print(f"round {i + 1}: {name}: {json.dumps(row)}", file=sys.stderr, flush=True)
    finally:
        server.shutdown()
        server.server_close()
    print(f"\n{ns.routes} routes, {ns.rounds} rounds, medians (min-max)\n")
    print(
        "| mode | wall s | CPU s | peak RSS MiB (tree) | peak PSS MiB (tree) | processes | URLs "
        "| pages rendered | render failures | browser requests | requests "
        "| wall s per rendered page | CPU s per rendered page |"
    )
    print("| --- " * 13 + "|")
    for name, rows in runs.items():
        pages = _med(rows, "rendered")
        per = (
            f"{_med(rows, 'wall') / pages:.3f} | {_med(rows, 'cpu') / pages:.3f}"
            if pages
            else "- | -"
        )
        print(
            f"| {name} | {_range(rows, 'wall')} | {_range(rows, 'cpu')} | {_med(rows, 'rss'):.0f} "
            f"| {_med(rows, 'pss'):.0f} | {_med(rows, 'processes'):.0f} | {_med(rows, 'urls'):.0f} "
            f"| {pages:.0f} | {_med(rows, 'failures'):.0f} | {_med(rows, 'render_requests'):.0f} "
            f"| {_med(rows, 'requests'):.0f} | {per} |"
        )


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128


class _Files(SimpleHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # kept alive: it sends Content-Length

    def log_message(self, *args: object) -> None:
        pass


def serve(directory: str) -> None:
    """Serve ``directory`` on 127.0.0.1 (a free port, printed) until killed."""
    server = _Server(("127.0.0.1", 0), partial(_Files, directory=directory))
    print(f"http://127.0.0.1:{server.server_address[1]}/", flush=True)
    server.serve_forever()


def docs(ns: argparse.Namespace, work: Path) -> None:
    """``--render auto`` against ``never`` on the doc sets, alternating."""
    variants = {"never": ["--render", "never"], "auto": ["--render", "auto"]}
    runs: dict[tuple[str, str], list[dict]] = {}
    for key in ns.sets.split(","):
        if not Path(SETS[key]).is_dir():
            raise SystemExit(f"bench: {SETS[key]} is missing (its Debian package)")
        cmd = [sys.executable, __file__, "serve", SETS[key]]
        server = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
        try:
            url = server.stdout.readline().strip() if server.stdout else ""
            host, port = url.split("/")[2].split(":")
            socket.create_connection((host, int(port)), timeout=5).close()
            for i in range(ns.rounds):
                order = variants if i % 2 == 0 else dict(reversed(variants.items()))
                for name, args in order.items():
                    row = audit(url, [*args, "--skip-far"], work)
                    runs.setdefault((key, name), []).append(row)
                    print(f"{key} round {i + 1}: {name}: {json.dumps(row)}", file=sys.stderr)
        finally:
            server.terminate()
            server.wait(timeout=10)
    print(f"\n{ns.rounds} rounds, alternating, medians (min-max)\n")
    print(
        "| set | URLs | pages rendered (auto) | app shells noticed (never) | CPU s never "
        "| CPU s auto | auto / never CPU | wall s never | wall s auto | peak RSS MiB never / auto |"
    )
    print("| --- " * 10 + "|")
    for key in ns.sets.split(","):
        never, auto = runs[(key, "never")], runs[(key, "auto")]
        rendered = max(r["rendered"] for r in auto)
        ratio = _med(auto, "cpu") / _med(never, "cpu")
        print(
            f"| {key} | {_med(never, 'urls'):.0f} | {rendered} | {max(r['shells'] for r in never)} "
            f"| {_range(never, 'cpu', 2)} | {_range(auto, 'cpu', 2)} | {ratio:.3f} "
            f"| {_med(never, 'wall'):.2f} | {_med(auto, 'wall'):.2f} "
            f"| {_med(never, 'rss'):.0f} / {_med(auto, 'rss'):.0f} |"
        )
        if rendered:
            print(f"bench: {key}: auto rendered {rendered} pages", file=sys.stderr)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="what", required=True)
    a = sub.add_parser("app", help="--render always and never on bench/jsapp.py's app")
    a.add_argument("--routes", type=int, default=500)
    a.add_argument("--rounds", type=int, default=3)
    a.add_argument("--pages-at-once", default="2", help="LINKAUDIT_RENDER_PAGES, e.g. 1,2,4")
    a.add_argument("--memory", type=int, default=0, help="LINKAUDIT_RENDER_MEMORY (MiB)")
    d = sub.add_parser("docs", help="--render auto and never on the Debian doc sets")
    d.add_argument("--rounds", type=int, default=5)
    d.add_argument("--sets", default=",".join(SETS))
    s = sub.add_parser("serve", help="serve a directory (for docs)")
    s.add_argument("directory")
    ns = p.parse_args()
    if ns.what == "serve":
        serve(ns.directory)
        return
    with tempfile.TemporaryDirectory() as tmp:
        (app if ns.what == "app" else docs)(ns, Path(tmp))


if __name__ == "__main__":
    main()
