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
import sys
from pathlib import Path

from peers import EXTERNAL, run_linkinator, site_pages
from real import SETS, RealNginx
from run import CONCURRENCY, VENV_BIN, WORK, _measure

CLIENTS = ("twisted", "httpx", "aiohttp", "curl_cffi")
# each client's Scrapy download handler, for the bare spider (scrapy_floor.py)
HANDLERS = {
    "twisted": "scrapy.core.downloader.handlers.http11.HTTP11DownloadHandler",
    "httpx": "scrapy.core.downloader.handlers._httpx.HttpxDownloadHandler",
    "aiohttp": "scrapy_download_handlers_incubator.AiohttpDownloadHandler",
    "curl_cffi": "scrapy_download_handlers_incubator.CurlCffiDownloadHandler",
}
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


def run_floor(pages: list[str], client: str, cwd: Path) -> dict:
    """The bare Scrapy spider, HEAD then GET of each page, on ``client``'s
    handler: the handler's cost with none of linkaudit's."""
    listed = cwd / "pages.txt"
    listed.write_text("\n".join(pages))
    cmd = [sys.executable, str(Path(__file__).parent / "scrapy_floor.py"), str(listed)]
    cmd += [str(CONCURRENCY), "head", "--handler", HANDLERS[client]]
    wall, cpu, _rss, text = _measure(cmd, cwd)
    fetched = int(text.split()[0])
    if fetched != len(pages):
        raise SystemExit(f"bench: the floor on {client} fetched {fetched} of {len(pages)}")
    return {"wall": wall, "cpu": cpu, "requests": 2 * fetched, "broken": []}


def _runs(root: Path, url: str, clients: list[str], args: argparse.Namespace) -> list:
    """A round's runs on one set: (name, callable(cwd) -> dict), in order."""
    if args.floor:
        pages = site_pages(root, url)
        runs = [(c, lambda cwd, c=c: run_floor(pages, c, cwd)) for c in clients]
    else:
        runs = [(c, lambda cwd, c=c: run_client(url, c, args.mode, cwd)) for c in clients]
    if not args.no_linkinator:
        runs.append(("linkinator", lambda cwd: vars(run_linkinator(url, cwd, EXTERNAL))))
    return runs


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--sets", default="python,postgresql,glib")
    p.add_argument("--clients", default=",".join(CLIENTS))
    p.add_argument("--mode", choices=MODES, default="default")
    p.add_argument("--no-linkinator", action="store_true")
    p.add_argument(
        "--floor",
        action="store_true",
        help="the bare Scrapy spider (HEAD+GET a page) on each handler instead",
    )
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
                runs = _runs(sets[key].root, url, turned, args)
                for name, run in runs:
                    cwd = WORK / "runs" / f"handlers-{key}-{name}-{rnd}"
                    shutil.rmtree(cwd, ignore_errors=True)
                    cwd.mkdir(parents=True)
                    r = run(cwd)
                    got.setdefault((key, name), []).append(r)
                    print(
                        f"round {rnd + 1} {key} {name}: {r['wall']:.2f} s wall, "
                        f"{r['cpu']:.2f} s CPU, {r.get('requests', '-')} requests",
                        flush=True,
                    )
            print(f"round {rnd + 1}: load {load:.2f} -> {os.getloadavg()[0]:.2f}", flush=True)
    finally:
        nginx.stop()
    print_table(keys, clients, got, args)


def print_table(keys, clients, got, args) -> None:
    what = "the bare Scrapy spider, HEAD+GET" if args.floor else f"{args.mode} mode"
    print(f"\n{what}, {args.rounds} rounds, medians (min-max)\n")
    print(
        "| set | client | wall s | CPU s | requests | CPU ms a request | / twisted (wall) "
        "| / linkinator (wall) | broken |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for key in keys:
        here = {n: rs for (k, n), rs in got.items() if k == key}
        med = {n: statistics.median(r["wall"] for r in rs) for n, rs in here.items()}
        for name in [*clients, "linkinator"]:
            rs = got.get((key, name))
            if not rs:
                continue
            walls = [r["wall"] for r in rs]
            cpu = statistics.median(r["cpu"] for r in rs)
            reqs = statistics.median(r.get("requests") or 0 for r in rs)
            per = f"{1000 * cpu / reqs:.2f}" if reqs else "-"
            broken = len(rs[0]["broken"])
            tw = f"{med[name] / med['twisted']:.2f}x" if "twisted" in med else "-"
            li = f"{med[name] / med['linkinator']:.2f}x" if "linkinator" in med else "-"
            print(
                f"| {key} | {name} | {med[name]:.2f} ({min(walls):.2f}-{max(walls):.2f}) "
                f"| {cpu:.2f} | {reqs:.0f} | {per} | {tw} | {li} | {broken} |"
            )
        ref = [r["broken"] for n in clients for r in got.get((key, n), [])]
        if any(b != ref[0] for b in ref):
            raise SystemExit(f"bench: the clients' broken URLs differ on {key}")


if __name__ == "__main__":
    main()
