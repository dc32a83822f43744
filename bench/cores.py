"""``linkaudit DIR`` on one core and on every core, against ``lychee
--offline``, on the real documentation sets (bench/real.py's), paired:

    .venv/bin/python bench/cores.py --rounds 7     # [--sets python,postgresql,glib] [--jobs 1,2]

Each round runs, for every set in turn, ``linkaudit DIR --jobs N`` for each
N of ``--jobs`` and lychee, one after the other (the order rotated from
round to round, so that none always runs first), with the command the real
sets' table uses (peers.py: ``run_linkaudit_dir``, ``run_lychee``).  Wall
and CPU seconds come from ``wait4`` (CPU: the process and every child it
waited for, the workers included).  It prints, per set, the medians (min-max)
and the ratio of each to lychee's median wall time, and checks that every
``linkaudit DIR`` run wrote the same report (bench/digest.py's digest): a
number of processes that changed a report stops the run.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

from peers import EXTERNAL, LYCHEE_VENV, run_lychee
from real import SETS
from run import CONCURRENCY, WORK, Result, _measure

DIGEST = Path(__file__).with_name("digest.py")
# the linkaudit command, its own process's CPU (not its workers') written at exit
OWN_CPU = (
    "import atexit, os, resource, sys\n"
    "def own():\n"
    "    u = resource.getrusage(resource.RUSAGE_SELF)\n"
    "    open(os.environ['OWN_CPU'], 'w').write(str(u.ru_utime + u.ru_stime))\n"
    "atexit.register(own)\n"
    "from linkaudit.cli import main\n"
    "sys.exit(main(sys.argv[1:]))\n"
)


def run_linkaudit_dir(root: Path, cwd: Path, jobs: int) -> tuple[Result, float]:
    """``linkaudit DIR --jobs N`` as peers.run_linkaudit_dir runs it, and
    the CPU seconds of its own process (the walk's: its workers' apart)."""
    report, own = cwd / "report.json", cwd / "own-cpu.txt"
    cmd = [sys.executable, "-c", OWN_CPU, str(root), "--report", str(report), "--quiet"]
    cmd += ["--delay", "0", "-s", f"CONCURRENT_REQUESTS={CONCURRENCY}"]
    cmd += ["-s", f"CONCURRENT_REQUESTS_PER_DOMAIN={CONCURRENCY}", "--format", "json"]
    cmd += ["--exclude", EXTERNAL, "--jobs", str(jobs)]
    wall, cpu, rss, _ = _measure(cmd, cwd, env={**os.environ, "OWN_CPU": str(own)})
    return Result(f"linkaudit DIR --jobs {jobs}", wall, cpu, rss, 0, set()), float(own.read_text())


def digest(report: Path) -> str:
    out = subprocess.run(
        [sys.executable, str(DIGEST), "--report", str(report)],
        capture_output=True,
        text=True,
        check=True,
    )
    return out.stdout.split()[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--sets", default="python,postgresql,glib")
    parser.add_argument("--jobs", default="1,2", help="numbers of processes, comma-separated")
    ns = parser.parse_args()
    keys = ns.sets.split(",")
    jobs = [int(j) for j in ns.jobs.split(",")]
    if not (LYCHEE_VENV / "bin" / "lychee").exists():
        raise SystemExit("bench: no lychee (bench/run.py setup)")
    print(f"load before: {os.getloadavg()}", flush=True)
    results: dict[tuple[str, str], list[Result]] = {}
    owns: dict[tuple[str, str], list[float]] = {}
    digests: dict[str, set[str]] = {}
    for rnd in range(ns.rounds):
        for key in keys:
            root = SETS[key].root
            tools = {f"linkaudit DIR --jobs {n}": n for n in jobs} | {"lychee DIR": None}
            names = list(tools)
            names = names[rnd % len(names) :] + names[: rnd % len(names)]
            for name in names:
                cwd = WORK / "runs" / f"cores-{key}-{name.replace(' ', '_')}-{rnd}"
                shutil.rmtree(cwd, ignore_errors=True)
                cwd.mkdir(parents=True)
                n = tools[name]
                if n is None:
                    r = run_lychee(root, cwd)
                else:
                    r, own = run_linkaudit_dir(root, cwd, n)
                    owns.setdefault((key, name), []).append(own)
                    digests.setdefault(key, set()).add(digest(cwd / "report.json"))
                    if len(digests[key]) > 1:
                        raise SystemExit(f"bench: {key}: the reports differ ({name})")
                results.setdefault((key, name), []).append(r)
                print(
                    f"round {rnd + 1} {key} {name}: {r.wall:.2f} s wall, {r.cpu:.2f} s CPU",
                    flush=True,
                )
    print(f"load after: {os.getloadavg()}")
    print()
    print(
        "| set | command | wall s median (min-max) | CPU s median | its own process's CPU s "
        "| / lychee (wall) |"
    )
    print("| --- | --- | --- | --- | --- | --- |")
    for key in keys:
        lychee = statistics.median(r.wall for r in results[(key, "lychee DIR")])
        for (k, name), runs in results.items():
            if k != key:
                continue
            walls = [r.wall for r in runs]
            wall = statistics.median(walls)
            cpu = statistics.median(r.cpu for r in runs)
            own = f"{statistics.median(owns[(k, name)]):.2f}" if (k, name) in owns else "-"
            print(
                f"| {key} | {name} | {wall:.2f} ({min(walls):.2f}-{max(walls):.2f}) "
                f"| {cpu:.2f} | {own} | {wall / lychee:.2f}x |"
            )
    print()
    print("reports: " + ", ".join(f"{k} {sorted(d)[0][:19]}..." for k, d in digests.items()))


if __name__ == "__main__":
    WORK.mkdir(parents=True, exist_ok=True)
    main()
