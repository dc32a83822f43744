"""The redirect fix-list (the report's ``redirect_fixes``): for every link
(page, line) to a URL that redirects, the chain resolved to its final URL
and the edit that removes it: "page P line L: replace X with Y".  And the
redirect loops: a URL whose chain never ends (A -> B -> A, A -> A, or a
chain into one) is broken, "Redirect loop", as a browser says; it has no fix.

From the results alone, in the report's one pass over the entries (the
redirects and their referrers), then the outcome of every URL the chains
reach, looked up: the same from every door, and no memory for audits
without redirects.

The same chains tell where a URL reached through redirects is linked: a
page that links ``/old``, which redirects to ``/gone``, is a place of
``/gone`` too (:meth:`RedirectFixes.through`), marked ``via`` the URL the
page links, as every format names it ("line 7, through /old").
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import cast
from urllib.parse import urlsplit

from linkaudit.items import FixKind, Outcome
from linkaudit.output.report.records import (
    Place,
    RedirectFix,
)
from linkaudit.rules.rendered import referrer_fields, source_line
from linkaudit.state.base import Entry

PERMANENT = frozenset({301, 308})
# A chain that comes back to a URL it passed is broken with the words
# browsers use (Firefox "The page isn't redirecting properly", Chrome's
# ERR_TOO_MANY_REDIRECTS after 20 hops): one request per URL of the loop.
LOOP = "Redirect loop"
# A browser gives up after 20 redirects in a row, and so does the crawl
# (REDIRECT_MAX_TIMES, default 20: the URL whose redirect would be the 21st is
# broken, "Too many redirects").  A chain still redirecting here (the crawl's
# limit raised, or chains that join) is cut and ends broken, as in a browser.
MAX_HOPS = 20


class RedirectFixes:
    """Sees every entry once as the report is written (:meth:`see`), then
    resolves the chains (:meth:`fixes`)."""

    def __init__(self) -> None:
        self.hops: dict[str, tuple[int, str]] = {}  # redirecting URL -> (status, location)
        # redirecting URL -> the pages' links to it (page, line): a source
        # line, or a rendered link's (rules/rendered.py), not another redirect
        self.places: dict[str, list[tuple[str, int]]] = {}
        self._reached: dict[str, list[str]] | None = None  # URL -> the redirects leading to it

    def see(self, entry: Entry) -> None:
        result = entry.result
        if result is not None and result.outcome == Outcome.REDIRECT and result.location:
            self.hops[entry.url] = (result.status or 0, result.location)
            links = [(page, n) for page, n in entry.referrers if n is not None]
            if links:
                self.places[entry.url] = links

    def through(self, url: str) -> list[Place]:
        """The pages' links that reach ``url`` through redirects (after
        :meth:`see` saw every entry): each a referrer of the report with
        ``via``, the redirecting URL the page links (the first of the
        chain), sorted by page and line.  As many as the chains' starts
        have places: a chain is 20 hops at most, and a loop ends it."""
        if self._reached is None:
            reached: dict[str, list[str]] = {}
            for start in self.places:
                for later in _chain(start, self.hops)[0][1:]:
                    reached.setdefault(later, []).append(start)
            self._reached = reached
        starts = self._reached.get(url, ())
        found = sorted((page, n, start) for start in starts for page, n in self.places[start])
        return [{**referrer_fields(page, n), "via": start} for page, n, start in found]

    def loops(self) -> set[str]:
        """The redirecting URLs whose chain comes back to a URL it passed
        (after :meth:`see` saw every entry): 20 steps at most each."""
        return {url for url in self.hops if _chain(url, self.hops)[1]}

    def fixes(
        self,
        find: Callable[[str], Entry | None],
        files: Callable[[str], str | None] | None = None,
    ) -> list[RedirectFix]:
        """One fix per link occurrence to a redirecting URL, sorted by page
        and line.  ``find``: a URL's entry, for the chains' ends; ``files``:
        a local build's page URL -> its file (``file``)."""
        if not self.places:
            return []
        hops = self.hops
        chains = {url: _chain(url, hops) for url in self.places}
        finals = {chain[-1] for chain, _loop in chains.values()}
        ends: dict[str, tuple[str, int | None]] = {}
        for final in finals:
            entry = find(final)
            if entry is not None and entry.result is not None:
                ends[final] = (entry.result.outcome, entry.result.status)
        fixes = []
        for url, linked in self.places.items():
            chain, loop = chains[url]
            if loop or not replaceable(chain[-1]):
                continue  # a broken link; no page is to link to javascript: or hold a password
            links = [(page, n) for page, n in linked if source_line(n) is not None]
            if not links:
                continue  # links only the rendered DOM has: no line to edit
            statuses = [hops[u][0] for u in chain if u in hops]
            if chain[-1] in hops:  # cut at MAX_HOPS: too many redirects
                end: tuple[str, int | None] = ("broken", hops[chain[-1]][0])
            else:
                end = ends.get(chain[-1], ("unchecked", None))
            fix = {
                "from": url,
                "to": chain[-1],
                "kind": FixKind.PERMANENT
                if all(s in PERMANENT for s in statuses)
                else FixKind.TEMPORARY,
                "statuses": statuses,
                "hops": len(statuses),
                "final_outcome": end[0],
                "final_status": end[1],
                "loop": False,  # kept for the contract: a loop is a broken link, no fix
            }
            for page, line in links:
                path = files(page) if files is not None else None
                fixes.append(
                    cast(  # (the chain's fields between the place and its file)
                        RedirectFix,
                        {"page": page, "line": line, **fix, **({"file": path} if path else {})},
                    )
                )
        fixes.sort(key=lambda f: (f["page"], f["line"], f["from"]))
        return fixes


def looped(entry: Entry) -> Entry:
    """A redirect in a loop, as the report shows it: broken, "Redirect loop"
    (its status and ``Location`` kept)."""
    assert entry.result is not None
    return entry._replace(
        result=dataclasses.replace(entry.result, outcome=Outcome.BROKEN, error=LOOP)
    )


def replaceable(url: str) -> bool:
    """A URL the fix-list may put in a page instead of a link: http(s),
    without a user name or password (a ``Location`` may name any scheme,
    and one with credentials is the link's key with them masked)."""
    return url.startswith(("http://", "https://")) and "@" not in urlsplit(url).netloc


def _chain(url: str, hops: dict[str, tuple[int, str]]) -> tuple[list[str], bool]:
    """The URLs from ``url`` to the first that does not redirect, and
    whether the chain loops (then it ends where the loop closes)."""
    chain, seen = [url], {url}
    while chain[-1] in hops and len(chain) <= MAX_HOPS:
        nxt = hops[chain[-1]][1]
        if nxt in seen:
            return chain, True
        chain.append(nxt)
        seen.add(nxt)
    return chain, False
