"""Scrapyd: the project deployed with scrapyd-deploy to a real Scrapyd on
127.0.0.1, scheduled with schedule.json, watched with listjobs.json, and
cancelled with cancel.json, exactly as docs/guide/scrapyd.md tells a user to."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
import zipfile
from contextlib import ExitStack
from pathlib import Path

import pytest

from tests.conftest import ROOT, check_no_fault, journal_records, validate, wait_for
from tests.helpers.reports import valid_item
from tests.server import Route
from tests.sitegen import assert_same, audit, generated_site

BIN = Path(sys.executable).parent
# what a user's checkout holds, without the local clutter
_CLUTTER = shutil.ignore_patterns(
    ".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".*_cache", ".hypothesis"
)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Scrapyd:
    """A Scrapyd on 127.0.0.1 and a free port, its files in ``home``."""

    def __init__(self, home: Path):
        self.home = home
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        home.mkdir(parents=True, exist_ok=True)
        (home / "scrapyd.conf").write_text(
            f"""[scrapyd]
bind_address = 127.0.0.1
http_port = {self.port}
eggs_dir = {home / "eggs"}
logs_dir = {home / "logs"}
items_dir = {home / "items"}
dbs_dir = {home / "dbs"}
max_proc = 2
poll_interval = 0.2
"""
        )
        self.out = (home / "scrapyd.out").open("w")
        # Scrapyd reads scrapyd.conf from its working directory
        self.proc = subprocess.Popen(
            [str(BIN / "scrapyd")], cwd=home, stdout=self.out, stderr=subprocess.STDOUT
        )
        try:
            wait_for(self._up, timeout=30, what="Scrapyd to answer")
        except AssertionError:
            self.stop()
            raise

    def _up(self) -> bool:
        if self.proc.poll() is not None:
            raise AssertionError((self.home / "scrapyd.out").read_text())
        try:
            return self.get("daemonstatus.json")["status"] == "ok"
        except OSError:
            return False

    def get(self, endpoint: str, **params: str) -> dict:
        query = f"?{urllib.parse.urlencode(params)}" if params else ""
        with urllib.request.urlopen(self.url + endpoint + query, timeout=10) as resp:
            return json.load(resp)

    def post(self, endpoint: str, fields: list[tuple[str, str]]) -> dict:
        data = urllib.parse.urlencode(fields).encode()
        with urllib.request.urlopen(self.url + endpoint, data=data, timeout=10) as resp:
            return json.load(resp)

    def job(self, job_id: str) -> tuple[str, dict | None]:
        jobs = self.get("listjobs.json", project="linkaudit")
        for state in ("pending", "running", "finished"):
            for job in jobs[state]:
                if job["id"] == job_id:
                    return state, job
        return "unknown", None

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)
        self.out.close()


@pytest.fixture(scope="module")
def scrapyd(tmp_path_factory):
    """A Scrapyd with the project deployed by scrapyd-deploy from a copy of
    the checkout (scrapyd-deploy builds the egg in the project's directory)."""
    base = tmp_path_factory.mktemp("scrapyd")
    daemon = Scrapyd(base / "daemon")
    try:
        project = base / "project"
        shutil.copytree(ROOT, project, ignore=_CLUTTER)
        # a deploy target beside the project's [deploy], as a user adds one
        (base / "config").mkdir()
        (base / "config" / "scrapy.cfg").write_text(f"[deploy:ci]\nurl = {daemon.url}\n")
        deploy = subprocess.run(
            [str(BIN / "scrapyd-deploy"), "ci"],
            cwd=project,
            env={"PATH": str(BIN), "XDG_CONFIG_HOME": str(base / "config"), "HOME": str(base)},
            capture_output=True,
            text=True,
            timeout=120,
        )
        said = deploy.stdout + deploy.stderr
        assert deploy.returncode == 0 and "{" in said, said
        answer = json.loads(deploy.stdout[deploy.stdout.index("{") :])  # the server's answer
        assert answer["status"] == "ok" and answer["project"] == "linkaudit", said
        assert daemon.get("listspiders.json", project="linkaudit")["spiders"] == ["linkaudit"]
        # package data travels in the egg (read with importlib.resources)
        (egg,) = (daemon.home / "eggs" / "linkaudit").glob("*.egg")
        with zipfile.ZipFile(egg) as zf:
            assert "linkaudit/demo/www/site/index.html" in zf.namelist()
        yield daemon
    finally:
        daemon.stop()


def _schedule(scrapyd: Scrapyd, start: str, report: Path, *settings: str) -> str:
    fields = [("project", "linkaudit"), ("spider", "linkaudit")]
    fields += [("start", start), ("report", str(report))]
    fields += [("setting", s) for s in settings]
    answer = scrapyd.post("schedule.json", fields)
    assert answer["status"] == "ok", answer
    return answer["jobid"]


def _wait_finished(scrapyd: Scrapyd, job_id: str, timeout: float = 60) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        state, job = scrapyd.job(job_id)
        if state == "finished":
            log = scrapyd.home / "logs" / "linkaudit" / "linkaudit" / f"{job_id}.log"
            check_no_fault(log.read_text())
            return job
        time.sleep(0.2)
    raise AssertionError(f"job {job_id} did not finish in {timeout} s")


def test_deployed_project_audits_a_site_with_report_and_feed(tmp_path, scrapyd, server):
    server.add("/", '<a href="/a.html">a</a>\n<a href="/missing">missing</a>\n')
    server.add("/a.html", '<img src="/logo.png">\n<a href="/loop">loop</a>')
    server.add("/logo.png", Route(body=b"png", content_type="image/png"))
    server.add("/loop", Route(301, headers={"Location": "/loop"}))  # a loop of one
    report = tmp_path / "report.json"

    job_id = _schedule(scrapyd, f"{server.url}/", report, "DOWNLOAD_DELAY=0")
    job = _wait_finished(scrapyd, job_id)

    data = json.loads(report.read_text())
    validate(data)
    assert data["complete"] is True and data["finish_reason"] == "finished"
    missing = next(u for u in data["urls"] if u["url"] == f"{server.url}/missing")
    assert missing["outcome"] == "broken"
    assert missing["referrers"] == [{"url": f"{server.url}/", "line": 2}]
    # Scrapyd's items_dir feed: one item per checked URL, our fields
    feed = scrapyd.home / "items" / "linkaudit" / "linkaudit" / f"{job_id}.jl"
    assert job["items_url"].endswith(f"/{job_id}.jl")
    items = [json.loads(line) for line in feed.read_text().splitlines()]
    for item in items:
        valid_item(item)
    assert sorted({i["url"] for i in items}) == [u["url"] for u in data["urls"]]
    # the loop, found when the audit ended: one more item, the report's verdict
    last = {i["url"]: i for i in items}
    assert {u["url"]: u["outcome"] for u in data["urls"]} == {
        url: i["outcome"] for url, i in last.items()
    }
    assert [i["url"] for i in items if i["revised"]] == [f"{server.url}/loop"]
    assert last[f"{server.url}/loop"]["error"] == "Redirect loop"
    # HEAD first, a GET only for the site's pages, as from the command line
    assert server.methods("/logo.png") == ["HEAD"]
    assert server.methods("/a.html") == ["HEAD", "GET"]


def test_cancel_mid_crawl_leaves_a_valid_report(tmp_path, scrapyd, server):
    links = "\n".join(f'<a href="/p{i}">p{i}</a>' for i in range(40))
    server.add("/", links)
    for i in range(40):
        server.add(f"/p{i}", Route(body="x", content_type="text/plain"))
    report = tmp_path / "report.json"
    # one request at a time, 0.2 s apart: about 16 s for the whole site
    job_id = _schedule(
        scrapyd,
        f"{server.url}/",
        report,
        "DOWNLOAD_DELAY=0.2",
        "CONCURRENT_REQUESTS_PER_DOMAIN=1",
    )
    journal = tmp_path / "report.journal.jsonl"
    wait_for(
        lambda: sum(r.get("type") == "url" for r in journal_records(journal)) >= 3,
        timeout=30,
        what="the first results",
    )
    assert (
        scrapyd.post("cancel.json", [("project", "linkaudit"), ("job", job_id)])["status"] == "ok"
    )
    _wait_finished(scrapyd, job_id)

    data = json.loads(report.read_text())
    validate(data)
    assert data["finish_reason"] == "shutdown" and data["complete"] is False
    assert data["summary"]["unchecked"] > 0
    assert len(server.hits("/", "GET")) == 1
    # every URL that was asked has its outcome; the rest were never sent
    asked = {h.path for h in server.log if h.path.startswith("/p")}
    checked = {u["url"][len(server.url) :] for u in data["urls"] if u["outcome"] != "unchecked"}
    assert asked == checked - {"/"}


def test_a_scheduled_job_gives_the_command_s_answer(tmp_path, scrapyd):
    """The site that has everything (tests/sitegen.py), through Scrapyd and
    through the command: the same outcomes, statuses, depths and referrers."""
    with ExitStack() as stack:
        site = generated_site(stack, tmp_path / "site")
        reference = audit(site, tmp_path / "command")
        report = tmp_path / "scheduled.json"
        site.clear_logs()
        job_id = _schedule(
            scrapyd, site.start, report, "DOWNLOAD_DELAY=0", "CONCURRENT_REQUESTS_PER_DOMAIN=8"
        )
        _wait_finished(scrapyd, job_id, timeout=90)
    data = json.loads(report.read_text())
    validate(data)
    assert_same(data, reference)
