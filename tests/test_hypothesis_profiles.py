"""Property-based tests are deterministic by default (issue 23): the ``ci``
profile (tests/conftest.py) draws the same examples on every run, replaying
the saved examples of tests/data/hypothesis and writing none; ``fuzz``
(``make fuzz``) draws fresh ones."""

from __future__ import annotations

import os
import re
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.database import DirectoryBasedExampleDatabase, ReadOnlyDatabase

from tests.conftest import HYPOTHESIS_DB, ROOT, run_process

PROBE = "tests/unit/test_urls.py::test_fuzz_explaining_never_raises"


def _examples(_run: int) -> list[str]:
    """The examples one pytest run of PROBE tries, in order, by default."""
    env = {k: v for k, v in os.environ.items() if k != "HYPOTHESIS_PROFILE"}
    env["PYTHONPATH"] = str(ROOT)
    cmd = [sys.executable, "-m", "pytest", "-o", "addopts=", "-p", "no:cacheprovider", "-q", "-s"]
    proc = run_process([*cmd, "--hypothesis-verbosity=verbose", PROBE], env=env)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    # "Test case: test_...(" then its arguments, one a line; the timing aside
    tried = [line for line in proc.stdout.splitlines() if not re.search(r" in [0-9.]+s\b", line)]
    assert sum(line.startswith("Test case:") for line in tried) >= 50, proc.stdout[-3000:]
    return tried


def test_the_default_profile_is_ci_and_never_writes_the_saved_examples():
    if os.environ.get("HYPOTHESIS_PROFILE", "ci") == "ci":
        assert settings.get_current_profile_name() == "ci"
    ci = settings.get_profile("ci")
    assert ci.derandomize and ci.deadline is None
    assert isinstance(ci.database, ReadOnlyDatabase)
    fuzz = settings.get_profile("fuzz")
    assert not fuzz.derandomize and not isinstance(fuzz.database, ReadOnlyDatabase)
    assert HYPOTHESIS_DB.relative_to(ROOT).as_posix() == "tests/data/hypothesis"


def test_two_default_runs_try_the_same_examples():
    """Two runs of the default profile try the same examples, and save none.
    (That two fuzz runs differ is only likely, not certain: no test asserts
    it; the fuzz profile's settings say it, above.)"""
    before = sorted(p.relative_to(HYPOTHESIS_DB) for p in HYPOTHESIS_DB.rglob("*"))
    with ThreadPoolExecutor(2) as pool:  # two pytest runs at once
        ci_1, ci_2 = pool.map(_examples, [1, 2])
    assert ci_1 == ci_2
    # a passing run saves nothing
    assert sorted(p.relative_to(HYPOTHESIS_DB) for p in HYPOTHESIS_DB.rglob("*")) == before


def test_the_ci_profile_replays_saved_examples_first(tmp_path):
    """A failure that fuzzing saved is the first example the ci profile
    tries (derandomized, its own draws start elsewhere), and it is not
    written again."""
    tried: list[int] = []

    def body(n: int) -> None:
        tried.append(n)
        assert n < 10**6 or n % 5 != 3  # fresh randomness finds it at once

    saved = DirectoryBasedExampleDatabase(tmp_path)
    fuzz = settings(settings.get_profile("fuzz"), database=saved, max_examples=1000)
    with pytest.raises(AssertionError):
        fuzz(given(st.integers())(body))()
    failing = tried[-1]  # shrunk, then run once more to report it
    assert failing >= 10**6 and list(tmp_path.rglob("*"))
    files = sorted(tmp_path.rglob("*"))
    tried.clear()
    ci = settings(settings.get_profile("ci"), database=ReadOnlyDatabase(saved))
    assert ci.derandomize
    with pytest.raises(AssertionError):
        ci(given(st.integers())(body))()
    assert tried[0] == failing
    assert sorted(tmp_path.rglob("*")) == files
    tried.clear()
    with pytest.raises(AssertionError):  # without the saved example, it starts elsewhere
        settings(settings.get_profile("ci"), database=None)(given(st.integers())(body))()
    assert tried[0] != failing
