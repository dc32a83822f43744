"""No leftovers: after a run whose report was written, the only new files
are the ones the user asked for (report, feeds, database, page archive, an
explicit journal).  The default journal is there to save results when the
report cannot be written, and goes once it is."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import ROOT, crawl_command, run_process
from tests.helpers.command import LINKAUDIT
from tests.server import Route


@pytest.fixture
def site(server, far_server):
    server.add(
        "/", f'<a href="/a">a</a>\n<a href="/gone">g</a>\n<a href="{far_server.url}/x">x</a>'
    )
    server.add("/a", Route(body="a", content_type="text/plain"))
    far_server.add("/x", Route(301, headers={"Location": "/y"}))
    return server


def files(directory: Path) -> set[str]:
    return {str(p.relative_to(directory)) for p in directory.rglob("*")}


@pytest.mark.parametrize(
    "options, expected",
    [
        ([], {"report.json"}),
        (["--journal", "kept.jsonl"], {"report.json", "kept.jsonl"}),
        (
            ["--db", "audit.sqlite", "--jsonl", "items.jsonl", "--pagedir", "pages"],
            {"report.json", "audit.sqlite", "items.jsonl", "pages", "pages/0"},
        ),
    ],
)
def test_the_command_leaves_only_what_was_asked_for(tmp_path, site, options, expected):
    (tmp_path / "pages").mkdir()
    before = files(tmp_path) - {"pages"}
    out = run_process(
        [LINKAUDIT, f"{site.url}/", "--delay", "0", "--report", "report.json", *options],
        cwd=tmp_path,
    )
    assert out.returncode == 1, out.stderr[-2000:]  # /gone
    after = files(tmp_path) - before
    if "--pagedir" not in options:
        after.discard("pages")
    assert after == expected


def untracked() -> set[str]:
    """Files new to the project's directory (scrapy crawl runs there)."""
    out = run_process(["git", "status", "--porcelain", "--untracked-files=all"], cwd=ROOT)
    return {line[3:] for line in out.stdout.splitlines() if line.startswith("??")}


def test_scrapy_crawl_leaves_only_the_report(tmp_path, site):
    before = untracked()
    cmd = crawl_command(tmp_path, "-a", f"start={site.url}/")
    out = run_process(cmd, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert out.returncode == 0, out.stderr[-2000:]
    assert files(tmp_path) == {"report.json"}
    assert untracked() <= before


def test_an_explicit_journal_setting_is_kept(tmp_path, site):
    journal = tmp_path / "audit.journal.jsonl"
    cmd = crawl_command(
        tmp_path, "-a", f"start={site.url}/", settings={"LINKAUDIT_JOURNAL": str(journal)}
    )
    run_process(cmd, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert files(tmp_path) == {"report.json", "audit.journal.jsonl"}
    assert journal.read_text().splitlines()[-1].startswith('{"type":"end"')
