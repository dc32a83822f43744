"""The JSON report (``shared/contract/report.md``): built from the audit's
state, written atomically, and summarised for a person."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from linkaudit.rules.statuses import INTERNAL_ERROR
from linkaudit.rules.urls import is_near
from linkaudit.state.base import AuditState
from linkaudit.state.baseline import compare
from linkaudit.state.recheck import RecheckPolicy

REPORT_VERSION = 1
OUTCOMES = ("ok", "redirect", "broken", "blocked", "excluded", "unchecked")

# Why a discovered URL was never checked, by Scrapy close reason.
_NOT_CHECKED = {
    "closespider_pagecount": "Not checked: hit limit reached",
    "closespider_timeout": "Not checked: time limit reached",
    "closespider_itemcount": "Not checked: item limit reached",
    "closespider_errorcount": "Not checked: error limit reached",
    "shutdown": "Not checked: the audit was interrupted",
    "finished": "Not checked: the audit ended first",
}


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def unchecked_error(finish_reason: str, depth: int, max_depth: int | None) -> str:
    if max_depth is not None and depth > max_depth:
        return "Not checked: depth limit reached"
    return _NOT_CHECKED.get(finish_reason, f"Not checked: the audit ended ({finish_reason})")


def build_report(
    state: AuditState,
    *,
    start_urls: list[str],
    near_prefixes: Sequence[str],
    started_at: str,
    finished_at: str,
    finish_reason: str,
    pages: int,
    requests: int,
    max_depth: int | None = None,
    policy: RecheckPolicy | None = None,
    now: float = 0.0,
    baseline: frozenset[str] | None = None,
    baseline_source: str | None = None,
) -> dict[str, Any]:
    """The report.  ``policy`` and ``now``: failures in their grace period
    are shown ok (LINKAUDIT_REPORT_AFTER); ``baseline``: new and fixed."""
    near = tuple(near_prefixes)  # is_near takes a tuple, as str.startswith does
    urls = []
    for entry in state.entries():
        result = entry.result
        if result is not None and policy is not None:
            result = policy.present(result, entry.failing_since, now)
        if result is None:
            item: dict[str, Any] = {
                "url": entry.url,
                "near": is_near(entry.url, near),
                "outcome": "unchecked",
                "status": None,
                "error": unchecked_error(finish_reason, entry.depth, max_depth),
                "method": None,
                "content_type": None,
                "location": None,
            }
        else:
            item = result.contract_dict()
        item["depth"] = entry.depth
        item["referrer_count"] = entry.referrer_count
        # sorted: a resumed audit lists them as an uninterrupted one would
        item["referrers"] = [
            {"url": page, "line": line} for page, line in sorted(entry.referrers, key=_by_place)
        ]
        urls.append(item)
    urls.sort(key=lambda u: u["url"])
    changes: dict[str, Any] = {}
    if baseline is not None:
        changes = {"baseline": baseline_source, "fixed": compare(urls, baseline)}
    summary = {"urls": len(urls), "pages": pages, "requests": requests}
    summary.update({o: 0 for o in OUTCOMES})
    internal = 0
    for u in urls:
        summary[u["outcome"]] += 1
        if u["outcome"] == "unchecked" and is_internal_error(u):
            internal += 1
    if internal:  # URLs whose check a bug of ours stopped (all unchecked)
        summary["internal_errors"] = internal
    return {
        "version": REPORT_VERSION,
        "start_urls": list(start_urls),
        "near_prefixes": list(near_prefixes),
        "started_at": started_at,
        "finished_at": finished_at,
        "finish_reason": finish_reason,
        "complete": finish_reason == "finished" and summary["unchecked"] == 0,
        "summary": summary,
        **changes,
        "urls": urls,
    }


def is_internal_error(entry: dict[str, Any]) -> bool:
    return (entry.get("error") or "").startswith(INTERNAL_ERROR + ":")


def _by_place(referrer: tuple[str, int | None]) -> tuple[str, int]:
    page, line = referrer
    return page, -1 if line is None else line


def dumps_report(report: dict[str, Any]) -> str:
    """The report as JSON with one URL entry per line.

    ``json.dumps(indent=...)`` runs the pure-Python encoder: on a 150,000-URL
    report that took seconds.  Entries are encoded compactly by the C encoder
    and joined, which also keeps a report greppable (one URL, one line).
    """
    head = {k: v for k, v in report.items() if k != "urls"}
    text = json.dumps(head, ensure_ascii=False, indent=1)
    if "urls" not in report:
        return text
    entries = ",\n  ".join(json.dumps(e, ensure_ascii=False) for e in report["urls"])
    body = f'"urls": [\n  {entries}\n ]' if entries else '"urls": []'
    return f"{text[:-2]},\n {body}\n}}" if head else f"{{\n {body}\n}}"


def write_json_atomic(path: str, data: dict[str, Any]) -> None:
    """Write to a temporary file beside ``path``, then rename: a reader never
    sees half a report, and a failed write leaves the old file alone."""
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".linkaudit-", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(dumps_report(data))
            fh.write("\n")
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
