"""The journal: every result as it comes, one JSON line each, flushed (by
its pipeline, ``linkaudit/pipelines/journal.py``).

The report is written when the spider closes.  A second Ctrl-C, a killed
process or a report that cannot be written would lose the whole audit; the
journal keeps what was already checked.  ``python -m linkaudit.output.journal
JOURNAL -o REPORT`` rebuilds a report (``complete: false`` unless the journal
recorded a finished crawl) from it.

Lines, in order: one ``{"type": "start", ...}`` record, one ``{"type":
"url", ...}`` per checked URL (the report's fields without the referrers,
plus ``links``: ``[target, line]`` pairs, from which referrers are rebuilt),
and ``{"type": "end", ...}`` when the crawl closed normally.

"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Iterable
from typing import Any, TypedDict

from linkaudit.items import CONTRACT_FIELDS, OPTIONAL_FIELDS, UrlResult
from linkaudit.output.report.atomic import write_json_atomic
from linkaudit.output.report.build import build_report
from linkaudit.output.report.facts import ReportFacts, now_iso
from linkaudit.output.report.records import Report
from linkaudit.rules.names import BuildNames
from linkaudit.state.memory import MemoryState

logger = logging.getLogger(__name__)

JOURNAL_VERSION = 1
RESULT_FIELDS = [f for f in CONTRACT_FIELDS if f not in ("referrers", "referrer_count")]


# -- rebuilding a report -------------------------------------------------------
def read_journal(lines: Iterable[str]) -> list[dict[str, Any]]:
    """The journal's records; a last line cut short by a kill is skipped."""
    records = []
    for line in lines:
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return records


def rebuild_report(records: list[dict[str, Any]]) -> Report:
    """The report a journal stands for.  Without an end record the crawl was
    cut off: ``finish_reason`` is ``shutdown``, and the links of scanned
    pages that have no result are ``unchecked``."""
    if not records or records[0].get("type") != "start":
        raise ValueError("not a linkaudit journal (no start record)")
    start = records[0]
    end = next((r for r in records if r.get("type") == "end"), None)
    state = MemoryState()
    results = [r for r in records if r.get("type") == "url"]
    for rec in results:
        state.discover(rec["url"], rec["depth"])
    for rec in results:
        for target, line in rec.get("links", ()):
            state.discover(target, rec["depth"] + 1)
            state.add_referrer(target, rec["url"], line)
    for rec in results:
        fields: dict[str, Any] = {name: rec.get(name) for name in RESULT_FIELDS}  # (JSON's)
        optional = {name: rec[name] for name in OPTIONAL_FIELDS if name in rec}
        state.record(UrlResult(**fields, **optional), 0.0)
    # the run as the journal recorded it; it holds no findings switches
    facts = ReportFacts(
        start_urls=start["start_urls"],
        near_prefixes=start["near_prefixes"],
        started_at=start["started_at"],
        finished_at=end["finished_at"] if end else now_iso(),
        finish_reason=end["finish_reason"] if end else "shutdown",
        pages=end["pages"] if end else sum(1 for r in results if "page" in r),
        requests=end["requests"] if end else sum(1 for r in results if r.get("method")),
        max_depth=start.get("max_depth"),
        names=_names(start.get("build")),
    )
    return build_report(state, facts)


class JournalBuild(TypedDict):
    """The journal's ``build`` (its start record): how the build is named,
    read back by :func:`_names` (defensively: a journal is a file)."""

    path: str
    address: str
    root_url: str | None


def build_record(names: BuildNames) -> JournalBuild:
    """How a build is named, for the report rebuilt from the journal."""
    return {"path": names.path, "address": names.base, "root_url": names.root_url}


def _names(build: Any) -> BuildNames | None:
    if not isinstance(build, dict):
        return None
    return BuildNames(build["path"], build["address"], build.get("root_url") or "")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m linkaudit.output.journal",
        description="Rebuild a linkaudit report from the journal of a crawl.",
    )
    parser.add_argument("journal", help="the .journal.jsonl file of a crawl")
    parser.add_argument("-o", "--output", required=True, help="where to write the report")
    ns = parser.parse_args(argv)
    try:
        with open(ns.journal, encoding="utf-8") as fh:
            report = rebuild_report(read_journal(fh))
        write_json_atomic(ns.output, report)
    except (OSError, ValueError, KeyError) as exc:
        print(f"linkaudit: error: {exc}", file=sys.stderr)
        return 2
    print(f"Report rebuilt from {ns.journal}: {report['summary']['urls']} URLs -> {ns.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
