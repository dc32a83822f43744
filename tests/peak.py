"""A command's own peak memory and wall time, for the tests that hold
linkaudit to a memory bound whatever a server sends (issue 23).

The command runs under a small Python wrapper whose only child it is, so
the wrapper's ``RUSAGE_CHILDREN`` is the command's own peak: the test
process's would sum every crawl an xdist worker ran.  The wrapper kills the
command past its time limit (a crawl stuck in C code is never left behind)
and exits 124 then, as timeout(1) does.  No system tool is needed.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from tests.conftest import run_process

TIMED_OUT = 124
_WRAPPER = """
import resource, subprocess, sys
try:
    code = subprocess.call(sys.argv[3:], timeout=float(sys.argv[2]))
except subprocess.TimeoutExpired:
    code = 124
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
open(sys.argv[1], "w").write(str(peak))
sys.exit(code)
"""


@dataclass
class Measured:
    proc: subprocess.CompletedProcess
    peak_kib: int
    seconds: float


def measure(cmd: list[str], *, limit: float = 60, **kwargs) -> Measured:
    """Run ``cmd`` (bounded by ``limit`` seconds; ``run_process`` captures
    its output, checks it for faults of ours and takes its other keywords),
    with its peak RSS and wall time."""
    with tempfile.TemporaryDirectory() as scratch:
        peak_file = Path(scratch) / "peak-kib"
        wrapped = [sys.executable, "-c", _WRAPPER, str(peak_file), str(limit), *cmd]
        started = time.monotonic()
        proc = run_process(wrapped, timeout=limit + 30, **kwargs)
        seconds = time.monotonic() - started
        assert proc.returncode != TIMED_OUT, f"{cmd[:3]} ran past {limit} s and was killed"
        return Measured(proc, int(peak_file.read_text()), seconds)
