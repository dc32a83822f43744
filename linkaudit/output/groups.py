"""Template links: one finding, not 500 (the report's ``groups``).

A broken link (or a soft 404) that sits in a block the site template
repeats (the same landmark, or the same run of links, on several pages:
``rules/templates.py``) is one ``template`` group, with every page that
carries it; the links written in pages' own content are its ``page`` group.

Worked out when the report is written, from the results alone (a scanned
page keeps its blocks), so every door and mode gives the same groups: the
blocks of the pages that link to a broken URL are looked up once the
report's entries are out.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from linkaudit.rules.templates import RUN, BlockIndex
from linkaudit.state.base import Entry

MIN_PAGES = 2


class Groups:
    """Sees every report entry (:meth:`see`), then groups the referrers of
    the broken ones (:meth:`groups`)."""

    def __init__(self, min_pages: int = MIN_PAGES) -> None:
        self.min_pages = min_pages
        self.targets: list[dict[str, Any]] = []

    def see(self, item: dict[str, Any]) -> None:
        if (item["outcome"] == "broken" or item.get("soft_404")) and item["referrers"]:
            self.targets.append(item)

    def groups(self, find: Callable[[str], Entry | None]) -> list[dict[str, Any]]:
        """Per broken target in URL order: its template groups (most pages
        first), then its page group.  ``find``: a URL's entry."""
        if not self.targets:
            return []
        pages = {r["url"] for item in self.targets for r in item["referrers"]}
        blocks: dict[str, BlockIndex] = {}  # a page's, built once for all its referrers
        for page in pages:
            entry = find(page)
            if entry is not None and entry.result is not None and entry.result.blocks:
                blocks[page] = BlockIndex(entry.result.blocks)
        out: list[dict[str, Any]] = []
        for item in self.targets:
            out.extend(self._target_groups(item, blocks))
        return out

    def _target_groups(
        self, item: dict[str, Any], blocks: dict[str, BlockIndex]
    ) -> list[dict[str, Any]]:
        by_block: dict[str, list[dict[str, Any]]] = {}
        own: list[dict[str, Any]] = []
        for referrer in item["referrers"]:
            index = blocks.get(referrer["url"])
            block = index.of(item["url"], referrer["line"]) if index is not None else None
            if block is None:
                own.append(referrer)
            else:
                by_block.setdefault(block[0], []).append(referrer)
        found = []
        for signature, referrers in by_block.items():
            if _pages(referrers) >= self.min_pages:
                found.append(_group(item, "template", referrers, signature))
            else:
                own.extend(referrers)
        found.sort(key=lambda g: (-g["pages"], g["block"]))
        if own:
            own.sort(key=lambda r: (r["url"], -1 if r["line"] is None else r["line"]))
            found.append(_group(item, "page", own))
        return found


def _pages(referrers: list[dict[str, Any]]) -> int:
    return len({r["url"] for r in referrers})


def _group(
    item: dict[str, Any], kind: str, referrers: list[dict[str, Any]], block: str | None = None
) -> dict[str, Any]:
    group = {
        "target": item["url"],
        "kind": kind,
        "pages": _pages(referrers),
        "outcome": item["outcome"],
        "status": item["status"],
        "error": item["error"] if not item.get("soft_404") else item.get("warning"),
        "referrers": referrers,
    }
    if block is not None:
        group["block"] = block
    return group


def block_name(block: str) -> str:
    """A template block in words: ``footer``, ``a repeated run of links``."""
    return "a run of links repeated on pages" if block.startswith(RUN) else block


def group_text(group: dict[str, Any], first: int = 3) -> str:
    """``in the site template (footer), on 487 pages (first: /, /about, /blog/)``."""
    pages = list(dict.fromkeys(r["url"] for r in group["referrers"]))
    more = ", ..." if len(pages) > first else ""
    return (
        f"in the site template ({block_name(group['block'])}), on {group['pages']} pages "
        f"(first: {', '.join(pages[:first])}{more})"
    )
