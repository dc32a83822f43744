"""The report's sections, fed by one pass over the state's entries.

Reading every entry of a state costs: decoding each result (and, for the
audit database or Redis, fetching it).  So ``state.entries()`` is read
once, as the report is written: each entry is seen, in the state's order, by
every section builder that needs the whole audit before an entry can be
shown (missing fragments, soft-404 probes, redirect chains, the sitemap),
and kept, sorted by URL, for the report's entries (as little as the state
allows: ``kept.py``).  What a builder needs of
another URL afterwards (a chain's end, a page's anchors or template blocks,
a listed URL's outcome) it looks up in that sorted list (:meth:`find`).

The builders, one module each: ``fragments`` (``missing_fragments``),
``soft404`` (``soft_404``), ``redirects`` (``redirect_fixes``), ``groups``
(``groups``: it sees the entries as shown), ``sitemap`` (``sitemap``),
``suggestions`` (a broken entry's ``suggestion``), ``offline`` (the far
links of a machine that seems offline: unchecked).
"""

from __future__ import annotations

from typing import TypedDict

from linkaudit.items import UrlResult
from linkaudit.output.report.facts import ReportFacts
from linkaudit.output.report.fragments import MissingFragments
from linkaudit.output.report.groups import Groups
from linkaudit.output.report.kept import KeptEntries
from linkaudit.output.report.offline import OfflineCheck, offline_entry
from linkaudit.output.report.records import (
    MissingFragment,
    RedirectFix,
    SitemapFindings,
    TemplateGroup,
)
from linkaudit.output.report.redirects import RedirectFixes, looped
from linkaudit.output.report.sitemap import SitemapSection
from linkaudit.output.report.soft404 import Soft404s
from linkaudit.output.report.suggestions import Suggestions
from linkaudit.rules.recheck import RecheckPolicy
from linkaudit.rules.suggest import SuggestionRecord
from linkaudit.state.base import AuditState, Entry


class Sections:
    """Every section builder the facts ask for, and the entries they saw."""

    def __init__(self, facts: ReportFacts, near: tuple[str, ...]) -> None:
        self.facts = facts
        self.fragments = MissingFragments() if facts.fragments else None
        self.soft = Soft404s(*facts.soft_404) if facts.soft_404 else None
        self.redirects = RedirectFixes()
        self.groups = Groups(facts.templates) if facts.templates else None
        self.sitemap = SitemapSection(near) if facts.sitemaps else None
        self.suggest = Suggestions(near, facts.suggest) if facts.suggest is not None else None
        self.read_sitemap = False  # a sitemap was read (one that is a link of the report)
        self.entries = KeptEntries()
        self.looped: set[str] = set()  # the redirects found in a loop (broken)
        # far links that failed for want of a network, on a machine that seems offline
        self.offline = OfflineCheck(facts.offline) if facts.offline else None
        self.unreached: set[str] = set()  # (their URLs: unchecked, "no network")

    def read(self, state: AuditState) -> KeptEntries:
        """The one pass over the state's entries: each is seen by every
        builder; returned sorted by URL."""
        fragments, soft, sitemap, suggest = self.fragments, self.soft, self.sitemap, self.suggest
        # kept as little as the state allows (kept.py)
        entries = self.entries = KeptEntries(state)
        offline = self.offline
        for entry in state.entries():
            entries.append(entry)
            if offline is not None:
                offline.see(entry)
            if fragments is not None:
                fragments.see(entry)
            if sitemap is not None:
                sitemap.see(entry)
            if soft is not None:
                soft.see(entry)
                if soft.skip(entry.url):
                    continue  # a probe: no link of the report
            self.redirects.see(entry)
            if suggest is not None:
                suggest.see(entry)
            result = entry.result
            if result is not None and result.sitemap is not None:
                self.read_sitemap = True
        entries.sort()
        self._loops(entries)
        if offline is not None:
            self._offline(entries, offline)
        history, policy, now = self.facts.history, self.facts.policy, self.facts.now
        if history is not None:  # the entries as shown: which pages carry broken links
            for entry in entries:
                history.see(entry, shown(entry, policy, now))
        return entries

    def _loops(self, entries: KeptEntries) -> None:
        """The redirects in a loop become broken, "Redirect loop", before
        any entry is shown (every door reports the same: a crawl, a build's
        walk, ``linkaudit report``)."""
        self.looped = self.redirects.loops()
        for url in self.looped:
            at = entries.position(url)
            entries[at] = looped(entries[at])

    def _offline(self, entries: KeptEntries, offline: OfflineCheck) -> None:
        """On a machine that seems offline, the far links that failed for
        want of a network become ``unchecked``, "no network", before any
        entry is shown (``offline.py``)."""
        self.unreached = offline.decide()
        for url in self.unreached:
            at = entries.position(url)
            entries[at] = offline_entry(entries[at])

    def find(self, url: str) -> Entry | None:
        """The entry of ``url`` (after :meth:`read`)."""
        entries = self.entries
        at = entries.position(url)
        if at == len(entries):
            return None
        entry = entries[at]
        return entry if entry.url == url else None

    def missing_fragments(self) -> dict[str, list[MissingFragment]]:
        """Target URL -> its missing fragments (none unless asked for); what
        the builder gathered is freed (every link to a fragment: a set of
        places each)."""
        if self.fragments is None:
            return {}
        missing = self.fragments.missing(self.find)
        self.fragments = None
        return missing

    def suggestions(self) -> dict[str, SuggestionRecord]:
        """Broken URL -> its ``suggestion`` (none unless asked for); what
        the builder gathered is freed."""
        if self.suggest is None:
            return {}
        found = self.suggest.suggest(self.find)
        self.suggest = None
        return found

    def closing(self) -> Closing:
        """The sections that follow the entries, those that have something
        to say, in the report's order (after every entry was shown)."""
        facts = self.facts
        fixes = self.redirects.fixes(self.find, facts.files)
        grouped = self.groups.groups(self.find, self.entries) if self.groups is not None else []
        sitemap = None
        if self.sitemap is not None and self.read_sitemap:
            sitemap = self.sitemap.section(self.find, facts.start_urls)
        closing: Closing = {}
        if sitemap:
            closing["sitemap"] = sitemap
        if fixes:
            closing["redirect_fixes"] = fixes
        if grouped:
            closing["groups"] = grouped
        return closing


class Closing(TypedDict, total=False):
    """The report's sections after its entries, those that have something
    to say (:meth:`Sections.closing`), in the report's order."""

    sitemap: SitemapFindings
    redirect_fixes: list[RedirectFix]
    groups: list[TemplateGroup]


def shown(entry: Entry, policy: RecheckPolicy | None, now: float) -> UrlResult | None:
    """The entry's result as the report shows it (a failure in its grace
    period: ok)."""
    result = entry.result
    if result is not None and policy is not None:
        return policy.present(result, entry.failing_since, now)
    return result
