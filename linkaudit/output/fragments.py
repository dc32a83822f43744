"""Missing fragments (--check-fragments): links to ``URL#name`` where the
HTML page at URL, as the audit read it, has no such anchor.

A page's result keeps its anchors and its links to fragments (``UrlResult``
``anchors`` and ``fragments``), in every state: memory, the audit database,
Redis.  So the report works them out from the results alone, whichever
process or run checked what: one pass over the entries before the report is
written.  A redirect is followed (a browser keeps the fragment); a target
that is not an HTML page read by the audit (broken, a binary, a far page
whose anchors were not downloaded) has nothing to check against: its
fragments are not reported.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from linkaudit.rules.fragments import has_anchor
from linkaudit.state.base import Entry

MAX_HOPS = 20  # a redirect chain longer than this (or a loop) is not followed


def fragment_key(url: str, fragment: str) -> str:
    """How a missing fragment is named in a baseline: ``URL#fragment``."""
    return f"{url}#{fragment}"


def missing_fragments(entries: Iterable[Entry]) -> dict[str, list[dict[str, Any]]]:
    """Target URL -> its missing fragments, each ``{"fragment", "referrers"}``
    (sorted, every page and line that links to it)."""
    wanted: dict[str, dict[str, set[tuple[str, int | None]]]] = {}
    anchors: dict[str, set[str]] = {}
    location: dict[str, str] = {}
    for entry in entries:
        result = entry.result
        if result is None:
            continue
        for target, fragment, line in result.fragments or ():
            wanted.setdefault(target, {}).setdefault(fragment, set()).add((entry.url, line))
        if result.anchors is not None:
            anchors[entry.url] = set(result.anchors)
        elif result.outcome == "redirect" and result.location:
            location[entry.url] = result.location
    missing: dict[str, list[dict[str, Any]]] = {}
    for target, fragments in wanted.items():
        final, hops = target, 0
        while final in location and hops < MAX_HOPS:
            final, hops = location[final], hops + 1
        names = anchors.get(final)
        if names is None:
            continue
        for fragment in sorted(fragments):
            if not has_anchor(names, fragment):
                places = sorted(fragments[fragment], key=lambda p: (p[0], p[1] or 0))
                missing.setdefault(target, []).append(
                    {"fragment": fragment, "referrers": [{"url": u, "line": n} for u, n in places]}
                )
    return missing
