"""Reading a report file back: whole, or lean (only the entries a summary,
the formats other than JSON, JUnit and HTML, and the exit code look at)."""

from __future__ import annotations

import json
from typing import Any


def needed_in_summary(entry: dict[str, Any]) -> bool:
    """An entry the summary, the formats other than JSON and JUnit, and the
    exit code look at."""
    return (
        entry["outcome"] != "ok"
        or bool(entry.get("warning"))
        or bool(entry.get("new"))
        or bool(entry.get("missing_fragments"))
        or bool(entry.get("links_dropped"))
        or bool(entry.get("app_shell"))
    )


def read_report(path: str, lean: bool = False) -> dict[str, Any]:
    """A report file; ``lean``: only the entries :func:`needed_in_summary`
    (a report this module wrote has one entry per line, so the others are
    never decoded: reading a 150 MB report takes a few MB)."""
    with open(path, encoding="utf-8") as fh:
        if not lean:
            return json.load(fh)
        head: list[str] = []
        urls: list[dict[str, Any]] = []
        in_urls = False  # the head may hold lists of objects too (redirect_fixes)
        for line in fh:
            if in_urls and line.startswith("  {"):
                entry = json.loads(line.rstrip().rstrip(","))
                if needed_in_summary(entry):
                    urls.append(entry)
            else:
                in_urls = in_urls or line.startswith(' "urls": [')
                head.append(line)
    if not in_urls:  # not laid out as this module writes it (jq ., json.dump): whole
        return _lean(read_report(path))
    try:
        report = json.loads("".join(head))
    except ValueError:  # not laid out as this module writes it
        return _lean(read_report(path))
    report["urls"] = urls
    return report


def _lean(report: Any) -> Any:
    """A report read whole, its entries filtered as the lean reader does."""
    if isinstance(report, dict) and isinstance(report.get("urls"), list):
        report["urls"] = [u for u in report["urls"] if isinstance(u, dict) and needed_in_summary(u)]
    return report
