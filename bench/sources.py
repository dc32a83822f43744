"""What --sources costs: a build's audit with the places of its findings
mapped to their source lines, against the same audit without.

    bash tests/proof/sources.sh --published   # once: the builds as published
    .venv/bin/python bench/sources.py [ROUNDS] [BUILD ...]   # python, flask, ...

The builds are the proof projects of tests/proof/sources.sh (real
documentation built from its own sources by its own tool): as published,
with only their own findings (``--published``, NAME-published/), and with
up to 40 links broken on purpose (tests/setup.sh builds those); and a
large one, Debian's Python 3.11 documentation (python3.11-doc, 527 pages:
Debian leaves out whatsnew/changelog.html, which 1,455 places link to),
its sources the reST files Sphinx copied into ``_sources/`` (``x.rst.txt``,
copied here as ``x.rst``).  Each build is audited as the
linkaudit command (``--skip-far``: the walk of the build alone, no
network; ``--check-fragments``), once with ``-s
LINKAUDIT_DETECT_SOURCES=false`` (nothing mapped, neither parser imported)
and once with ``--sources DIR``, in turn, ROUNDS times (5 by default),
after one audit of each not counted (Python's bytecode written, the files
in the page cache: what an installed linkaudit meets).  CPU is the child's
user + system time (``os.wait4``), wall its clock.  Prints a markdown table
of the medians; "mapping" is the CPU the mapping adds, as a share of the
audit's without it."""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "sources"
LINKAUDIT = str(Path(sys.executable).with_name("linkaudit"))
BUILDS = {  # name -> (what, the build, its sources)
    "printsite": ("MkDocs: mkdocs-print-site-plugin 2.9", "project/site", "project/docs"),
    "flask": ("Sphinx reST: Flask 3.1.3", "project/docs/_build/html", "project/docs"),
    "click": ("Sphinx MyST: click 8.5.1", "project/docs/_build/html", "project/docs"),
    "jekyll": ("Jekyll: jekyll 3.0.0-beta1 site", "project/site/_site", "project/site"),
    "doks": ("Hugo: @hyas/doks 0.5.0", "project/public", "project/content"),
}
PYTHON_DOCS = "/usr/share/doc/python3.11/html"
# bytecode written and read, as an installed package has it
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def audit(args: list[str], report: str) -> tuple[float, float, dict]:
    """The child's wall and CPU seconds (user + system), and its report."""
    with open(os.devnull, "wb") as null:
        started = time.perf_counter()
        child = subprocess.Popen(
            [LINKAUDIT, *args, "--report", report], stdout=null, stderr=null, env=ENV
        )
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        raise SystemExit(f"linkaudit {' '.join(args)} exited {status}")
    with open(report, encoding="utf-8") as fh:
        return wall, usage.ru_utime + usage.ru_stime, json.load(fh)


def measure(name: str, rounds: int, report: str, published: bool | None) -> tuple | None:
    """The medians of one build (``published`` None: paths as they are)."""
    what, build, sources = BUILDS[name]
    if published is not None:
        what += " (as published)" if published else " (40 links broken)"
    folder = DATA / (name + "-published" if published else name)
    if published is not None and not (folder / "built").is_file():
        print(f"{folder.name}: not built (tests/proof/sources.sh)", file=sys.stderr)
        return None
    base = [str(folder / build), "--skip-far", "--check-fragments", "-q"]
    modes = {
        "without": [*base, "-s", "LINKAUDIT_DETECT_SOURCES=false"],
        "with": [*base, "--sources", str(folder / sources)],
    }
    runs: dict[str, list[tuple[float, float]]] = {mode: [] for mode in modes}
    done: dict = {}
    for args in modes.values():  # not counted: bytecode, page cache
        audit(args, report)
    for _ in range(rounds):
        for mode, args in modes.items():
            wall, cpu, done[mode] = audit(args, report)
            runs[mode].append((wall, cpu))
    medians = {
        mode: tuple(statistics.median(r[k] for r in runs[mode]) for k in (0, 1)) for mode in runs
    }
    mapped = done["with"]["build"]["sources"]
    places = f"{mapped['mapped']} of {mapped['mapped'] + mapped['unmapped']}"
    return what, done["with"]["summary"]["pages"], places, medians["without"], medians["with"]


def python_docs(tmp: str) -> tuple[str, str] | None:
    """Debian's Python docs and a copy of their ``_sources`` as ``.rst``."""
    if not os.path.isdir(PYTHON_DOCS):
        print(f"{PYTHON_DOCS}: not installed (tests/setup.sh)", file=sys.stderr)
        return None
    sources = os.path.join(tmp, "python-docs-sources")
    shutil.copytree(os.path.join(PYTHON_DOCS, "_sources"), sources)
    for folder, _, names in os.walk(sources):
        for name in names:
            if name.endswith(".rst.txt"):
                os.rename(os.path.join(folder, name), os.path.join(folder, name[:-4]))
    return PYTHON_DOCS, sources


def main(rounds: int, only: set[str]) -> None:
    """``only``: the builds to measure (BUILDS' names, ``python``); empty: all."""
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "r.json")
        for published in (True, False):
            for name in BUILDS:
                if only and name not in only:
                    continue
                row = measure(name, rounds, report, published)
                if row is not None:
                    rows.append(row)
                    print(f"{row[0]}: done", file=sys.stderr)
        found = python_docs(tmp) if not only or "python" in only else None
        if found is not None:
            BUILDS["python"] = ("Debian's Python 3.11 docs (as published)", *found)
            row = measure("python", rounds, report, None)
            if row is not None:
                rows.append(row)
    print(
        "| build | pages | places mapped | wall without | wall with | CPU without | CPU with "
        "| mapping (CPU) |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for what, pages, places, off, on in rows:
        share = (on[1] - off[1]) / off[1] * 100
        print(
            f"| {what} | {pages} | {places} | {off[0]:.2f} s | {on[0]:.2f} s "
            f"| {off[1]:.2f} s | {on[1]:.2f} s | {on[1] - off[1]:+.2f} s ({share:+.0f} %) |"
        )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5, set(sys.argv[2:]))
