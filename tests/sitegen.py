"""A generated site that has everything (bench/gen_site.py), served by two
real test servers: near and far origins, redirects and chains of them, 404,
410 and 500 on both, extension-less binaries, a robots.txt rule on each, a
URL that answers 429 once, ETags and 304s.  Its ``truth`` says what every
audit of it must report."""

from __future__ import annotations

import json
import sys
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

from tests.conftest import run_process, validate
from tests.helpers.command import LINKAUDIT
from tests.server import Route, TestServer

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
from gen_site import generate  # noqa: E402

FAST = {"CONCURRENT_REQUESTS_PER_DOMAIN": "8"}
TYPES = {".html": "text/html; charset=utf-8", ".png": "image/png", ".txt": "text/plain"}


@dataclass
class GeneratedSite:
    near: TestServer
    far: TestServer
    truth: dict
    start: str

    def expected(self) -> dict[str, tuple[str, int | None]]:
        """url -> (outcome, status) as the ground truth has it."""
        return {url: (t["outcome"], t["status"]) for url, t in self.truth["urls"].items()}

    def clear_logs(self) -> None:
        for server in (self.near, self.far):
            with server._lock:
                server.log.clear()
                server._counts.clear()  # the 429 URL answers 429 once again


def _serve(server: TestServer, root: Path, rules: dict) -> None:
    for path in root.rglob("*"):
        if path.is_dir():
            continue
        url_path = "/" + str(path.relative_to(root))
        if url_path == "/index.html":
            url_path = "/"
        ctype = TYPES.get(path.suffix, "application/octet-stream")
        server.add(url_path, Route(body=path.read_bytes(), content_type=ctype))
    for url_path, (status, location) in rules["redirects"].items():
        server.add(url_path, Route(status, "moved", headers={"Location": location}))
    for url_path, status in rules["statuses"].items():
        server.add(url_path, Route(status, f"<h1>{status}</h1>"))
    for url_path in rules["busy"]:
        busy = server.routes[url_path]
        busy.sequence = [(429, {"Retry-After": "1"}), (200, {})]


def generated_site(
    stack: ExitStack, directory: Path, pages: int = 300, far_host: str = "127.0.0.1"
) -> GeneratedSite:
    """Servers started (closed with ``stack``), the site generated for their
    addresses into ``directory``, and served.  ``far_host``: the far
    origin's address (127.0.0.2 makes it another host, not just another port)."""
    near = stack.enter_context(TestServer(conditional=True))
    far = stack.enter_context(TestServer(conditional=True, host=far_host))
    truth = generate(pages, directory, near.url, far.url, seed=7, binary_size=64 * 1024)
    rules = json.loads((directory / "rules.json").read_text())
    _serve(near, directory / "near", rules["near"])
    _serve(far, directory / "far", rules["far"])
    return GeneratedSite(near, far, truth, truth["start"])


# -- what every door and mode must agree on ----------------------------------------
def audit(site: GeneratedSite, directory: Path, *options: str, settings: dict | None = None):
    """The linkaudit command, as a user runs it; the report it wrote."""
    directory.mkdir(parents=True, exist_ok=True)
    site.clear_logs()
    args = [LINKAUDIT, site.start, "--delay", "0", "--report", str(directory / "report.json")]
    for name, value in {**FAST, **(settings or {})}.items():
        args += ["-s", f"{name}={value}"]
    out = run_process([*args, *options], cwd=directory)
    assert out.returncode == 1, out.stderr[-3000:]  # the site has broken links
    report = json.loads((directory / "report.json").read_text())
    validate(report)
    return report


def comparable(report: dict) -> dict:
    """What every mode must agree on, per URL."""
    out = {}
    for u in report["urls"]:
        refs = None
        if u["outcome"] != "ok":
            refs = sorted(
                (r["url"], -1 if r["line"] is None else r["line"]) for r in u["referrers"]
            )
        out[u["url"]] = (
            u["outcome"],
            u["status"],
            u["depth"],
            u["location"],
            u["referrer_count"],
            refs,
        )
    return out


def assert_same(report: dict, reference: dict) -> None:
    got, want = comparable(report), comparable(reference)
    assert set(got) == set(want), set(got) ^ set(want)
    differ = {url: (got[url], want[url]) for url in want if got[url] != want[url]}
    # outcomes first: a count that differs is usually the shadow of a page
    # checked one way here and another way there
    shown = sorted(differ.items(), key=lambda item: item[1][0][0] == item[1][1][0])
    assert not differ, (len(differ), shown[:8])
    assert report["complete"] and report["finish_reason"] == "finished"
    counts = ("ok", "redirect", "broken", "blocked", "excluded", "unchecked")
    assert [report["summary"][c] for c in counts] == [reference["summary"][c] for c in counts]
