"""The report's offline verdict: when the machine the audit ran on seems
to have had no network (``rules/offline.py``), the far links that failed for
want of one are ``unchecked``, "no network", not broken; the report says so
in its ``offline`` section and ``summary.offline``, and every format says
it in its first line (``formats/offline.py``).

Decided as the report is written, from the recorded results (the one pass
of ``sections.Sections``), like a redirect loop: so every door tells the
same (the crawl, a build's walk, ``scrapy crawl``, a shared audit's report
from Redis, ``linkaudit report``), and the feeds get the entries again as
revised items (``revisions.py``).  The state keeps each result as checked.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from linkaudit.items import Outcome
from linkaudit.output.report.records import OfflineSection, Report
from linkaudit.rules.offline import (
    answered,
    distinct_domains,
    host_of,
    is_no_network,
    no_network,
    seems_offline,
    unreached,
)
from linkaudit.state.base import Entry


class OfflineCheck:
    """Sees every entry of the one pass: the far hosts that answered and
    those whose links failed for want of a network; then decides."""

    def __init__(self, least: int) -> None:
        self.least = least  # LINKAUDIT_OFFLINE_HOSTS: distinct domains needed
        self.answered: set[str] = set()
        self.failed: dict[str, list[str]] = {}  # host -> its URLs that failed so
        self.urls: set[str] = set()  # after decide(): the URLs left unchecked

    def see(self, entry: Entry) -> None:
        result = entry.result
        if result is None or result.near:
            return
        host = host_of(entry.url)
        if host is None:
            return
        if answered(result):
            self.answered.add(host)
            self.failed.clear()  # (nothing will be unchecked: keep no list)
        elif not self.answered and unreached(result):
            self.failed.setdefault(host, []).append(entry.url)

    def decide(self) -> set[str]:
        """The URLs to show ``unchecked`` (none unless the machine seems
        offline)."""
        if seems_offline(len(self.answered), self.failed, self.least):
            self.urls = {url for urls in self.failed.values() for url in urls}
        return self.urls

    def section(self) -> OfflineSection | None:
        """The report's ``offline`` section, None when the rule did not fire."""
        if not self.urls:
            return None
        return {
            "failed_domains": distinct_domains(self.failed),
            "failed_hosts": len(self.failed),
            "answered": 0,
            "urls": len(self.urls),
        }


def offline_entry(entry: Entry) -> Entry:
    """A far link that failed for want of a network, as the report shows it:
    ``unchecked``, its failure kept in the words (``Not checked: no network
    (DNS lookup failed for x.example)``)."""
    assert entry.result is not None
    result = entry.result
    shown = dataclasses.replace(result, outcome=Outcome.UNCHECKED, error=no_network(result.error))
    return entry._replace(result=shown)


def carried_keys(report: Report, baseline: Iterable[str] | None) -> list[str]:
    """The baseline's broken URLs this audit left unchecked for want of a
    network: the audit database keeps them as broken (this audit knows
    nothing new of them), so the next audit with a network does not call
    them new, nor this one fixed."""
    if not baseline or not report.get("offline"):
        return []
    before = set(baseline)
    return [u["url"] for u in report["urls"] if is_no_network(u) and u["url"] in before]
