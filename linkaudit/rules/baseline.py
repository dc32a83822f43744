"""What a report calls broken, as a baseline holds it (``--baseline``, an
audit database's last finished audit): each broken URL, and each missing
fragment as ``URL#fragment``.  The keys of one report are compared with the
next one's (``new``, ``fixed``)."""

from __future__ import annotations

from typing import Any

from linkaudit.items import Outcome


def fragment_key(url: str, fragment: str) -> str:
    """How a missing fragment is named in a baseline: ``URL#fragment``."""
    return f"{url}#{fragment}"


def broken_keys(report: dict[str, Any]) -> list[str]:
    """What ``report`` calls broken: each broken URL, then each missing
    fragment's key."""
    keys = [u["url"] for u in report["urls"] if u["outcome"] == Outcome.BROKEN]
    keys += [
        fragment_key(u["url"], g["fragment"])
        for u in report["urls"]
        for g in u.get("missing_fragments", ())
    ]
    return keys
