"""Soft 404s: the crawl's part (rules/soft404.py has the why).  A scanned
near HTML page gets its fingerprint, and a title or heading saying "not
found" marks it at once; the first page of each host and directory pattern
queues that pattern's probe, a URL that cannot exist, checked with one GET
like any URL (robots.txt, delays and limits apply, and it counts as a
request) but never reported: its answer is compared with the pages when the
report is written (output/report/soft404.py)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from linkaudit.audit import Audit
from linkaudit.components.answers import Reply
from linkaudit.items import Outcome
from linkaudit.rules.soft404 import fingerprint, pattern_of, probe_url, says_not_found


class Probes:
    """A scanned page's soft-404 fields, and the probes' answers."""

    def __init__(self, audit: Audit):
        config = audit.config
        self.audit = audit
        self.state = audit.state
        self.soft_404 = config["LINKAUDIT_SOFT_404"]
        self.soft_404_probes = self.soft_404 != "off" and config["LINKAUDIT_SOFT_404_PROBES"]
        self.max_depth = config.max_depth
        self.start_urls = "\n".join(config.start_urls)

    def soft_404_fields(self, reply: Reply) -> dict[str, Any]:
        """A scanned HTML page's fingerprint (and its verdict when its title
        says not found); its pattern's probe queued the first time."""
        text, url, depth = reply.text, reply.url, reply.depth
        if self.soft_404 == "off" or text is None:
            return {}
        fields: dict[str, Any] = {}
        if self.soft_404_probes:  # compared with the probes' answers only
            fields["fingerprint"] = fingerprint(text)
        said = says_not_found(text)
        if said is not None:
            fields["soft_404"] = True
            fields["warning"] = f"soft 404: the page says {said!r}"
        if self.soft_404_probes and (self.max_depth is None or depth + 1 <= self.max_depth):
            probe = probe_url(pattern_of(url), self.start_urls)
            if self.state.discover(probe, depth + 1):
                self.state.enqueue(probe, depth + 1, None)
        return fields

    def probe_result(self, reply: Reply, verdict: str) -> Iterator[Any]:
        """A probe's answer: its status and, when it is HTML, its fingerprint."""
        body = reply.text or ""
        outcome = {"ok": Outcome.OK, "redirect": Outcome.REDIRECT}.get(verdict, Outcome.BROKEN)
        yield self.audit.result(reply, outcome, fingerprint=fingerprint(body) if body else None)
