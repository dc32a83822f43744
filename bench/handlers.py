"""linkaudit on each HTTP client (``LINKAUDIT_HTTP_CLIENT``) and linkinator,
alternating, on the real documentation sets served by nginx.

    .venv/bin/python bench/handlers.py --rounds 5     # [--sets python,postgresql,glib]
    .venv/bin/python bench/handlers.py --rounds 5 --mode fast

A round runs, for each set in turn, linkaudit's audit with each client,
then linkinator; the order of the clients turns by one each round, so no
client always runs first or after linkinator. Wall and CPU (user + system)
from ``wait4``; the requests from the report's summary (``requests``), so "CPU a request"
is the whole process's CPU over its requests. Medians of the rounds; the
load average (``os.getloadavg``) before and after each round is printed
beside them. Every client's report of a set must name the same broken
URLs, or the run stops.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics

from peers import EXTERNAL, run_linkinator
from real import SETS, RealNginx
from run import CONCURRENCY, VENV_BIN, WORK, _measure

CLIENTS = ("twisted", "httpx", "aiohttp", "curl_cffi")
MODES = {"default": [], "fast": ["-s", "LINKAUDIT_HEAD_FIRST=False"]}


def run_client(url: str, client: str, mode: str, cwd) -> dict:
    report = cwd / "report.json"
    cmd = [str(VENV_BIN / "linkaudit"), url, "--report", str(report), "--quiet"]
    cmd += ["--delay", "0", "-s", f"CONCURRENT_REQUESTS={CONCURRENCY}"]
    cmd += ["-s", f"CONCURRENT_REQUESTS_PER_DOMAIN={CONCURRENCY}", "--format", "json"]
    cmd += ["--exclude", EXTERNAL, "-s", f"LINKAUDIT_HTTP_CLIENT={client}", *MODES[mode]]
    wall, cpu, _rss, _ = _measure(cmd, cwd)
    data = json.loads(report.read_text())
    broken = sorted(u["url"] for u in data["urls"] if u["outcome"] == "broken")
    requests = data["summary"]["requests"]
    return {"wall": wall, "cpu": cpu, "requests": requests, "broken": broken}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--sets", default="python,postgresql,glib")
    p.add_argument("--clients", default=",".join(CLIENTS))
    p.add_argument("--mode", choices=MODES, default="default")
    p.add_argument("--no-linkinator", action="store_true")
    args = p.parse_args()
    keys, clients = args.sets.split(","), args.clients.split(",")
    sets = {k: SETS[k] for k in keys}
    nginx = RealNginx(sets)
    got: dict[tuple[str, str], list[dict]] = {}
    try:
        for rnd in range(args.rounds):
            load = os.getloadavg()[0]
            turned = clients[rnd % len(clients) :] + clients[: rnd % len(clients)]
            for key in keys:
                url = f"http://127.0.0.1:{nginx.ports[key]}/"
                runs = [(c, lambda cwd, c=c: run_client(url, c, args.mode, cwd)) for c in turned]
                if not args.no_linkinator:
                    runs.append(("linkinator", lambda cwd: vars(run_linkinator(url, cwd, EXTERNAL))))
                for name, run in runs:
                    cwd = WORK / "runs" / f"handlers-{key}-{name}-{rnd}"
                    shutil.rmtree(cwd, ignore_errors=True)
                    cwd.mkdir(parents=True)
                    r = run(cwd)
                    got.setdefault((key, name), []).append(r)
                    print(f"round {rnd + 1} {key} {name}: {r['wall']:.2f} s wall, "
                          f"{r['cpu']:.2f} s CPU, {r.get('requests', '-')} requests", flush=True)
            print(f"round {rnd + 1}: load {load:.2f} -> {os.getloadavg()[0]:.2f}", flush=True)
    finally:
        nginx.stop()
    print_table(keys, clients, got, args)


def print_table(keys, clients, got, args) -> None:
    print(f"\n{args.mode} mode, {args.rounds} rounds, medians (min-max)\n")
    print("| set | client | wall s | CPU s | requests | CPU ms a request | / twisted (wall) "
          "| / linkinator (wall) | broken |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for key in keys:
        med = {n: statistics.median(r["wall"] for r in rs) for (k, n), rs in got.items() if k == key}
        for name in [*clients, "linkinator"]:
            rs = got.get((key, name))
            if not rs:
                continue
            walls = [r["wall"] for r in rs]
            cpu = statistics.median(r["cpu"] for r in rs)
            reqs = statistics.median(r.get("requests") or 0 for r in rs)
            per = f"{1000 * cpu / reqs:.2f}" if reqs else "-"
            broken = len(rs[0]["broken"]) if isinstance(rs[0]["broken"], list) else len(rs[0]["broken"])
            tw = f"{med[name] / med['twisted']:.2f}x" if "twisted" in med else "-"
            li = f"{med[name] / med['linkinator']:.2f}x" if "linkinator" in med else "-"
            print(f"| {key} | {name} | {med[name]:.2f} ({min(walls):.2f}-{max(walls):.2f}) "
                  f"| {cpu:.2f} | {reqs:.0f} | {per} | {tw} | {li} | {broken} |")
        ref = [r["broken"] for n in clients for r in got.get((key, n), [])]
        if any(b != ref[0] for b in ref):
            raise SystemExit(f"bench: the clients' broken URLs differ on {key}")


if __name__ == "__main__":
    main()
