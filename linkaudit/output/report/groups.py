"""Template links: one finding, not 500 (the report's ``groups``).

A broken link (or a soft 404) that sits in the site template (the head, a
landmark, or a run of links repeated on pages: ``rules/templates.py``) is
one ``template`` group per kind of block (``block_kind``: the head, the
navigation, the header, the footer, a sidebar, a repeated run), with every
page that carries it there, whatever each page's element is (a ``nav`` on
one, a ``div[role=navigation]`` on another); the links written in pages'
own content are its ``page`` group.  So one URL has at most one template
finding per kind.

A run of links (no landmark names it) is the template's only when the
same run is on at least half of the site's pages that have blocks
(``RUN_SHARE``), as a menu is: a run that repeats on a few pages (a
generated index and its letter pages, a changelog) is content.

Worked out when the report is written, from the results alone (a scanned
page keeps its blocks), so every door and mode gives the same groups: the
blocks of the pages that link to a broken URL are looked up once the
report's entries are out.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from linkaudit.items import GroupKind, Outcome
from linkaudit.output.report.records import Place, ReportEntry, TemplateGroup
from linkaudit.rules.html.landmarks import BLOCK_WORDS
from linkaudit.rules.templates import RUN, RUNS, BlockIndex
from linkaudit.state.base import Entry

MIN_PAGES = 2
RUN_SHARE = 0.5  # a run of links on at least this share of the pages is a menu
# the kind of block a signature's element, role or word names
_KINDS = {
    "head": "head",
    "nav": "navigation",
    "navigation": "navigation",
    "navbar": "navigation",
    "menu": "navigation",
    "breadcrumb": "navigation",
    "header": "header",
    "banner": "header",
    "footer": "footer",
    "contentinfo": "footer",
    "aside": "sidebar",
    "complementary": "sidebar",
    "sidebar": "sidebar",
}
assert BLOCK_WORDS <= _KINDS.keys()


def block_kind(signature: str) -> str:
    """``nav``, ``div[role=navigation]``, ``ul.menu``: navigation;
    ``links:<digest>``: a repeated run (``links``)."""
    if signature.startswith(RUN):
        return RUNS
    word = signature
    if signature.endswith("]"):  # name[role=word]
        word = signature[signature.index("=") + 1 : -1]
    elif "#" in signature or "." in signature:
        word = signature.replace("#", ".").rpartition(".")[2]
    return _KINDS.get(word, word)


class Groups:
    """Sees every report entry (:meth:`see`), then groups the referrers of
    the broken ones (:meth:`groups`)."""

    def __init__(self, min_pages: int = MIN_PAGES) -> None:
        self.min_pages = min_pages
        self.targets: list[ReportEntry] = []

    def see(self, item: ReportEntry) -> None:
        if (item["outcome"] == Outcome.BROKEN or item.get("soft_404")) and item["referrers"]:
            self.targets.append(item)

    def groups(
        self, find: Callable[[str], Entry | None], entries: Iterable[Entry] = ()
    ) -> list[TemplateGroup]:
        """Per broken target in URL order: its template groups (most pages
        first), then its page group.  ``find``: a URL's entry; ``entries``:
        every entry, for the share of pages each run of links is on."""
        if not self.targets:
            return []
        signatures = self._signatures(find)
        placed = [self._placed(*both) for both in zip(self.targets, signatures, strict=True)]
        runs = {b for _item, by_block, _own in placed for b in by_block if b.startswith(RUN)}
        menus = self._menus(runs, entries)
        out: list[TemplateGroup] = []
        for item, by_block, own in placed:
            out.extend(self._target_groups(item, by_block, own, menus))
        return out

    def _signatures(self, find: Callable[[str], Entry | None]) -> list[list[str | None]]:
        """For each target, the block each of its referrers sits in (its
        signature; None: in none).  The pages are read one at a time, each
        page's blocks indexed once for all its referrers and let go: held
        all at once, the indexes of every page linking to a broken URL (on
        a site whose template carries one, every page) were the largest
        part of the report's peak (bench/README.md, "A million URLs")."""
        targets = self.targets
        signatures: list[list[str | None]] = []
        by_page: dict[str, list[tuple[int, int]]] = {}  # page -> (target, referrer) at
        for at, item in enumerate(targets):
            signatures.append([None] * len(item["referrers"]))
            for place, referrer in enumerate(item["referrers"]):
                by_page.setdefault(referrer["url"], []).append((at, place))
        for page, where in by_page.items():
            entry = find(page)
            if entry is None or entry.result is None or not entry.result.blocks:
                continue
            index = BlockIndex(entry.result.blocks)
            for at, place in where:
                item = targets[at]
                referrer = item["referrers"][place]
                # a link through a redirect is the page's link to the redirect
                block = index.of(referrer.get("via") or item["url"], referrer["line"])
                if block is not None:
                    signatures[at][place] = block[0]
        return signatures

    def _placed(
        self, item: ReportEntry, signatures: list[str | None]
    ) -> tuple[ReportEntry, dict[str, list[Place]], list[Place]]:
        """A target's referrers by the block each sits in; those in none."""
        by_block: dict[str, list[Place]] = {}
        own: list[Place] = []
        for referrer, signature in zip(item["referrers"], signatures, strict=True):
            if signature is None:
                own.append(referrer)
            else:
                by_block.setdefault(signature, []).append(referrer)
        return item, by_block, own

    def _menus(self, runs: set[str], entries: Iterable[Entry]) -> set[str]:
        """The runs (of ``runs``) on at least ``RUN_SHARE`` of the pages:
        one pass over the pages' blocks, counting only these runs."""
        if not runs:
            return set()
        count = dict.fromkeys(runs, 0)
        total = 0
        for entry in entries:
            result = entry.result
            if result is None or not result.blocks:
                continue
            total += 1
            for signature in {b[0] for b in result.blocks if b[3] is None}:
                if signature in count:
                    count[signature] += 1
        least = max(self.min_pages, RUN_SHARE * total)
        return {run for run, pages in count.items() if pages >= least}

    def _target_groups(
        self,
        item: ReportEntry,
        by_block: dict[str, list[Place]],
        own: list[Place],
        menus: set[str],
    ) -> list[TemplateGroup]:
        by_kind: dict[str, list[Place]] = {}
        signatures: dict[str, set[str]] = {}
        for signature, referrers in by_block.items():
            if signature.startswith(RUN) and signature not in menus:
                own.extend(referrers)  # a run on a few pages: content
                continue
            kind = block_kind(signature)
            by_kind.setdefault(kind, []).extend(referrers)
            signatures.setdefault(kind, set()).add(signature)
        found = []
        for kind, referrers in by_kind.items():
            if _pages(referrers) >= self.min_pages:
                referrers.sort(key=_place)
                found.append(_group(item, GroupKind.TEMPLATE, referrers, kind, signatures[kind]))
            else:
                own.extend(referrers)
        found.sort(key=lambda g: (-g["pages"], g["block"]))
        if own:
            own.sort(key=_place)
            found.append(_group(item, GroupKind.PAGE, own))
        return found


def _place(referrer: Place) -> tuple[str, int]:
    return referrer["url"], -1 if referrer["line"] is None else referrer["line"]


def _pages(referrers: list[Place]) -> int:
    """The pages among ``referrers``: a redirect that leads to the target
    (no line, not a rendered link) is no page, the pages that link it are
    (``via``); a build's file served at two URLs (``/`` and ``/index.html``)
    is one page."""
    return len(
        {r.get("file") or r["url"] for r in referrers if r["line"] is not None or r.get("rendered")}
    )


def _group(
    item: ReportEntry,
    kind: str,
    referrers: list[Place],
    block: str | None = None,
    signatures: set[str] | None = None,
) -> TemplateGroup:
    group: TemplateGroup = {
        "target": item["url"],
        "kind": kind,
        "pages": _pages(referrers),
        "outcome": item["outcome"],
        "status": item["status"],
        "error": item["error"] if not item.get("soft_404") else item.get("warning"),
        "referrers": referrers,
    }
    if block is not None:
        group["block"] = block  # the kind of block
        group["blocks"] = sorted(signatures or ())  # the pages' elements (or runs)
    return group
