"""Real documentation sets from Debian packages: what each optional finding
costs linkaudit, and linkaudit against its peers, in one session.

    sudo .venv/bin/python bench/run.py setup          # the packages below, peers
    .venv/bin/python bench/run.py real --rounds 3     # [--sets python,postgresql,glib]

Each set is served by its own nginx server on 127.0.0.1 (a port each, the
package's HTML directory as root). A round runs, for every set in turn:

- linkaudit's default audit, then the same audit with one optional finding
  off (templates, soft-404 titles, CSS, sitemaps), with all of them off, and
  with fragments on (off by default: priced as an addition);
- the peers on the same site: linkaudit's fast mode, linkinator 8 and
  LinkChecker over HTTP; ``linkaudit DIR`` and lychee on the build directory.

Each finding's share is (CPU of the default audit - CPU with it off) / CPU
of the default audit, from the medians; wall-time ratios are ratios of
medians. External links (any host but 127.0.0.1) are excluded for every
tool by its own option (peers.EXTERNAL): the machine may be offline.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import statistics
import subprocess
from dataclasses import dataclass
from pathlib import Path

from peers import (
    EXTERNAL,
    run_linkaudit_dir,
    run_linkinator,
    run_lychee,
    run_scrapy_floor,
    site_pages,
    versions,
)
from run import WORK, Result, run_linkaudit, run_linkchecker, start_nginx, stop_nginx


@dataclass(frozen=True)
class DocSet:
    title: str
    package: str
    root: Path


SETS = {
    "python": DocSet(
        "Python 3.11 (Sphinx)",
        "python3.11-doc",
        Path("/usr/share/doc/python3.11/html"),
    ),
    "postgresql": DocSet(
        "PostgreSQL 15 (DocBook)",
        "postgresql-doc-15",
        Path("/usr/share/doc/postgresql-doc-15/html"),
    ),
    "glib": DocSet(
        "GIO 2.74 API (gtk-doc)",
        "libglib2.0-doc",
        Path("/usr/share/gtk-doc/html/gio"),
    ),
    # 3,797 Doxygen pages of up to 3.6 MB: minutes a round for each tool
    "libstdc++": DocSet(
        "libstdc++ 12 API (Doxygen)",
        "libstdc++-12-doc",
        Path("/usr/share/doc/gcc-12-base/libstdc++/user"),
    ),
}
PACKAGES = sorted({s.package for s in SETS.values()})
PORT0 = 8090

# the optional findings: linkaudit's arguments that turn each off
OFF = {
    "templates": ["-s", "LINKAUDIT_TEMPLATES=False"],
    "soft-404 titles": ["--soft-404", "off"],
    "CSS": ["--no-css"],
    "sitemaps": ["--no-sitemap"],
}
AUDITS = {
    "default": [],
    **{f"{name} off": args for name, args in OFF.items()},
    "all off": [a for args in OFF.values() for a in args],
    "fragments on": ["--check-fragments"],
}

NGINX_REAL = """
daemon off;
worker_processes 1;
{user}
pid {work}/nginx-real.pid;
error_log {work}/nginx-real-error.log warn;
events {{ worker_connections 4096; }}
http {{
    include /etc/nginx/mime.types;
    default_type application/octet-stream;
    sendfile on;
    keepalive_requests 1000000;
    keepalive_timeout 75s;
    access_log off;
    add_header LinkChecker "benchmark" always;
    {servers}
}}
"""


class RealNginx:
    """One nginx, a server on 127.0.0.1:PORT0+i for each set."""

    def __init__(self, sets: dict[str, DocSet]):
        self.ports = {key: PORT0 + i for i, key in enumerate(sets)}
        servers = "\n    ".join(
            f"server {{ listen 127.0.0.1:{self.ports[k]}; root {s.root}; }}"
            for k, s in sets.items()
        )
        conf = WORK / "nginx-real.conf"
        user = "user root;" if os.geteuid() == 0 else ""
        conf.write_text(NGINX_REAL.format(user=user, work=WORK, servers=servers))
        self.proc = start_nginx(conf, self._answers, WORK / "nginx-real-error.log")

    def _answers(self, proc: subprocess.Popen) -> bool:
        """Every set's port answers, and this nginx is still running."""
        for port in self.ports.values():
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    pass
            except OSError:
                return False
        return proc.poll() is None

    def stop(self) -> None:
        stop_nginx(self.proc)


def site_size(root: Path) -> tuple[int, int]:
    """HTML pages and link attributes (href=/src= in them) of a build."""
    pages = links = 0
    attr = re.compile(rb"\s(?:href|src)\s*=", re.I)
    for path in root.rglob("*.html"):
        pages += 1
        links += len(attr.findall(path.read_bytes()))
    return pages, links


def _tools(ds: DocSet, url: str) -> dict:
    """Every run of a round on one set: name -> callable(cwd) -> Result."""
    excl = ("--exclude", EXTERNAL)
    tools = {
        f"linkaudit {name}": (
            lambda cwd, a=args: run_linkaudit({"start": url}, cwd, *excl, *a, name="linkaudit")
        )
        for name, args in AUDITS.items()
    }
    fast = ("-s", "LINKAUDIT_HEAD_FIRST=False")
    tools["linkaudit fast"] = lambda cwd: run_linkaudit({"start": url}, cwd, *excl, *fast)
    tools["linkinator"] = lambda cwd: run_linkinator(url, cwd, EXTERNAL)
    tools["Scrapy floor"] = lambda cwd: run_scrapy_floor(site_pages(ds.root, url), cwd)
    tools["Scrapy floor HEAD+GET"] = lambda cwd: run_scrapy_floor(
        site_pages(ds.root, url), cwd, head=True
    )
    tools["LinkChecker"] = lambda cwd: run_linkchecker({"start": url}, cwd, ignore=EXTERNAL)
    tools["linkaudit DIR"] = lambda cwd: run_linkaudit_dir(ds.root, cwd)
    tools["lychee DIR"] = lambda cwd: run_lychee(ds.root, cwd)
    return tools


def real(keys: list[str], rounds: int, skip: set[str], once: frozenset[str] = frozenset()) -> None:
    """``once``: runs (lower case) made in the first round only."""
    sets = {k: SETS[k] for k in keys}
    missing = [s.package for s in sets.values() if not s.root.is_dir()]
    if missing:
        raise SystemExit(f"bench: install {' '.join(missing)} (bench/run.py setup)")
    nginx = RealNginx(sets)
    results: dict[tuple[str, str], list[Result]] = {}
    try:
        for rnd in range(rounds):
            for key, ds in sets.items():
                url = f"http://127.0.0.1:{nginx.ports[key]}/"  # the site: all under it
                for name, tool in _tools(ds, url).items():
                    if name in skip or (rnd and name.lower() in once):
                        continue
                    cwd = WORK / "runs" / f"{key}-{name.replace(' ', '_')}-{rnd}"
                    shutil.rmtree(cwd, ignore_errors=True)
                    cwd.mkdir(parents=True)
                    r = tool(cwd)
                    results.setdefault((key, name), []).append(r)
                    print(
                        f"round {rnd + 1} {key} {name}: {r.wall:.2f} s wall, {r.cpu:.2f} s CPU, "
                        f"{r.rss_mb:.0f} MB, {r.checked} URLs, {len(r.broken)} broken",
                        flush=True,
                    )
    finally:
        nginx.stop()
    print_tables(sets, results, rounds)


def _med(rs: list[Result], attr: str) -> float:
    return statistics.median(getattr(r, attr) for r in rs)


def print_tables(sets: dict[str, DocSet], results: dict, rounds: int) -> None:
    print(f"\n{rounds} rounds; versions: {versions()}")
    for key, ds in sets.items():
        pages, links = site_size(ds.root)
        got = {name: rs for (k, name), rs in results.items() if k == key}
        print(f"\n### {ds.title}: {ds.package}, {pages} pages, {links} href/src attributes\n")
        base = got.get("linkaudit default")
        if base:
            cpu0 = _med(base, "cpu")
            print("| linkaudit audit | wall s | CPU s | share of the default audit's CPU |")
            print("| --- | --- | --- | --- |")
            for name in AUDITS:
                rs = got.get(f"linkaudit {name}")
                if not rs:
                    continue
                cpu = _med(rs, "cpu")
                if name == "default":
                    share = "-"
                elif name == "fragments on":
                    share = f"+{(cpu - cpu0) / cpu0:.0%} (an addition)"
                elif name == "all off":
                    share = f"default = {cpu0 / cpu:.2f}x this"
                else:
                    share = f"{(cpu0 - cpu) / cpu0:.0%}"
                print(f"| {name} | {_med(rs, 'wall'):.2f} | {cpu:.2f} | {share} |")
            print()
        peers = ["linkaudit default", "linkaudit fast", "Scrapy floor", "Scrapy floor HEAD+GET"]
        peers += ["linkinator", "LinkChecker"]
        peers += ["linkaudit DIR", "lychee DIR"]
        print("| tool | wall s median (min-max) | CPU s | peak RSS MB | URLs checked | broken |")
        print("| --- | --- | --- | --- | --- | --- |")
        for name in peers:
            rs = got.get(name)
            if not rs:
                continue
            walls = [r.wall for r in rs]
            print(
                f"| {name} | {_med(rs, 'wall'):.2f} ({min(walls):.2f}-{max(walls):.2f}) "
                f"| {_med(rs, 'cpu'):.2f} | {max(r.rss_mb for r in rs):.0f} "
                f"| {rs[-1].checked} | {len(rs[-1].broken)} |"
            )

        def ratio(a: str, b: str, got: dict = got) -> str:
            if a not in got or b not in got:
                return "-"
            return f"{_med(got[a], 'wall') / _med(got[b], 'wall'):.2f}x"

        print(
            f"\n- linkaudit default: {ratio('linkaudit default', 'linkinator')} linkinator, "
            f"{ratio('linkaudit default', 'LinkChecker')} LinkChecker; fast mode: "
            f"{ratio('linkaudit fast', 'linkinator')} linkinator; a bare Scrapy spider: "
            f"{ratio('Scrapy floor', 'linkinator')} linkinator, with a HEAD before each GET "
            f"{ratio('Scrapy floor HEAD+GET', 'linkinator')}; linkaudit DIR: "
            f"{ratio('linkaudit DIR', 'lychee DIR')} lychee (ratios of median wall times)"
        )
