"""Missing fragments (--check-fragments): links to ``URL#name`` where the
HTML page at URL, as the audit read it, has no such anchor.

A page's result keeps its anchors and its links to fragments (``UrlResult``
``anchors`` and ``fragments``), in every state: memory, the audit database,
Redis.  So the report works them out from the results alone, whichever
process or run checked what: the pages' links to fragments are gathered in
the report's one pass over the entries (``linkaudit/output/report/sections.py``),
each target's anchors looked up once that pass is over.  A redirect is
followed (a browser keeps the fragment); a target that is not an HTML page
read by the audit (broken, a binary, a far page whose anchors were not
downloaded) has nothing to check against: its fragments are not reported.
"""

from __future__ import annotations

from collections.abc import Callable

from linkaudit.items import Outcome
from linkaudit.output.report.records import (
    MissingFragment,
)
from linkaudit.rules.fragments import has_anchor
from linkaudit.rules.rendered import referrer_fields
from linkaudit.state.base import Entry

MAX_HOPS = 20  # a redirect chain longer than this (or a loop) is not followed


class MissingFragments:
    """Sees every entry (:meth:`see`), then works out each target's missing
    fragments (:meth:`missing`)."""

    def __init__(self) -> None:
        # target URL -> fragment -> the (page, line) that link to it
        self.wanted: dict[str, dict[str, set[tuple[str, int | None]]]] = {}

    def see(self, entry: Entry) -> None:
        result = entry.result
        if result is None:
            return
        for target, fragment, line in result.fragments or ():
            self.wanted.setdefault(target, {}).setdefault(fragment, set()).add((entry.url, line))

    def missing(self, find: Callable[[str], Entry | None]) -> dict[str, list[MissingFragment]]:
        """Target URL -> its missing fragments, each ``{"fragment",
        "referrers"}`` (sorted, every page and line that links to it).
        ``find``: a URL's entry."""
        missing: dict[str, list[MissingFragment]] = {}
        for target, fragments in self.wanted.items():
            names = _anchors(target, find)
            if names is None:
                continue
            for fragment in sorted(fragments):
                if not has_anchor(names, fragment):
                    places = sorted(fragments[fragment], key=lambda p: (p[0], p[1] or 0))
                    missing.setdefault(target, []).append(
                        {
                            "fragment": fragment,
                            "referrers": [referrer_fields(u, n) for u, n in places],
                        }
                    )
        return missing


def _anchors(target: str, find: Callable[[str], Entry | None]) -> set[str] | None:
    """The anchors of the page ``target`` leads to (its redirects followed),
    or None when that is no HTML page the audit read."""
    entry, hops = find(target), 0
    while entry is not None and entry.result is not None and entry.result.anchors is None:
        result = entry.result
        if result.outcome != Outcome.REDIRECT or not result.location or hops >= MAX_HOPS:
            return None
        entry, hops = find(result.location), hops + 1
    if entry is None or entry.result is None:
        return None
    return set(entry.result.anchors or ())
