"""Fixtures: real servers on 127.0.0.1 and a runner for real crawls."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import jsonschema
import pytest

from tests.server import TestServer

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = json.loads((ROOT / "docs" / "report.schema.json").read_text())
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)
CRAWL_TIMEOUT = 90  # seconds: every crawl in the suite is bounded


@dataclass
class Crawl:
    returncode: int
    stdout: str
    stderr: str
    report: dict | None

    def url(self, url: str) -> dict:
        """The report entry of ``url``."""
        assert self.report is not None, self.stderr[-3000:]
        for entry in self.report["urls"]:
            if entry["url"] == url:
                return entry
        raise AssertionError(f"{url} not in report: {[u['url'] for u in self.report['urls']]}")


def validate(report: dict) -> None:
    errors = [f"{list(e.path)}: {e.message}" for e in VALIDATOR.iter_errors(report)]
    assert not errors, errors
    s = report["summary"]
    assert s["urls"] == len(report["urls"])
    assert (
        sum(s[o] for o in ("ok", "redirect", "broken", "blocked", "excluded", "unchecked"))
        == s["urls"]
    )
    assert [u["url"] for u in report["urls"]] == sorted(u["url"] for u in report["urls"])


def run_crawl(
    tmp_path: Path,
    *args: str,
    settings: dict | None = None,
    report_name: str = "report.json",
    timeout: float = CRAWL_TIMEOUT,
) -> Crawl:
    """``scrapy crawl linkaudit`` in a subprocess, as a user runs it.

    Tests run with no delay unless they set one: politeness is tested on its own.
    """
    report = tmp_path / report_name
    cmd = [sys.executable, "-m", "scrapy", "crawl", "linkaudit", *args]
    if not any(a.startswith("report=") for a in args):
        cmd += ["-a", f"report={report}"]
    merged = {"DOWNLOAD_DELAY": "0", "CONCURRENT_REQUESTS_PER_DOMAIN": "8"}
    merged.update(settings or {})
    for name, value in merged.items():
        if value is not None:  # None: keep the project's default
            cmd += ["-s", f"{name}={value}"]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout, env=env)
    data = json.loads(report.read_text()) if report.exists() else None
    if data is not None:
        validate(data)
    return Crawl(proc.returncode, proc.stdout, proc.stderr, data)


@pytest.fixture
def server():
    with TestServer() as srv:
        yield srv


@pytest.fixture
def far_server():
    with TestServer() as srv:
        yield srv


@pytest.fixture
def closed_port() -> int:
    """A port on 127.0.0.1 that nothing listens on."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
