"""Extraction against an HTML5 parser (html5lib), on real pages and on
pages written with each tricky construct: the same links, values and lines
(tests/differential.py; ``python tests/differential.py DIR`` runs it on any
pages)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.differential import compare

PAGES = sorted((Path(__file__).resolve().parent / "data" / "pages").glob("*.html"))
# Debian's python3.11-doc: 530 real pages (installed by tests/setup.sh)
PYTHON_DOCS = Path("/usr/share/doc/python3.11/html")


def _check(path: Path) -> None:
    text = path.read_bytes().decode("utf-8", "replace")  # CR line endings kept
    missing, extra, (want_base, got_base) = compare(text)
    assert not missing, sorted(missing)
    assert not extra, sorted(extra)
    assert got_base == want_base


@pytest.mark.parametrize("path", PAGES, ids=[p.name for p in PAGES])
def test_tricky_pages(path):
    _check(path)


def test_real_pages():
    """Every 20th page of the Python documentation, the largest included
    (all 530 agree: tests/differential.py /usr/share/doc/python3.11/html)."""
    if not PYTHON_DOCS.is_dir():
        if os.environ.get("CI"):
            pytest.fail(f"{PYTHON_DOCS} is missing: tests/setup.sh did not run")
        pytest.skip(f"{PYTHON_DOCS} is missing: apt-get install python3.11-doc")
    pages = sorted(PYTHON_DOCS.rglob("*.html"))
    sample = pages[::20] + [max(pages, key=lambda p: p.stat().st_size)]
    for path in sample:
        _check(path)
