"""Start-up: what linkaudit costs before and around the crawl, against the
peers on a small site.

    .venv/bin/python bench/startup.py --runs 10      # after run.py setup

Prints the median wall time (and CPU) of ``import linkaudit.cli``,
``linkaudit --version`` and a whole audit of a 50-page generated site
(bench/gen_site.py, served by run.py's nginx), with linkaudit's fast mode,
linkinator and LinkChecker on the same site, and ``linkaudit DIR`` against
lychee on its build directory, alternating.  ``python -X
importtime -c "import linkaudit.cli"`` says where an import's time goes.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys

from peers import run_linkaudit_dir, run_linkinator, run_lychee
from run import PORT, VENV_BIN, WORK, Nginx, _measure, _site, run_linkaudit, run_linkchecker


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=10)
    p.add_argument("--pages", type=int, default=50)
    ns = p.parse_args()
    WORK.mkdir(parents=True, exist_ok=True)
    site, truth = _site(ns.pages)
    commands = {
        "import linkaudit.cli": [sys.executable, "-c", "import linkaudit.cli"],
        "linkaudit --version": [str(VENV_BIN / "linkaudit"), "--version"],
    }
    audits = {
        "linkaudit": lambda cwd: run_linkaudit(truth, cwd),
        "linkaudit fast": lambda cwd: run_linkaudit(
            truth, cwd, "-s", "LINKAUDIT_HEAD_FIRST=False", name="linkaudit fast"
        ),
        "linkinator": lambda cwd: run_linkinator(truth["start"], cwd),
        "LinkChecker": lambda cwd: run_linkchecker(truth, cwd),
        # the build directory: its absolute links to the served site are
        # not files, and lychee --offline skips them: so does linkaudit here
        "linkaudit DIR": lambda cwd: run_linkaudit_dir(
            site / "near", cwd, "--exclude", rf"^http://127\.0\.0\.[12]:{PORT}/"
        ),
        "lychee DIR": lambda cwd: run_lychee(site / "near", cwd),
    }
    walls: dict[str, list[tuple[float, float]]] = {}
    nginx = Nginx(site)
    try:
        for i in range(ns.runs):
            cwd = WORK / "runs" / "startup"
            for name, cmd in commands.items():
                shutil.rmtree(cwd, ignore_errors=True)
                cwd.mkdir(parents=True)
                wall, cpu, _rss, _ = _measure(cmd, cwd, ok=(0,))
                walls.setdefault(name, []).append((wall, cpu))
            for name, audit in audits.items():
                shutil.rmtree(cwd, ignore_errors=True)
                cwd.mkdir(parents=True)
                r = audit(cwd)
                walls.setdefault(f"audit of {ns.pages} pages: {name}", []).append((r.wall, r.cpu))
            print(f"run {i + 1} of {ns.runs}", file=sys.stderr, flush=True)
    finally:
        nginx.stop()
    print(
        f"\n{ns.runs} runs each, alternating; {truth['pages']} pages, {len(truth['urls'])} URLs\n"
    )
    print("| command | wall s median (min-max) | CPU s median |")
    print("| --- | --- | --- |")
    for name, rows in walls.items():
        w = [r[0] for r in rows]
        cpu = statistics.median(r[1] for r in rows)
        print(f"| {name} | {statistics.median(w):.2f} ({min(w):.2f}-{max(w):.2f}) | {cpu:.2f} |")


if __name__ == "__main__":
    main()
