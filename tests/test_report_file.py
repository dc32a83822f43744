"""The report file's JSON layout (pure logic, no crawl)."""

from __future__ import annotations

import json

import pytest

from linkaudit.items import UrlResult
from linkaudit.output.report import (
    ReportFacts,
    build_report,
    dumps_report,
    read_report,
    write_json_atomic,
    write_report,
)
from linkaudit.state.memory import MemoryState

ENTRY = {
    "url": "http://127.0.0.1:1/a b",
    "outcome": "broken",
    "referrers": [{"page": "http://127.0.0.1:1/", "line": 3}],
    "error": "HTTP 404 \u00e9",
}


@pytest.mark.parametrize(
    "report",
    [
        {},
        {"urls": []},
        {"version": 1, "urls": []},
        {"version": 1, "summary": {"ok": 1, "broken": 1}, "urls": [ENTRY, {"url": "x"}]},
        {"version": 1},
    ],
)
def test_round_trip(report):
    assert json.loads(dumps_report(report)) == report


def test_one_url_entry_per_line(tmp_path):
    report = {"version": 1, "summary": {"broken": 1}, "urls": [ENTRY] * 3}
    path = tmp_path / "report.json"
    write_json_atomic(str(path), report)
    text = path.read_text(encoding="utf-8")
    entry_lines = [line for line in text.splitlines() if '"url":' in line]
    assert len(entry_lines) == 3
    assert all(json.loads(line.strip().rstrip(",")) == ENTRY for line in entry_lines)
    assert "\u00e9" in text  # not escaped
    assert json.loads(text) == report
    assert text.endswith("}\n")


@pytest.mark.parametrize("n", [0, 1, 5])
def test_the_streamed_report_is_the_built_one(tmp_path, n):
    """write_report writes an entry at a time: the same JSON, the same text
    as the report built in memory; it keeps in memory only what a summary
    and an exit code need (entries not ok)."""
    state = MemoryState()
    for i in range(n):
        url = f"http://s/{i}"
        state.discover(url, 1)
        outcome = "broken" if i % 2 else "ok"
        state.add_referrer(url, "http://s/", i)
        state.set_result(UrlResult(url=url, near=True, outcome=outcome, depth=1), 0.0)
    facts = ReportFacts(
        start_urls=["http://s/"],
        near_prefixes=["http://s/"],
        started_at="then",
        finished_at="now",
        finish_reason="finished",
        pages=1,
        requests=n,
    )
    path = tmp_path / "report.json"
    kept = write_report(str(path), state, facts)
    built = build_report(state, facts)
    written = path.read_text(encoding="utf-8")
    assert written == dumps_report(built) + "\n"
    assert json.loads(written) == built
    assert kept == {**built, "urls": [u for u in built["urls"] if u["outcome"] != "ok"]}
    assert read_report(str(path), lean=True) == kept  # what the command reads back
    assert read_report(str(path)) == built
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]  # no spool left
