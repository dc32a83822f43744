"""The report as SARIF 2.1.0, for code-scanning tools: each broken link
located at its page and line."""

from __future__ import annotations

import json
from typing import Any

from linkaudit import PROJECT_URL, __version__
from linkaudit.output.formats.common import Report, broken_urls, missing_fragments


def as_sarif(report: Report) -> str:
    """SARIF 2.1.0: one result per broken link occurrence, located at the
    page (as an artifact URI) and the line of the linking element."""
    results: list[dict[str, Any]] = []
    seen: set[tuple[str, str, int | None]] = set()
    for u in broken_urls(report):
        _add(
            results,
            seen,
            "broken-link",
            u["url"],
            f"Broken link to {u['url']}: {u['error']}",
            u["referrers"] or [{"url": u["url"], "line": None}],
        )
    for u, gap in missing_fragments(report):
        target = f"{u['url']}#{gap['fragment']}"
        text = f"Link to a missing fragment: {target} (the page has no such anchor)"
        _add(results, seen, "missing-fragment", target, text, gap["referrers"])
    sarif = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "linkaudit",
                        "version": __version__,
                        "informationUri": PROJECT_URL,
                        "rules": [
                            {
                                "id": "broken-link",
                                "shortDescription": {"text": "A link whose target is broken"},
                                "helpUri": PROJECT_URL,
                            },
                            {
                                "id": "missing-fragment",
                                "shortDescription": {
                                    "text": "A link to a fragment the page does not have"
                                },
                                "helpUri": PROJECT_URL,
                            },
                        ],
                    }
                },
                "results": results,
            }
        ],
    }
    return json.dumps(sarif, ensure_ascii=False, indent=1)


def _add(
    results: list[dict[str, Any]],
    seen: set[tuple[str, str, int | None]],
    rule: str,
    target: str,
    text: str,
    referrers: list[dict[str, Any]],
) -> None:
    """One result per place that links to ``target`` (a local build's file
    served at two URLs, / and /index.html, is one place)."""
    for r in referrers:
        place = (target, r.get("file") or r["url"], r["line"])
        if place in seen:
            continue
        seen.add(place)
        # a local build's file (relative: code scanning annotates it),
        # else the page's URL
        location: dict[str, Any] = {"artifactLocation": {"uri": r.get("file") or r["url"]}}
        if r["line"] is not None:
            location["region"] = {"startLine": r["line"]}
        results.append(
            {
                "ruleId": rule,
                "level": "error",
                "message": {"text": text},
                "locations": [{"physicalLocation": location}],
            }
        )
