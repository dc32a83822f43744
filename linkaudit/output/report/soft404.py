"""Soft 404s in the report: each scanned page compared with its pattern's
probe (rules/soft404.py), when the report is written, from the results
alone (so every door and mode agrees, whichever worker fetched what).

A soft 404 is a warning (``soft_404: true`` and ``warning``), counted in
``summary.soft_404``; with ``LINKAUDIT_SOFT_404 = "error"`` it is a broken
link.  The probes themselves are no links: never entries of the report.
"""

from __future__ import annotations

from linkaudit.items import Outcome
from linkaudit.output.report.records import (
    ReportEntry,
)
from linkaudit.rules.soft404 import is_probe, pattern_of, resemblance
from linkaudit.state.base import Entry


class Soft404s:
    def __init__(self, mode: str, similarity: float, probes: bool = True) -> None:
        self.error = mode == "error"
        self.similarity = similarity
        self.probes: dict[str, tuple[str, list[int]]] = {}  # pattern -> (probe, fingerprint)
        self.probed = probes  # whether the audit sent probes: then see() reads them

    def see(self, entry: Entry) -> None:
        """Read a probe's answer (every entry is seen, in the state's order,
        before any is judged): a pattern whose probe answered 200 with HTML
        is one whose missing pages look like pages."""
        if not self.probed:  # the audit sent no probes: none to read
            return
        result = entry.result
        if is_probe(entry.url) and result is not None and result.status == 200:
            if result.fingerprint:
                self.probes[pattern_of(entry.url)] = (entry.url, result.fingerprint)

    @staticmethod
    def skip(url: str) -> bool:
        return is_probe(url)

    def judge(self, entry: Entry, item: ReportEntry) -> bool:
        """Mark the entry when it is a soft 404; whether it is one."""
        result = entry.result
        if result is None or item["outcome"] != Outcome.OK:
            return False
        if not item.get("soft_404"):
            if result.fingerprint is None:
                return False
            probe = self.probes.get(pattern_of(entry.url))
            if probe is None or resemblance(result.fingerprint, probe[1]) < self.similarity:
                return False
            item["soft_404"] = True
            item["warning"] = (
                "soft 404: the page is the answer to a URL that cannot exist "
                f"({probe[0]} answers 200 with the same content)"
            )
        if self.error:
            item["outcome"], item["error"] = "broken", item["warning"]
        return True
