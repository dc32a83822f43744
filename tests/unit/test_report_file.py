"""The report file's JSON layout (pure logic, no crawl)."""

from __future__ import annotations

import json

import pytest

from linkaudit.items import UrlResult
from linkaudit.output.report.atomic import write_json_atomic
from linkaudit.output.report.build import (
    build_report,
    dumps_report,
    read_report,
    write_report,
)
from linkaudit.rules.soft404 import pattern_of, probe_url
from linkaudit.rules.templates import url_hash
from linkaudit.state.memory import MemoryState
from tests.helpers.reports import site_facts

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
        state.record(UrlResult(url=url, near=True, outcome=outcome, depth=1), 0.0)
    facts = site_facts(pages=1, requests=n)
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


class _CountingState(MemoryState):
    """A state that counts the reads of its entries: each read of the audit
    database or of Redis fetches and decodes every result."""

    reads = 0

    def entries(self):
        self.reads += 1
        return super().entries()


def _every_section(state: MemoryState) -> None:
    """A site whose report has every section: a redirect linked from a
    page, a broken link in a template block on two pages, a missing
    fragment, a sitemap, a soft 404 and its probe."""
    site = "http://s/"
    probe = probe_url(pattern_of(f"{site}x"), "salt")
    pages = [f"{site}a", f"{site}b"]
    for url in [site, *pages, f"{site}old", f"{site}gone", f"{site}soft", probe, f"{site}map.xml"]:
        state.discover(url, 1)
    fingerprint = list(range(32))
    for page in pages:
        state.add_referrer(f"{site}gone", page, 5)
        state.add_referrer(page, site, 2)
        result = UrlResult(page, True, "ok", 1, status=200, page={"links": 1}, anchors=["top"])
        result.blocks = [["footer", 4, 6, [url_hash(f"{site}gone")]]]
        result.fragments = [[f"{site}a", "nowhere", 5]]
        state.record(result, 0.0)
    state.add_referrer(f"{site}old", site, 3)
    state.record(UrlResult(site, True, "ok", 0, status=200, page={"links": 3}), 0.0)
    state.record(
        UrlResult(f"{site}old", True, "redirect", 1, status=301, location=f"{site}a"), 0.0
    )
    state.record(UrlResult(f"{site}gone", True, "broken", 1, status=404), 0.0)
    soft = UrlResult(f"{site}soft", True, "ok", 1, status=200, page={"links": 0})
    soft.fingerprint = fingerprint
    state.record(soft, 0.0)
    state.record(UrlResult(probe, True, "ok", 1, status=200, fingerprint=fingerprint), 0.0)
    sitemap = UrlResult(f"{site}map.xml", True, "ok", 1, status=200)
    sitemap.sitemap = {"kind": "urlset", "urls": [site, f"{site}gone"]}
    state.record(sitemap, 0.0)


def test_the_report_reads_the_states_entries_once(tmp_path):
    """Every section is fed by one pass over the entries (six passes did
    it), and the report has them all."""
    state = _CountingState()
    _every_section(state)
    facts = site_facts(
        pages=3,
        requests=8,
        fragments=True,
        sitemaps=True,
        templates=2,
        soft_404=("warn", 0.9, True),
    )
    write_report(str(tmp_path / "report.json"), state, facts)
    assert state.reads == 1
    report = json.loads((tmp_path / "report.json").read_text())
    summary = report["summary"]
    assert (summary["soft_404"], summary["missing_fragments"], summary["broken"]) == (1, 1, 1)
    assert [f["from"] for f in report["redirect_fixes"]] == ["http://s/old"]
    assert [(g["kind"], g["pages"]) for g in report["groups"]] == [("template", 2)]
    assert report["sitemap"]["broken"] == ["http://s/gone"]
