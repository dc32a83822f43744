"""The report, told for a reader: a person (text), a CI comment (markdown),
a CI dashboard (JUnit XML), a code-scanning tool (SARIF 2.1.0), or a program
(JSON, the report itself).  Each function takes a report dict and returns
the text to print."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any
from xml.etree import ElementTree as ET

from linkaudit import PROJECT_URL, __version__
from linkaudit.report import OUTCOMES, dumps_report, summary_text

Report = dict[str, Any]


def _broken(report: Report) -> list[dict[str, Any]]:
    return [u for u in report["urls"] if u["outcome"] == "broken"]


def as_text(report: Report) -> str:
    """Counts, then each broken URL with the pages and lines linking to it."""
    return summary_text(report)


def as_json(report: Report) -> str:
    return dumps_report(report)


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def as_markdown(report: Report) -> str:
    s = report["summary"]
    state = "complete" if report["complete"] else f"incomplete ({report['finish_reason']})"
    lines = [
        f"### linkaudit: {s['broken']} broken link{'s' if s['broken'] != 1 else ''}",
        "",
        f"{s['urls']} URLs checked from {', '.join(report['start_urls'])}: {state}.",
        "",
        "| " + " | ".join(OUTCOMES) + " |",
        "|" + " --- |" * len(OUTCOMES),
        "| " + " | ".join(str(s[o]) for o in OUTCOMES) + " |",
    ]
    broken = _broken(report)
    if broken:
        lines += ["", "| broken URL | error | linked from |", "| --- | --- | --- |"]
        for u in broken:
            where = "<br>".join(
                _md(r["url"]) + (f" line {r['line']}" if r["line"] is not None else " (redirect)")
                for r in u["referrers"]
            )
            lines.append(f"| {_md(u['url'])} | {_md(u['error'] or '')} | {where} |")
    return "\n".join(lines)


def as_junit(report: Report) -> str:
    """One testcase per checked URL, a failure per broken one, a skip for
    those not verified (unchecked, blocked, excluded)."""
    s = report["summary"]
    suite = ET.Element(
        "testsuite",
        name="linkaudit",
        tests=str(s["urls"]),
        failures=str(s["broken"]),
        errors="0",
        skipped=str(s["unchecked"] + s["blocked"] + s["excluded"]),
        timestamp=report["started_at"],
    )
    for u in report["urls"]:
        case = ET.SubElement(
            suite, "testcase", classname="near" if u["near"] else "far", name=u["url"]
        )
        if u["outcome"] == "broken":
            where = "\n".join(
                f"{r['url']}" + (f" line {r['line']}" if r["line"] is not None else " (redirect)")
                for r in u["referrers"]
            )
            failure = ET.SubElement(case, "failure", message=u["error"] or "broken")
            failure.text = f"{u['url']}: {u['error']}\nlinked from:\n{where}"
        elif u["outcome"] in ("unchecked", "blocked", "excluded"):
            ET.SubElement(case, "skipped", message=u["error"] or u["outcome"])
    ET.indent(suite)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suite, encoding="unicode")


def as_sarif(report: Report) -> str:
    """SARIF 2.1.0: one result per broken link occurrence, located at the
    page (as an artifact URI) and the line of the linking element."""
    results = []
    for u in _broken(report):
        for r in u["referrers"] or [{"url": u["url"], "line": None}]:
            location: dict[str, Any] = {"artifactLocation": {"uri": r["url"]}}
            if r["line"] is not None:
                location["region"] = {"startLine": r["line"]}
            results.append(
                {
                    "ruleId": "broken-link",
                    "level": "error",
                    "message": {"text": f"Broken link to {u['url']}: {u['error']}"},
                    "locations": [{"physicalLocation": location}],
                }
            )
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
                            }
                        ],
                    }
                },
                "results": results,
            }
        ],
    }
    return json.dumps(sarif, ensure_ascii=False, indent=1)


FORMATS: dict[str, Callable[[Report], str]] = {
    "text": as_text,
    "json": as_json,
    "markdown": as_markdown,
    "junit": as_junit,
    "sarif": as_sarif,
}
