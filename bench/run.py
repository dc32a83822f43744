"""The benchmark: linkaudit against LinkChecker, linkinator and a
fetch-and-parse floor, on the same generated site, served by nginx, in one
session; ``real`` does the same on real documentation sets (bench/real.py).

    python bench/run.py setup        # nginx, the doc sets (apt), the peers, aiohttp
    python bench/run.py run --pages 10000 --rounds 3
    python bench/run.py real --pages 10000 --rounds 3   # generated site, then doc sets

``run`` generates the site (bench/gen_site.py) unless it is there, serves it
with nginx on 127.0.0.1 (near) and 127.0.0.2 (far), then runs each tool in
turn, alternating, for several rounds, and prints a table: wall time (median,
min-max), CPU time, peak RSS, URLs checked, URLs/s, requests by method, GETs
of non-HTML, bytes sent by the server, broken found against the truth.
Every number comes from the run: nginx's access log for requests and bytes,
``wait4`` for CPU and memory, the tools' own output for what they found.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
VENV_BIN = Path(sys.executable).parent
WORK = Path(os.environ.get("LINKAUDIT_BENCH_DIR", "/tmp/linkaudit-bench"))
LC_VENV = WORK / "linkchecker-venv"
LINKCHECKER_VERSION = "10.6.0"
PORT = int(os.environ.get("LINKAUDIT_BENCH_PORT", "8081"))  # nginx, for both origins
NEAR, FAR = f"http://127.0.0.1:{PORT}", f"http://127.0.0.2:{PORT}"
CONCURRENCY = 32

NGINX_CONF = """
daemon off;
worker_processes 1;
{user}
pid {work}/nginx.pid;
error_log {work}/nginx-error.log warn;
events {{ worker_connections 4096; }}
http {{
    include /etc/nginx/mime.types;
    default_type application/octet-stream;
    sendfile on;
    keepalive_requests 1000000;
    keepalive_timeout 75s;
    log_format bench '$server_addr $request_method $status $body_bytes_sent $request_uri';
    access_log {work}/access.log bench;
    # without it LinkChecker waits 0.1-0.6 s between two requests to a host
    add_header LinkChecker "benchmark" always;
    server {{
        listen 127.0.0.1:{port};
        root {site}/near;
        {near_rules}
    }}
    server {{
        listen 127.0.0.2:{port};
        root {site}/far;
        {far_rules}
    }}
}}
"""


# -- setup ---------------------------------------------------------------------
def setup() -> None:
    if not shutil.which("nginx"):
        subprocess.run(["apt-get", "install", "-y", "-q", "nginx"], check=True)
    subprocess.run(["service", "nginx", "stop"], check=False, capture_output=True)
    if not (LC_VENV / "bin" / "linkchecker").exists():
        subprocess.run([sys.executable, "-m", "venv", str(LC_VENV)], check=True)
        subprocess.run(
            [str(LC_VENV / "bin" / "pip"), "install", "-q", f"linkchecker=={LINKCHECKER_VERSION}"],
            check=True,
        )
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "-r", str(HERE / "requirements.txt")],
        check=True,
    )
    from peers import setup_peers
    from real import PACKAGES

    # the real documentation sets (bench/real.py), from Debian's archive
    subprocess.run(
        ["apt-get", "install", "-y", "-q", "--no-install-recommends", *PACKAGES], check=True
    )
    setup_peers()
    print("bench: nginx, LinkChecker, aiohttp, the doc sets, linkinator and lychee are ready")


# -- serving -------------------------------------------------------------------
def start_nginx(conf: Path, ready, error_log: Path) -> subprocess.Popen:
    """nginx with ``conf``, once ``ready(proc)`` says it answers (10 s at most)."""
    proc = subprocess.Popen(["nginx", "-c", str(conf)])
    deadline = time.monotonic() + 10
    while not ready(proc):
        if time.monotonic() > deadline or proc.poll() is not None:
            proc.kill()
            raise SystemExit(f"bench: nginx did not start; see {error_log}")
        time.sleep(0.05)
    return proc


def stop_nginx(proc: subprocess.Popen) -> None:
    """A graceful stop (SIGQUIT), a kill after 10 s."""
    proc.send_signal(signal.SIGQUIT)
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()


class Nginx:
    def __init__(self, site: Path):
        self.log = WORK / "access.log"
        rules = json.loads((site / "rules.json").read_text())
        conf = NGINX_CONF.format(
            user="user root;" if os.geteuid() == 0 else "",
            work=WORK,
            port=PORT,
            site=site,
            near_rules=self._locations(rules["near"]),
            far_rules=self._locations(rules["far"]),
        )
        (WORK / "nginx.conf").write_text(conf)
        self.log.write_text("")
        (WORK / "nginx.pid").unlink(missing_ok=True)
        self.proc = start_nginx(WORK / "nginx.conf", self._answers, WORK / "nginx-error.log")
        self.log.write_text("")  # the probes above are not part of any run

    @staticmethod
    def _locations(rules: dict) -> str:
        """nginx locations for the generator's rules (its 429-once URL is
        served as the page it becomes after the retry)."""
        lines = [
            f"location = {path} {{ return {status} {target}; }}"
            for path, (status, target) in rules["redirects"].items()
        ]
        statuses = rules["statuses"].items()
        lines += [f"location = {path} {{ return {status}; }}" for path, status in statuses]
        return "\n        ".join(lines)

    @staticmethod
    def _answers(proc: subprocess.Popen) -> bool:
        """Both origins answer, and it is this nginx (not a leftover one)."""
        if not (WORK / "nginx.pid").exists() or proc.poll() is not None:
            return False
        for host in ("127.0.0.1", "127.0.0.2"):
            try:
                with socket.create_connection((host, PORT), timeout=1):
                    pass
            except OSError:
                return False
        return True

    def offset(self) -> int:
        return self.log.stat().st_size

    def hits(self, since: int) -> list[tuple[str, str, int, int, str]]:
        """(origin address, method, status, bytes, uri) logged since ``since``."""
        with self.log.open() as fh:
            fh.seek(since)
            rows = []
            for line in fh:
                addr, method, status, size, uri = line.rstrip("\n").split(" ", 4)
                rows.append((addr, method, int(status), int(size), uri))
        return rows

    def stop(self) -> None:
        stop_nginx(self.proc)
        (WORK / "nginx.pid").unlink(missing_ok=True)


# -- the tools -------------------------------------------------------------------
@dataclass
class Result:
    tool: str
    wall: float
    cpu: float
    rss_mb: float
    checked: int
    broken: set[str] = field(default_factory=set)
    hits: list = field(default_factory=list)


def _measure(
    cmd: list[str], cwd: Path, env: dict | None = None, ok: tuple[int, ...] = (0, 1)
) -> tuple[float, float, float, str]:
    """Run ``cmd``; wall seconds, CPU seconds and peak RSS (MB) of the process
    (and of every child it waited for).

    The peak is GNU time's (``%M``) where it is installed: Linux counts in a
    child's ``ru_maxrss`` the memory of the process it was forked from, so
    every command run by this (large) Python process would show at least
    its size."""
    out = cwd / "stdout.txt"
    peak = cwd / "peak-rss.txt"
    timed = ["/usr/bin/time", "-f", "%M", "-o", str(peak)] if Path("/usr/bin/time").exists() else []
    with out.open("w") as fh:
        start = time.monotonic()
        proc = subprocess.Popen(
            [*timed, *cmd], cwd=cwd, stdout=fh, stderr=subprocess.STDOUT, env=env
        )
        _pid, status, usage = os.wait4(proc.pid, 0)
        wall = time.monotonic() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    text = out.read_text(errors="replace")
    if proc.returncode not in ok:
        raise SystemExit(f"bench: {cmd[0]} exited {proc.returncode}:\n{text[-3000:]}")
    rss = usage.ru_maxrss / 1024
    if timed:
        rss = int(peak.read_text().split()[-1]) / 1024
    return wall, usage.ru_utime + usage.ru_stime, rss, text


def run_linkaudit(truth: dict, cwd: Path, *extra: str, name: str = "linkaudit") -> Result:
    report = cwd / "report.json"
    cmd = [str(VENV_BIN / "linkaudit"), truth["start"], "--report", str(report), "--quiet"]
    cmd += ["--delay", "0", "-s", f"CONCURRENT_REQUESTS={CONCURRENCY}"]
    cmd += ["-s", f"CONCURRENT_REQUESTS_PER_DOMAIN={CONCURRENCY}", "--format", "json", *extra]
    wall, cpu, rss, _ = _measure(cmd, cwd)
    data = json.loads(report.read_text())
    broken = {u["url"] for u in data["urls"] if u["outcome"] == "broken"}
    checked = sum(1 for u in data["urls"] if u["outcome"] not in ("unchecked", "excluded"))
    return Result(name, wall, cpu, rss, checked, broken)


def run_linkchecker(truth: dict, cwd: Path, ignore: str = "") -> Result:
    """LinkChecker from ``truth["start"]``; ``ignore``: a regex of URLs it
    must not check (its [filtering] ignore)."""
    os.chmod(cwd, 0o777)  # LinkChecker run as root drops to nobody, then writes here
    cfg = cwd / "linkcheckerrc"
    cfg.write_text(
        f"[checking]\nthreads={CONCURRENCY}\nmaxrequestspersecond=100000\n"
        "[filtering]\ncheckextern=1\n"
        + (f"ignore={ignore}\n" if ignore else "")
        + f"[csv]\nfilename={cwd / 'lc.csv'}\n"
    )
    os.chmod(cfg, 0o644)
    cmd = [str(LC_VENV / "bin" / "linkchecker"), "-f", str(cfg), "--no-status"]
    cmd += ["-o", "text", "-F", f"csv/utf-8/{cwd / 'lc.csv'}", "--no-warnings", truth["start"]]
    wall, cpu, rss, text = _measure(cmd, cwd)
    m = re.search(r"(\d+) links? in (\d+) URLs? checked", text)
    checked = int(m.group(2)) if m else 0
    broken = set()
    with (cwd / "lc.csv").open(encoding="utf-8") as fh:
        rows = (line for line in fh if not line.startswith("#"))
        for row in csv.DictReader(rows, delimiter=";"):
            if row.get("valid") == "False":
                broken.add(row["url"].partition("#")[0])  # the page, as the others
    return Result("LinkChecker", wall, cpu, rss, checked, broken)


def run_floor(truth: dict, cwd: Path) -> Result:
    pages = cwd / "pages.txt"
    pages.write_text("\n".join(u for u, t in truth["urls"].items() if t["near"] and t["html"]))
    cmd = [sys.executable, str(HERE / "floor.py"), str(pages), str(CONCURRENCY)]
    wall, cpu, rss, text = _measure(cmd, cwd)
    return Result("floor (aiohttp+lxml)", wall, cpu, rss, int(text.split()[0]))


TOOLS = {
    "linkaudit": run_linkaudit,
    "linkaudit-fast": lambda truth, cwd: run_linkaudit(
        truth, cwd, "-s", "LINKAUDIT_HEAD_FIRST=False", name="linkaudit-fast"
    ),
    "linkchecker": run_linkchecker,
    "floor": run_floor,
    "linkinator": lambda truth, cwd: __import__("peers").run_linkinator(truth["start"], cwd),
    "scrapy-floor": lambda truth, cwd: __import__("peers").run_scrapy_floor(
        [u for u, t in truth["urls"].items() if t["near"] and t["html"]], cwd
    ),
}


# -- the table -------------------------------------------------------------------
def _summarise(results: list[Result], truth: dict) -> dict:
    urls = truth["urls"]
    true_broken = {u for u, t in urls.items() if t["broken"]}
    html = {u for u, t in urls.items() if t["html"] and t["near"]}
    walls = [r.wall for r in results]
    last = results[-1]
    methods = Counter(h[1] for h in last.hits)
    non_html_gets = sum(
        1
        for addr, method, _s, _b, uri in last.hits
        if method == "GET" and uri != "/robots.txt" and _url(addr, uri) not in html
    )
    return {
        "tool": last.tool,
        "wall": statistics.median(walls),
        "wall_range": (min(walls), max(walls)),
        "cpu": statistics.median(r.cpu for r in results),
        "rss": max(r.rss_mb for r in results),
        "checked": last.checked,
        "urls_per_s": last.checked / statistics.median(walls) if last.checked else 0,
        "methods": dict(methods),
        "non_html_gets": non_html_gets,
        "bytes": sum(h[3] for h in last.hits),
        "tp": len(last.broken & true_broken) if last.broken else None,
        "fp": len(last.broken - true_broken) if last.broken else None,
    }


def _url(addr: str, uri: str) -> str:
    return f"http://{addr}:{PORT}{uri}"


def print_table(rows: list[dict], truth: dict, rounds: int) -> None:
    urls = truth["urls"]
    n_broken = sum(t["broken"] for t in urls.values())
    print(
        f"\nSite: {truth['pages']} pages, {len(urls)} URLs, {truth['link_occurrences']} link "
        f"occurrences, {n_broken} broken; {rounds} rounds, {CONCURRENCY} concurrent, delay 0\n"
    )
    head = (
        "| tool | wall s median (min-max) | CPU s | peak RSS MB | URLs checked | URLs/s "
        "| requests (HEAD/GET) | GETs of non-HTML | MB sent | broken found (false +) |"
    )
    print(head)
    print("|" + " --- |" * (head.count("|") - 1))
    for r in rows:
        m = r["methods"]
        found = "-" if r["tp"] is None else f"{r['tp']}/{n_broken} ({r['fp']})"
        print(
            f"| {r['tool']} | {r['wall']:.1f} ({r['wall_range'][0]:.1f}-{r['wall_range'][1]:.1f}) "
            f"| {r['cpu']:.1f} | {r['rss']:.0f} | {r['checked']} | {r['urls_per_s']:.0f} "
            f"| {m.get('HEAD', 0)}/{m.get('GET', 0)} | {r['non_html_gets']} "
            f"| {r['bytes'] / 1e6:.1f} | {found} |"
        )
    by_tool = {r["tool"]: r for r in rows}
    lc = by_tool.get("LinkChecker")
    floor = by_tool.get("floor (aiohttp+lxml)")
    lk = by_tool.get("linkinator")
    for r in rows:
        ratios = []
        if lk and r is not lk:
            ratios.append(f"{r['wall'] / lk['wall']:.2f}x linkinator")
        if lc and r is not lc:
            ratios.append(f"{r['wall'] / lc['wall']:.2f}x LinkChecker")
        if floor and r is not floor:
            ratios.append(f"{r['wall'] / floor['wall']:.2f}x the floor")
        if ratios:
            print(f"- {r['tool']}: {', '.join(ratios)} (median wall time)")


def _site(pages: int) -> tuple[Path, dict]:
    site = WORK / f"site-{pages}"
    if not (site / "truth.json").exists():
        subprocess.run(
            [sys.executable, str(HERE / "gen_site.py"), "--pages", str(pages), "--out", str(site)]
            + ["--near", NEAR, "--far", FAR],
            check=True,
        )
    return site, json.loads((site / "truth.json").read_text())


def serve(pages: int) -> None:
    """Serve a site until Ctrl-C (for profiling by hand)."""
    site, truth = _site(pages)
    nginx = Nginx(site)
    print(f"bench: serving {truth['start']} (Ctrl-C or SIGTERM stops)", flush=True)
    signal.signal(signal.SIGTERM, signal.default_int_handler)  # run the finally below
    try:
        nginx.proc.wait()
    except KeyboardInterrupt:
        pass
    finally:
        nginx.stop()


def run(pages: int, rounds: int, tools: list[str], once: frozenset[str] = frozenset()) -> None:
    """``once``: tools run in the first round only (LinkChecker's minutes)."""
    site, truth = _site(pages)
    nginx = Nginx(site)
    results: dict[str, list[Result]] = {t: [] for t in tools}
    try:
        for rnd in range(rounds):
            for tool in tools:  # alternating: each round runs every tool once
                if rnd and tool.lower() in once:
                    continue
                cwd = WORK / "runs" / f"{tool}-{rnd}"
                shutil.rmtree(cwd, ignore_errors=True)
                cwd.mkdir(parents=True)
                since = nginx.offset()
                result = TOOLS[tool](truth, cwd)
                result.hits = nginx.hits(since)
                results[tool].append(result)
                print(
                    f"round {rnd + 1} {result.tool}: {result.wall:.1f} s wall, {result.cpu:.1f} s "
                    f"CPU, {result.rss_mb:.0f} MB, {result.checked} URLs",
                    flush=True,
                )
    finally:
        nginx.stop()
    print_table([_summarise(results[t], truth) for t in tools], truth, rounds)


def main() -> None:
    p = argparse.ArgumentParser(description="linkaudit's benchmark")
    sub = p.add_subparsers(dest="command", required=True)
    sub.add_parser("setup", help="install nginx, LinkChecker (own virtualenv) and aiohttp")
    r = sub.add_parser("run", help="generate, serve, measure, print the table")
    r.add_argument("--pages", type=int, default=10000)
    r.add_argument("--rounds", type=int, default=3)
    r.add_argument("--tools", default="linkaudit,linkaudit-fast,linkchecker,floor")
    d = sub.add_parser("real", help="real doc sets: each finding's price, and the peers")
    d.add_argument(
        "--sets", default="python,postgresql,glib", help="python,postgresql,glib,libstdc++"
    )
    d.add_argument("--rounds", type=int, default=3)
    d.add_argument("--skip", default="", help="runs left out, e.g. LinkChecker")
    d.add_argument("--once", default="", help="runs in the first round only, e.g. LinkChecker")
    d.add_argument("--pages", type=int, default=0, help="the generated site's table first")
    s = sub.add_parser("serve", help="serve a generated site until Ctrl-C")
    s.add_argument("--pages", type=int, default=10000)
    ns = p.parse_args()
    WORK.mkdir(parents=True, exist_ok=True)
    if ns.command == "setup":
        setup()
    elif ns.command == "real":
        from real import real

        once = frozenset(filter(None, ns.once.lower().split(",")))
        if ns.pages:  # the generated site's table first, in the same invocation
            tools = "linkaudit,linkaudit-fast,scrapy-floor,linkinator,linkchecker,floor"
            run(ns.pages, ns.rounds, tools.split(","), once)
        real(ns.sets.split(","), ns.rounds, set(filter(None, ns.skip.split(","))), once)
    elif ns.command == "serve":
        serve(ns.pages)
    else:
        run(ns.pages, ns.rounds, ns.tools.split(","))


if __name__ == "__main__":
    main()
