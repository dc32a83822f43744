"""Fixtures: real servers on 127.0.0.1 and a runner for real crawls."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import jsonschema
import pytest
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings
from hypothesis.database import DirectoryBasedExampleDatabase, ReadOnlyDatabase

from tests.server import TestServer

ROOT = Path(__file__).resolve().parent.parent

# Property-based tests (docs/contributing/tests.md, "Fuzzing"): the default profile, ``ci``, is
# deterministic: derandomized (each test's examples drawn from a seed that
# is its own digest), after the saved examples of tests/data/hypothesis,
# replayed and never written.  ``fuzz`` (``make fuzz``, HYPOTHESIS_PROFILE=fuzz
# or --hypothesis-profile=fuzz) draws fresh examples, many of them, and saves
# what fails there, to be committed.  A test's own @settings(max_examples=...)
# overrides only the keys it sets.
HYPOTHESIS_DB = ROOT / "tests" / "data" / "hypothesis"
_hypothesis_common = {
    "deadline": None,  # a crawl takes a second or two; machines differ
    "print_blob": True,  # a failure says how to replay it (@reproduce_failure)
    "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large],
}
# settings(derandomize=True, database=...) is refused (a derandomized run
# would write nothing worth keeping); a read-only database given to a child
# of derandomized settings is replayed (tests/test_hypothesis_profiles.py)
hypothesis_settings.register_profile(
    "ci",
    hypothesis_settings(derandomize=True, **_hypothesis_common),
    database=ReadOnlyDatabase(DirectoryBasedExampleDatabase(HYPOTHESIS_DB)),
)
# derandomize=False said, not inherited: under CI=true Hypothesis starts
# from its own derandomized "ci" profile, and fuzzing would replay one seed
hypothesis_settings.register_profile(
    "fuzz",
    derandomize=False,
    database=DirectoryBasedExampleDatabase(HYPOTHESIS_DB),
    max_examples=int(os.environ.get("LINKAUDIT_FUZZ_EXAMPLES", "200")),
    **_hypothesis_common,
)
hypothesis_settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

SCHEMA = json.loads((ROOT / "docs" / "report.schema.json").read_text())
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)
CRAWL_TIMEOUT = 90  # seconds: every crawl in the suite is bounded
# A fault of ours is never a verdict on a link, and never passes a test:
# every process the suite runs goes through check_no_fault().
FAULT_MARKERS = ("Traceback (most recent call last)", "Internal error")


def check_no_fault(*outputs: str | None, report: dict | None = None) -> None:
    """Fail on a traceback or an internal error in a run's output or report."""
    for text in outputs:
        for marker in FAULT_MARKERS:
            if text and marker in text:
                at = text.index(marker)
                raise AssertionError(
                    f"the run logged a fault of ours:\n{text[at - 500 : at + 3000]}"
                )
    if report is not None:
        faulty = [u for u in report["urls"] if (u.get("error") or "").startswith("Internal error")]
        assert not faulty, faulty


def run_process(
    cmd: list[str] | str, *, allow_faults: bool = False, timeout: float = CRAWL_TIMEOUT, **kwargs
) -> subprocess.CompletedProcess:
    """``subprocess.run`` with output captured, bounded, and checked for faults."""
    kwargs.setdefault("cwd", ROOT)
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kwargs)
    if not allow_faults:
        check_no_fault(proc.stdout, proc.stderr)
    return proc


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


def crawl_command(tmp_path: Path, *args: str, settings: dict | None = None) -> list[str]:
    """The ``scrapy crawl linkaudit`` command line the tests run."""
    cmd = [sys.executable, "-m", "scrapy", "crawl", "linkaudit", *args]
    if not any(a.startswith("report=") for a in args):
        cmd += ["-a", f"report={tmp_path / 'report.json'}"]
    merged = {"DOWNLOAD_DELAY": "0", "CONCURRENT_REQUESTS_PER_DOMAIN": "8"}
    merged.update(settings or {})
    for name, value in merged.items():
        if value is not None:  # None: keep the project's default
            cmd += ["-s", f"{name}={value}"]
    return cmd


class Spawned:
    """A crawl running in the background, its stderr collected by a thread
    (so the pipe never fills and tests can wait for a log line).  ``wait``
    checks the log for faults of ours."""

    def __init__(self, cmd: list[str], allow_faults: bool = False):
        self.allow_faults = allow_faults
        self.proc = subprocess.Popen(
            cmd,
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env=dict(os.environ, PYTHONPATH=str(ROOT)),
        )
        self.lines: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.lines.append(line)

    @property
    def stderr(self) -> str:
        return "".join(self.lines)

    def signal(self, sig: int) -> None:
        self.proc.send_signal(sig)

    def wait(self, timeout: float = 60) -> int:
        try:
            code = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)
            raise
        self._reader.join(timeout=10)
        if not self.allow_faults:
            check_no_fault(self.stderr)
        return code


def spawn_crawl(
    tmp_path: Path, *args: str, settings: dict | None = None, allow_faults: bool = False
) -> Spawned:
    """A crawl running in the background, for tests that interrupt it."""
    return Spawned(crawl_command(tmp_path, *args, settings=settings), allow_faults)


def wait_for(predicate, timeout: float = 30, what: str = "condition") -> None:
    """Poll ``predicate`` until true; fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def journal_records(path: Path) -> list[dict]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.endswith("}")]


def run_crawl(
    tmp_path: Path,
    *args: str,
    settings: dict | None = None,
    report_name: str = "report.json",
    timeout: float = CRAWL_TIMEOUT,
    allow_faults: bool = False,
    env: dict[str, str] | None = None,
) -> Crawl:
    """``scrapy crawl linkaudit`` in a subprocess, as a user runs it (with
    ``env`` added to the environment).

    Tests run with no delay unless they set one: politeness is tested on its own.
    A traceback in the log or an internal error in the report fails the test
    unless ``allow_faults`` (a test of that very handling).
    """
    report = tmp_path / report_name
    if report_name != "report.json" and not any(a.startswith("report=") for a in args):
        args = (*args, "-a", f"report={report}")
    cmd = crawl_command(tmp_path, *args, settings=settings)
    env = dict(os.environ, PYTHONPATH=str(ROOT), **(env or {}))
    proc = run_process(cmd, timeout=timeout, env=env, allow_faults=allow_faults)
    data = json.loads(report.read_text()) if report.exists() else None
    if data is not None:
        validate(data)
        if not allow_faults:
            check_no_fault(report=data)
    return Crawl(proc.returncode, proc.stdout, proc.stderr, data)


# The order the parallel workers take the modules in (pyproject.toml:
# loadscope, a module on one worker, its fixtures shared).  xdist's default
# takes the modules with the most tests first, so the slowest ones, a few
# long crawls each (the interrupted audits, the shared audits, the wheel),
# came last: one worker ran them alone for minutes while the other was
# done.  The slowest modules go first and the many quick ones fill in at
# the end (tests/unit/ last).  Measured with ``--durations=0`` on two cores,
# per module; a module not named here keeps its place after them.
SLOWEST_FIRST = (
    "test_modes",
    "test_shared_failures",
    "test_shared_report",
    "test_render_modes",
    "test_oldest_python",
    "test_doors_messages",
    "test_resume",
    "test_wheel",
    "test_scrapyd",
    "test_crawl_fuzz",
    "test_docs",
    "test_render_politeness",
    "test_shared_counts",
    "test_build_names",
    "test_throttling",
    "test_render",
    "test_secrets_shown",
    "test_build_cores",
    "test_backoff",
    "test_walk_bounds",
    "test_hostile_politeness",
    "test_shared_input",
    "test_local_build",
    "test_html_report",
    "test_sources_proof",
    "test_incremental",
    "test_hostile_limits",
    "test_groups_real",
    "test_build_server",
    "test_politeness",
    "test_redirect_targets",
    "test_soft404",
    "test_differential",
    "test_html_trend",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The order the workers are given modules in (``--no-loadscope-reorder``
    keeps it): tests marked ``early`` (the type check: slow, no server)
    first, then the slowest modules, the others, the fast tier last."""
    rank = {name: i for i, name in enumerate(SLOWEST_FIRST)}

    def order(item: pytest.Item) -> tuple[int, int]:
        path = Path(str(item.fspath))
        if item.get_closest_marker("early") is not None:
            return (-1, 0)
        if path.parent.name == "unit":
            return (2, 0)
        return (0, rank[path.stem]) if path.stem in rank else (1, 0)

    items.sort(key=order)  # stable: a module's tests keep their order


@pytest.fixture
def server():
    with TestServer() as srv:
        yield srv


@pytest.fixture
def far_server():
    with TestServer() as srv:
        yield srv


def bound_ports(stack, count: int) -> list[int]:
    """Ports on 127.0.0.1 that refuse connections: bound, never listening,
    and held for the test (a port closed again could be taken by another
    test's server running in parallel)."""
    ports = []
    for _ in range(count):
        s = stack.enter_context(socket.socket())
        s.bind(("127.0.0.1", 0))
        ports.append(s.getsockname()[1])
    return ports


@pytest.fixture
def closed_port() -> int:
    """A port on 127.0.0.1 that nothing listens on."""
    with contextlib.ExitStack() as stack:
        yield bound_ports(stack, 1)[0]


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "early: a slow test with no server, started before the others (test_types.py)"
    )

