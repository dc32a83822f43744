"""The standards' own test data (web-platform-tests, UTS #46,
html5lib-tests), fetched by tests/data/fetch.sh."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

UPSTREAM = Path(__file__).resolve().parent.parent / "data" / "upstream"


def upstream(relative: str) -> Path:
    """A file of the upstream test data; the test skipped (failed in CI) without it."""
    path = UPSTREAM / relative
    if not path.exists():
        if os.environ.get("CI"):
            pytest.fail(f"{path} is missing: tests/data/fetch.sh did not run")
        pytest.skip(f"{path} is missing: run tests/data/fetch.sh")
    return path


def unescaped(value):
    """A doubleEscaped html5lib test's value, its \\uXXXX escapes read."""
    if isinstance(value, str):
        return re.sub(r"\\u([0-9A-Fa-f]{4})", lambda m: chr(int(m.group(1), 16)), value)
    if isinstance(value, list):
        return [unescaped(v) for v in value]
    if isinstance(value, dict):
        return {unescaped(k): unescaped(v) for k, v in value.items()}
    return value
