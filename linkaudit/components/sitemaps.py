"""Sitemaps as a source of URLs: the reader that finds them (the
``Sitemap:`` lines of the site's robots.txt, ``--sitemap``) and reads them.

A sitemap counts as linked from the start URLs (depth 1): it is checked like
any URL, and when it answers it is downloaded (near or far, capped at
LINKAUDIT_SITEMAP_MAXSIZE, gzip or not) and its ``<loc>`` URLs are links of
the sitemap, with their lines, one hop further; a sitemap index's sitemaps
are read in turn.  Robots.txt is the referrer of the sitemaps it names.

Sitemaps are bounded (a chain of distinct indexes would run for ever): an
index's sitemaps are read down to LINKAUDIT_SITEMAP_MAXDEPTH levels (the
given ones are level 1; the protocol lets only them be indexes, so 3 leaves
room for one more), at most LINKAUDIT_SITEMAP_MAXCOUNT per audit (per
worker of a shared audit).  An index's sitemap past either bound is never
requested: it is ``unchecked``, its error naming the setting.  A sitemap
that robots.txt names past the count is checked as a link, not read.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

from linkaudit.audit import Audit
from linkaudit.components.answers import Reply
from linkaudit.components.discovery import Discovery
from linkaudit.items import Outcome, SitemapListing
from linkaudit.meta import SITEMAP
from linkaudit.rules.judge import Verdict
from linkaudit.rules.pagelinks import unrecorded_out
from linkaudit.rules.sitemap import parse_sitemap

logger = logging.getLogger(__name__)
SITEMAP_DEPTH = 1


class Sitemaps:
    """The sitemaps of the audit: found, admitted within the bounds, read."""

    def __init__(self, audit: Audit, discovery: Discovery):
        self.audit = audit
        self.config = audit.config
        self.state = audit.state
        self.rules = audit.rules
        self.discovery = discovery
        # the sitemaps this process admitted, by nesting level (1: given or
        # named by robots.txt); a sitemap another worker admitted has its
        # depth as level (never less)
        self.levels: dict[str, int] = {}

    def given_sitemaps(self) -> Iterator[Any]:
        """``--sitemap`` URLs, discovered with the start URLs."""
        urls = list(self.config["LINKAUDIT_SITEMAPS"])
        self.state.mark(SITEMAP, self.admit(urls, 1)[0])
        for url in urls:
            yield from self.discovery.discover(url, SITEMAP_DEPTH, None, judge=True)

    def robots_sitemaps(self, url: str, sitemaps: list) -> None:
        """The ``Sitemap:`` lines of a robots.txt of the site's own hosts."""
        origin = urlsplit(url)[:2]
        if not sitemaps or origin not in {urlsplit(p)[:2] for p in self.config.near_prefixes}:
            return
        keys: dict[str, None] = {}
        for value, line in sitemaps:
            # a signal handler yields no results: only URLs to check are taken
            key, outcome, _error = self.rules.resolve(value, url)
            if outcome is None and self.rules.judge(key).outcome is None:
                keys[key] = None
                self.state.add_referrer(key, url, line)
            else:
                logger.info("robots.txt %s line %d: sitemap %r not read", url, line, value)
        admitted, reason = self.admit(list(keys), 1)
        if reason:
            logger.info("robots.txt %s: sitemaps past the first not read: %s", url, reason)
        self.state.mark(SITEMAP, admitted)
        for key, new in zip(keys, self.state.discover_many(list(keys), SITEMAP_DEPTH), strict=True):
            if new:
                self.state.enqueue(key, SITEMAP_DEPTH, url)

    def admit(self, urls: list[str], level: int) -> tuple[list[str], str | None]:
        """Which of ``urls``, sitemaps at nesting ``level``, are read; and
        why the others are not (None: all are)."""
        maxdepth = self.config["LINKAUDIT_SITEMAP_MAXDEPTH"]
        if level > maxdepth:
            return [], (
                f"Not checked: sitemap index nested deeper than {maxdepth} "
                "(LINKAUDIT_SITEMAP_MAXDEPTH)"
            )
        levels = self.levels
        maxcount = self.config["LINKAUDIT_SITEMAP_MAXCOUNT"]
        admitted = []
        for url in urls:
            if url in levels or len(levels) < maxcount:
                levels.setdefault(url, level)
                admitted.append(url)
        if len(admitted) == len(urls):
            return admitted, None
        self.audit.count("linkaudit/sitemaps_skipped", len(urls) - len(admitted))
        return admitted, f"Not checked: more than {maxcount} sitemaps (LINKAUDIT_SITEMAP_MAXCOUNT)"

    def read(self, reply: Reply) -> Iterator[Any]:
        """A sitemap downloaded: its URLs are discovered, its result has them
        as links (lines of their ``<loc>``)."""
        url, depth = reply.url, reply.depth
        parsed = parse_sitemap(reply.body, self.config["LINKAUDIT_SITEMAP_MAXSIZE"])
        if parsed.error:
            logger.warning("Sitemap %s: %s", url, parsed.error)
        links: list[tuple[str, int | None]] = []
        verdicts: dict[str, Verdict] = {}
        for loc, line in parsed.entries:
            # one bad <loc> costs only itself
            verdict = self.discovery.resolve_link(loc, url, url, line)
            verdicts.setdefault(verdict.key, verdict)
            links.append((verdict.key, line))
        if parsed.kind == "sitemapindex":
            wanted = [k for k, v in verdicts.items() if v.outcome is None]
            level = self.levels.get(url, depth) + 1
            admitted, reason = self.admit(wanted, level)
            self.state.mark(SITEMAP, admitted)
            if reason:  # never requested: unchecked, the reason said
                logger.info(
                    "Sitemap index %s: %d sitemaps not read: %s",
                    url,
                    len(wanted) - len(admitted),
                    reason,
                )
                for key in set(wanted).difference(admitted):
                    verdicts[key] = Verdict(key, Outcome.UNCHECKED, reason)
        found = []
        news = self.state.discover_many(list(verdicts), depth + 1)
        unrecorded: set[str] = set()  # past --max-urls
        for key, new in zip(verdicts, news, strict=True):
            if new:
                found.extend(self.discovery.place_link(key, depth + 1, url, verdicts[key]))
            elif new is None:
                unrecorded.add(key)
        if unrecorded:
            links, _ = unrecorded_out(links, None, unrecorded)
        # every listing, repeats included: the report counts them against referrers
        urls = [key for key, _line in links if verdicts[key].outcome is None]
        listed: SitemapListing = {"kind": parsed.kind, "urls": urls}
        yield self.audit.result(reply, Outcome.OK, links=links, sitemap=listed)
        yield from found
