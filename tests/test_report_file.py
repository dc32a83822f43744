"""The report file's JSON layout (pure logic, no crawl)."""

from __future__ import annotations

import json

import pytest

from linkaudit.output.report import dumps_report, write_json_atomic

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
