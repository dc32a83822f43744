"""The report as JUnit XML, for CI dashboards."""

from __future__ import annotations

from xml.etree import ElementTree as ET

from linkaudit.output.formats.common import Report, where


def as_junit(report: Report) -> str:
    """One testcase per checked URL, a failure per broken one, a skip for
    those not verified (unchecked, blocked, excluded)."""
    s = report["summary"]
    failing = s["broken"] + sum(
        1 for u in report["urls"] if u["outcome"] != "broken" and u.get("missing_fragments")
    )
    suite = ET.Element(
        "testsuite",
        name="linkaudit",
        tests=str(s["urls"]),
        failures=str(failing),
        errors="0",
        skipped=str(s["unchecked"] + s["blocked"] + s["excluded"]),
        timestamp=report["started_at"],
    )
    for u in report["urls"]:
        case = ET.SubElement(
            suite, "testcase", classname="near" if u["near"] else "far", name=u["url"]
        )
        if u["outcome"] == "broken":
            linked = "\n".join(where(r) for r in u["referrers"])
            failure = ET.SubElement(case, "failure", message=u["error"] or "broken")
            failure.text = f"{u['url']}: {u['error']}\nlinked from:\n{linked}"
        elif u.get("missing_fragments"):  # the page is there, some anchors are not
            gaps = u["missing_fragments"]
            failure = ET.SubElement(case, "failure", message=f"{len(gaps)} missing fragment(s)")
            failure.text = "\n".join(
                f"#{g['fragment']}: no such anchor, linked from:\n"
                + "\n".join(where(r) for r in g["referrers"])
                for g in gaps
            )
        elif u["outcome"] in ("unchecked", "blocked", "excluded"):
            ET.SubElement(case, "skipped", message=u["error"] or u["outcome"])
    ET.indent(suite)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suite, encoding="unicode")
