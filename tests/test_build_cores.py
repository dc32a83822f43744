"""``linkaudit DIR`` on every core (``LINKAUDIT_JOBS``, ``--jobs N``): on
real documentation sets (Debian's packages, tests/setup.sh) the report is
the same byte for byte (its times aside) with one process and with
several; the default is one process a core this process may run on; a bad
number is one line; however the walk ends (Ctrl-C to the group, SIGTERM,
SIGKILL, a worker killed), no process is left, and a worker killed costs
nothing of the report."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest

from linkaudit.rendering.memory import descendants
from tests.conftest import check_no_fault, validate, wait_for
from tests.helpers.command import LINKAUDIT, refused, run
from tests.helpers.processes import alive

# Debian's documentation packages, as tests/test_groups_real.py reads them
PYTHON = Path("/usr/share/doc/python3.11/html")  # 530 pages, Sphinx
POSTGRESQL = Path("/usr/share/doc/postgresql-doc-15/html")  # 1,167 pages, DocBook
GIO = Path("/usr/share/gtk-doc/html/gio")  # 229 pages, gtk-doc
GONE_BOUND = 10  # s: every process of the audit is gone this long after it ends
INTERRUPTED = 3  # the audit incomplete (linkaudit/cli.py)
TIMES = re.compile(r'"(started_at|finished_at|checked_at)": "[^"]*"')


def docs(path: Path) -> Path:
    if not path.is_dir():
        if os.environ.get("CI"):
            pytest.fail(f"{path} is missing: tests/setup.sh did not install it")
        pytest.skip(f"{path} is missing: run tests/setup.sh")
    return path


def same_bytes(report: Path) -> str:
    """The report's text, its times taken out (they are the run's)."""
    return TIMES.sub(r'"\1": "<time>"', report.read_text())


class Walk:
    """``linkaudit ARGS`` in the background, in a session of its own (as a
    terminal runs it), the PIDs of the processes it started recorded every
    20 ms."""

    def __init__(self, tmp_path: Path, *args: str, preexec=None):
        tmp_path.mkdir(exist_ok=True)
        self.report = tmp_path / "report.json"
        self.err = (tmp_path / "stderr").open("w+")
        cmd = [LINKAUDIT, *args, "-q", "--report", str(self.report)]
        self.proc = subprocess.Popen(
            cmd,
            cwd=tmp_path,
            stdout=subprocess.DEVNULL,
            stderr=self.err,
            start_new_session=True,
            preexec_fn=preexec,
        )
        self.seen: set[int] = set()
        self.most = 0  # processes below it at once, at most
        self.lock = threading.Lock()
        self.watcher = threading.Thread(target=self._watch, daemon=True)
        self.watcher.start()

    def _watch(self) -> None:
        while self.proc.poll() is None:
            pids = descendants(self.proc.pid)
            with self.lock:
                self.seen.update(pids)
                self.most = max(self.most, len(pids))
            time.sleep(0.02)

    def workers(self) -> list[int]:
        """Its processes now."""
        return [pid for pid in descendants(self.proc.pid) if alive(pid)]

    def wait(self, timeout: float = 120) -> tuple[int, str]:
        try:
            code = self.proc.wait(timeout=timeout)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait(10)
        self.watcher.join(10)
        self.err.seek(0)
        err = self.err.read()
        self.err.close()
        check_no_fault(err)
        return code, err

    def left(self) -> list[int]:
        """The processes it started still there, after a bounded wait."""
        deadline = time.monotonic() + GONE_BOUND
        while True:
            with self.lock:
                left = [pid for pid in self.seen if alive(pid)]
            if not left or time.monotonic() > deadline:
                return left
            time.sleep(0.1)


def _report(path: Path, complete: bool = True) -> dict:
    report = json.loads(path.read_text())
    if complete:  # (an interrupted walk's entries are not in the order of their names)
        validate(report)
    check_no_fault(report=report)
    return report


# 1: the same report, byte for byte --------------------------------------------
@pytest.mark.parametrize(
    "site, options",
    [
        # GIO: 229 pages, dense API references; PostgreSQL: 1,167 small pages,
        # a finding on each (every page read again for its href), fragments
        (GIO, ()),
        (POSTGRESQL, ("--check-fragments",)),
    ],
    ids=["gio", "postgresql-fragments"],
)
def test_one_process_and_several_write_the_same_report(tmp_path, site, options):
    root = docs(site)
    reports = {}
    for jobs in ("1", "2", "3"):
        walk = Walk(tmp_path / jobs, str(root), "--skip-far", "--jobs", jobs, *options)
        code, err = walk.wait()
        assert code == 1, err  # (each set has a broken link)
        assert not walk.left()
        # one process alone, or that many reading its pages
        assert walk.most == (0 if jobs == "1" else int(jobs)), (jobs, walk.most)
        _report(walk.report)
        reports[jobs] = same_bytes(walk.report)
    assert reports["1"] == reports["2"] == reports["3"]
    assert '"complete": true' in reports["1"]


# 2: the default: the cores there are -----------------------------------------------
def test_the_default_is_one_process_a_core_this_process_may_use(tmp_path):
    root = str(docs(GIO))
    usable = len(os.sched_getaffinity(0))
    walk = Walk(tmp_path / "all", root, "--skip-far")
    walk.wait()
    assert walk.most == (usable if usable > 1 else 0)
    # on one core (its affinity), whatever the machine has: no other process
    one = Walk(tmp_path / "one", root, "--skip-far", preexec=lambda: os.sched_setaffinity(0, {0}))
    one.wait()
    assert one.most == 0
    assert same_bytes(one.report) == same_bytes(walk.report)


# 3: a bad number: one line ---------------------------------------------------------
@pytest.mark.parametrize(
    "args, words",
    [
        (("--jobs", "-1"), "'-1' is negative"),
        (("--jobs", "two"), "'two' is not a whole number"),
        (("--jobs", "1.5"), "'1.5' is not a whole number"),
        (("-s", "LINKAUDIT_JOBS=100000"), "too large: at most 1024"),
    ],
)
def test_a_bad_number_of_processes_is_one_line(tmp_path, args, words):
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("<a href=a.html>a</a>")
    out = run(tmp_path, str(site), *args)
    line = refused(out, words)
    assert "jobs" in line.lower()


# 4: however the walk ends, no process is left --------------------------------------
@pytest.mark.parametrize("how", ["SIGINT-group", "SIGTERM", "SIGKILL"])
def test_no_process_is_left_after_an_interrupted_walk(tmp_path, how):
    walk = Walk(tmp_path, str(docs(PYTHON)), "--skip-far", "--jobs", "2")
    wait_for(lambda: len(walk.workers()) == 2, timeout=60, what="the walk's processes")
    sig = getattr(signal, how.split("-")[0])
    if how.endswith("group"):
        os.killpg(walk.proc.pid, sig)  # as a terminal's Ctrl-C: every process
    else:
        walk.proc.send_signal(sig)
    sent = time.monotonic()
    code, err = walk.wait()
    assert not walk.left(), walk.left()
    if how == "SIGKILL":  # no report: nothing can write one; the workers saw it go
        assert code == -signal.SIGKILL
        return
    # the walk stops where it is: the report written, incomplete, at once
    assert time.monotonic() - sent < 15, err
    assert code == INTERRUPTED, err
    report = _report(walk.report, complete=False)
    assert report["finish_reason"] == "shutdown" and report["complete"] is False
    assert "ended abruptly" not in err  # the workers were ended, not lost


def test_a_worker_killed_costs_nothing_of_the_report(tmp_path):
    root = str(docs(PYTHON))
    alone = Walk(tmp_path / "alone", root, "--skip-far", "--jobs", "1")
    alone.wait()
    walk = Walk(tmp_path / "killed", root, "--skip-far", "--jobs", "2")
    wait_for(lambda: len(walk.workers()) == 2, timeout=60, what="the walk's processes")
    victim = walk.workers()[0]
    os.kill(victim, signal.SIGKILL)
    code, err = walk.wait()
    assert code == 1, err
    assert not walk.left()
    # said once, as an ERROR; the walk's own process read the rest
    assert err.count("ended abruptly") == 1, err
    assert "ERROR" in err and "LINKAUDIT_JOBS=2" in err, err
    assert same_bytes(walk.report) == same_bytes(alone.report)
