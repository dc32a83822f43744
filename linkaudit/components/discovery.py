"""Discovery: the links of a scanned page, and what becomes of each URL the
first time the audit meets it (settled now, or queued to be checked).

Scrapy-free: the crawl's readers and the walk of a local build
(``linkaudit/localbuild/files.py``) share it.

One link never costs its page: an exception of ours while reading or
placing one link value is an internal error of that link alone (its entry
``unchecked``, ``Internal error: ...``, an ERROR with the traceback in the
log, once per URL), and the page's other links are checked as usual.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple, Protocol

from linkaudit.components.scanning import PageScan, Prepared, not_a_page
from linkaudit.config import Config
from linkaudit.items import Outcome, UrlResult
from linkaudit.meta import ANCHORS
from linkaudit.rules.judge import LinkRules, Verdict
from linkaudit.rules.pagelinks import Links, PageLinks, unrecorded_out
from linkaudit.rules.statuses import internal_error
from linkaudit.rules.templates import page_blocks
from linkaudit.rules.urls import clean
from linkaudit.state.base import AuditState

logger = logging.getLogger(__name__)

SHOWN = 200  # characters of a link value quoted in the log (they reach 100 KB)


class Scanned(NamedTuple):
    links: Links
    images: int
    found: list[UrlResult]
    anchors: list[str] | None  # with --check-fragments, an HTML page's
    fragments: list[list[Any]] | None  # [target, fragment, line]
    blocks: list[list[Any]] | None  # where its links sit (rules/templates.py)
    dropped: int = 0  # links past LINKAUDIT_PAGE_MAXLINKS, not read
    not_page: str | None = None  # why the file is no page (its links not placed)


class Counter(Protocol):
    """Adds to a statistic: the crawl's stats' ``inc_value``, the walk's counter."""

    def __call__(self, key: str, count: int = 1, /) -> None: ...


class Discovery:
    """The component that meets URLs: a page's links and a redirect's
    target, settled on sight or queued in the state's frontier.  The crawl's
    readers and the walk of a build each have one."""

    def __init__(
        self,
        config: Config,
        rules: LinkRules,
        state: AuditState,
        count: Counter,
        link_faults: set[str],
    ):
        self.config = config
        self.rules = rules
        self.state = state
        self.count = count  # a statistic: the crawl's stats, the walk's counter
        self.link_faults = link_faults  # links an exception of ours hit (logged once)
        self.max_depth = config.max_depth
        self.check_fragments = config["LINKAUDIT_CHECK_FRAGMENTS"]
        self.scanner = PageScan.of(config, rules)
        # url, stylesheet -> the page read in another process (the walk's
        # pool, localbuild/pool.py), or None: read here
        self.ready: Callable[[str, bool], Prepared | None] | None = None

    def is_near(self, url: str) -> bool:
        return self.rules.is_near(url)

    def discover(
        self,
        url: str,
        depth: int,
        referer: str | None,
        outcome: Outcome | None = None,
        error: str | None = None,
        judge: bool = False,
    ) -> Iterator[UrlResult]:
        """Note a URL; the first time, settle it now or put it in the frontier.

        ``judge``: the URL (canonical) has not been judged yet (a link found
        on a page); it is judged here, only the first time it is seen."""
        if self.state.discover(url, depth):
            yield from self.place(url, depth, referer, outcome, error, judge)

    def place(
        self,
        url: str,
        depth: int,
        referer: str | None,
        outcome: Outcome | None,
        error: str | None,
        judge: bool,
    ) -> Iterator[UrlResult]:
        """A URL seen for the first time: settled now, or put in the frontier."""
        if judge:
            _key, outcome, error = self.rules.judge(url)  # http(s): the key is the URL
        if outcome is not None:
            yield UrlResult(
                url=url, near=self.is_near(url), outcome=outcome, depth=depth, error=error
            )
        elif self.max_depth is None or depth <= self.max_depth:
            self.state.enqueue(url, depth, referer)
        # else: beyond the depth limit, reported as unchecked

    def scan(
        self,
        text: str | None,
        url: str,
        depth: int,
        stylesheet: bool,
        truncated: bool = False,
        vet: Callable[[str], None] | None = None,
    ) -> Scanned:
        """The page's links, its number of images, the results of new links
        settled on sight and, with --check-fragments, its anchors and its
        links to fragments.  A near stylesheet (CSS) has its ``url()`` and
        ``@import`` links and nothing else.

        ``text``: the body decoded, None when it is not text (a PNG sent as
        text/html): no links.  ``vet``: a build's HTML file may be no page
        (an unrendered template), and is told why: then none of its links
        is placed.  What :attr:`ready` holds for the page (read in another
        process: ``localbuild/pool.py``) is taken instead of reading it
        here; the result is the same."""
        if truncated:
            self.note_truncated(url)
        if text is None:
            return Scanned([], 0, [], None, None, None)
        if truncated:  # the last chunk may reach past the cap; only cut pages are copied
            text = text[: self.config["LINKAUDIT_PAGE_MAXSIZE"]]
        page = self._ready(url, len(text), stylesheet, vet is not None)
        if page is None:
            read = self.read(text, stylesheet)
            why = self.scanner.unrendered(text, read, stylesheet) if vet is not None else None
            if why is None:
                return self.place_page(read, url, depth, stylesheet)
            page = not_a_page(len(text), why)
        if page.why is not None:
            assert vet is not None
            vet(page.why)
            return Scanned([], 0, [], None, None, None, not_page=page.why)
        self.note_dropped(url, page.dropped)
        return self.settle(page, url, depth, stylesheet)

    def _ready(self, url: str, length: int, stylesheet: bool, vetted: bool) -> Prepared | None:
        """The page as another process read it (:attr:`ready`), if it was
        read there, from this text (its length: a file changed since is
        read again here), as this scan reads it."""
        page = self.ready(url, stylesheet) if self.ready is not None else None
        if page is None or page.length != length or (page.why is not None and not vetted):
            return None
        return page

    def note_truncated(self, url: str) -> None:
        self.count("linkaudit/pages_truncated")
        maxsize = self.config["LINKAUDIT_PAGE_MAXSIZE"]
        logger.info("%s is larger than %d bytes: the rest was not read", url, maxsize)

    def note_dropped(self, url: str, dropped: int) -> None:
        if dropped:
            self.count("linkaudit/links_dropped", dropped)
            logger.info(
                "%s has more than %d links: %d more were not read (LINKAUDIT_PAGE_MAXLINKS)",
                url,
                self.config["LINKAUDIT_PAGE_MAXLINKS"],
                dropped,
            )

    def read(self, text: str, stylesheet: bool) -> PageLinks:
        return self.scanner.read(text, stylesheet)

    def place_page(self, read: PageLinks, url: str, depth: int, stylesheet: bool) -> Scanned:
        """What a page's links become: URLs resolved once each (a value
        our code fails on: that link's internal error), then
        :meth:`settle`."""
        self.note_dropped(url, read.dropped)

        def resolve(value: str, base: str, line: int | None) -> Verdict:
            return self.resolve_link(value, base, url, line)

        page = self.scanner.resolved(read, 0, url, stylesheet, resolve)
        return self.settle(page, url, depth, stylesheet)

    def settle(self, page: Prepared, url: str, depth: int, stylesheet: bool) -> Scanned:
        """A page's resolved links placed: the state asked once for the
        page, the new URLs settled or queued."""
        links, fragments = page.links, page.fragments
        found: list[UrlResult] = []
        unrecorded: set[str] = set()  # past --max-urls
        keys = page.keys
        for key, new in zip(keys, self.state.discover_many(keys, depth + 1), strict=True):
            if new:
                found.extend(self.place_link(key, depth + 1, url, page.verdict(key)))
            elif new is None:
                unrecorded.add(key)
        if unrecorded:
            links, fragments = unrecorded_out(links, fragments, unrecorded)
        if fragments:
            self.state.mark(ANCHORS, list(dict.fromkeys(f[0] for f in fragments)))
        blocks = None
        if not stylesheet:  # the report's pages are HTML pages
            self.count("linkaudit/pages")
            if page.marks is not None:
                blocks = page_blocks(links, page.marks, page.head)
        logger.debug("Scanned %s: %d links", url, len(links))
        return Scanned(
            links,
            page.images,
            found,
            page.anchors,
            fragments or None,
            blocks,
            page.dropped,
        )

    def resolve_link(self, value: str, base: str, page: str, line: int | None) -> Verdict:
        """A link value's verdict (``LinkRules.resolve``); an exception of
        ours makes it an internal error of this link, keyed as written."""
        try:
            return self.rules.resolve(value, base)
        except Exception as exc:
            key = clean(value)
            self.link_fault(key, f"reading the link {value[:SHOWN]!r} on {page} line {line}")
            return Verdict(key, Outcome.UNCHECKED, internal_error(exc))

    def place_link(self, key: str, depth: int, page: str, verdict: Verdict) -> list[UrlResult]:
        """:meth:`_place` for a new link of a page, an exception of ours an
        internal error of that link (not of the page, not of the crawl)."""
        _key, outcome, error = verdict
        try:
            return list(self.place(key, depth, page, outcome, error, outcome is None))
        except Exception as exc:
            self.link_fault(key, f"judging the link {key[:SHOWN]!r} found on {page}")
            error = internal_error(exc)
            return [
                UrlResult(
                    url=key,
                    near=self.is_near(key),
                    outcome=Outcome.UNCHECKED,
                    depth=depth,
                    error=error,
                )
            ]

    def link_fault(self, key: str, what: str) -> None:
        """The ERROR and its traceback (called in an ``except``), once per
        URL: a faulty link in every page's footer is one report, not one per page."""
        if key in self.link_faults:
            return
        self.link_faults.add(key)
        self.count("linkaudit/internal_errors")
        logger.error(
            "Internal error while %s (a bug in linkaudit: please report it with this log)",
            what,
            exc_info=True,
        )

    def redirect_target(
        self, url: str, location: str, depth: int, referrer: str | None
    ) -> tuple[str | None, str, list[UrlResult]]:
        """A redirect of ``url`` to ``location`` (canonical): its target is a
        link of the redirecting URL.  Returns the error that makes the
        redirect broken (None: it is a redirect), the target's key (as a
        page's link: a password in it masked, ``LINKAUDIT_EXCLUDE_USERINFO``;
        what the result's ``location`` says) and the results of a new
        target settled on sight.

        Each hop of a chain is a URL of the audit, checked on its own, so
        the chain is counted in the state (``hops``, shared by workers): a
        URL whose redirect would be the chain's ``REDIRECT_MAX_TIMES + 1``-th
        (browsers and Scrapy stop at 20) is broken, "Too many redirects",
        and its target is not requested.  One far link can then cost at most
        that many requests, not an endless audit."""
        key, outcome, error = self.rules.judge(location)  # already canonical
        hops = self.state.hops(url) + 1  # this answer is the chain's hops-th redirect
        limit = self.config["REDIRECT_MAX_TIMES"]
        if hops > limit:
            error = f"Too many redirects: {hops} in a row, more than {limit} (REDIRECT_MAX_TIMES)"
            return error, key, []
        if self.check_fragments and self.state.marked(ANCHORS, url):
            self.state.mark(ANCHORS, [key])  # a browser keeps the fragment
        # the target is discovered before the redirect's result is recorded:
        # a shared audit's level never closes with the target on its way;
        # its hops are noted before it is queued, where another worker may
        # take it.  Its request comes from the page that linked to the
        # redirect, as a browser's does (the report's referrer stays the
        # redirecting URL)
        found: list[UrlResult] = []
        if self.state.discover(key, depth + 1):
            self.state.set_hops(key, hops)
            found = list(self.place(key, depth + 1, referrer, outcome, error, False))
        return None, key, found
