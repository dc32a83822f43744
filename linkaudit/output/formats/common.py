"""What the formats share."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from linkaudit.output.groups import group_text

Report = dict[str, Any]


def broken_urls(report: Report) -> list[dict[str, Any]]:
    return [u for u in report["urls"] if u["outcome"] == "broken"]


def where(referrer: dict[str, Any]) -> str:
    """A referrer in words: ``page line 12``, or ``page (redirect)``; a
    local build's page as its file first: ``public/about.html:12 (page)``."""
    line = referrer["line"]
    if referrer.get("file"):
        at = f":{line}" if line is not None else " (redirect)"
        return f"{referrer['file']}{at} ({referrer['url']})"
    return f"{referrer['url']}" + (f" line {line}" if line is not None else " (redirect)")


def all_where(referrers: Iterable[dict[str, Any]], indent: str = "") -> list[str]:
    return [indent + where(r) for r in referrers]


def missing_fragments(report: Report) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(entry, missing fragment) pairs (--check-fragments), in URL order."""
    return [(u, gap) for u in report["urls"] for gap in u.get("missing_fragments", ())]


def groups_by_target(report: Report) -> dict[str, list[dict[str, Any]]]:
    """The report's ``groups`` (template links) by their target."""
    out: dict[str, list[dict[str, Any]]] = {}
    for group in report.get("groups") or ():
        out.setdefault(group["target"], []).append(group)
    return out


def place_lines(
    entry: dict[str, Any], groups: dict[str, list[dict[str, Any]]], indent: str = ""
) -> list[str]:
    """Where a broken URL is linked: a template group as one line, the
    links in pages' own content one by one."""
    mine = groups.get(entry["url"])
    if not mine:
        return all_where(entry["referrers"], indent)
    lines = []
    for group in mine:
        if group["kind"] == "template":
            lines.append(indent + group_text(group))
        else:
            lines.extend(all_where(group["referrers"], indent))
    return lines
