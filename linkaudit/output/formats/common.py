"""What the formats share."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

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
