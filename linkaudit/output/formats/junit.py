"""The report as JUnit XML, for CI dashboards.

Every value from a page or a server goes through :func:`shown`: XML 1.0 has
no way to write most control characters or a lone surrogate (not even as a
character reference), and a dashboard shows a bidi override as it would act."""

from __future__ import annotations

from xml.etree import ElementTree as ET

from linkaudit.output.formats.common import Report, shown, where


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
            suite, "testcase", classname="near" if u["near"] else "far", name=shown(u["url"])
        )
        if u["outcome"] == "broken":
            lines = [f"{u['url']}: {u['error']}", "linked from:"]
            lines += [where(r) for r in u["referrers"]]
            failure = ET.SubElement(case, "failure", message=shown(u["error"] or "broken"))
            failure.text = _text(lines)
        elif u.get("missing_fragments"):  # the page is there, some anchors are not
            gaps = u["missing_fragments"]
            failure = ET.SubElement(case, "failure", message=f"{len(gaps)} missing fragment(s)")
            lines = []
            for g in gaps:
                lines.append(f"#{g['fragment']}: no such anchor, linked from:")
                lines.extend(where(r) for r in g["referrers"])
            failure.text = _text(lines)
        elif u["outcome"] in ("unchecked", "blocked", "excluded"):
            ET.SubElement(case, "skipped", message=shown(u["error"] or u["outcome"]))
    ET.indent(suite)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suite, encoding="unicode")


def _text(lines: list[str]) -> str:
    """Lines of our words and values: each escaped whole (our words are
    printable, so only the values change)."""
    return "\n".join(shown(line) for line in lines)
