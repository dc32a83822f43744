"""The type check: mypy over ``linkaudit/`` passes, with the configuration
of ``pyproject.toml`` (``[tool.mypy]``: every module, the bodies of
unannotated functions too, strict where the code is new; see
docs/contributing/tests.md).

It takes 25-60 s without mypy's cache (``.mypy_cache/``, kept between
runs), so it is marked ``early``: it starts first, beside the crawls,
rather than last on a worker with nothing else to do."""

from __future__ import annotations

import sys

import pytest

from tests.conftest import ROOT, run_process

TIMEOUT = 300  # seconds: a cold run on a loaded machine


@pytest.mark.early
@pytest.mark.timeout(TIMEOUT + 30)
def test_mypy_passes():
    proc = run_process([sys.executable, "-m", "mypy"], cwd=ROOT, timeout=TIMEOUT)
    assert proc.returncode == 0, f"mypy found type errors:\n{proc.stdout}{proc.stderr}"
    assert "Success: no issues found" in proc.stdout, proc.stdout
