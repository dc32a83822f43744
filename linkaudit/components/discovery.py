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
from typing import Any, NamedTuple

from linkaudit.config import Config
from linkaudit.items import UrlResult
from linkaudit.meta import ANCHORS
from linkaudit.rules.fragments import fragment_of
from linkaudit.rules.judge import LinkRules, Verdict
from linkaudit.rules.pagelinks import Links, PageLinks, read_page, unrecorded_out
from linkaudit.rules.statuses import UNCHECKED, internal_error
from linkaudit.rules.templates import HEAD_TAGS, page_blocks
from linkaudit.rules.urls import InvalidURL, canonicalize, clean
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


class Discovery:
    """The component that meets URLs: a page's links and a redirect's
    target, settled on sight or queued in the state's frontier.  The crawl's
    readers and the walk of a build each have one."""

    def __init__(
        self,
        config: Config,
        rules: LinkRules,
        state: AuditState,
        count: Callable[[str, int], None],
        link_faults: set[str],
    ):
        self.config = config
        self.rules = rules
        self.state = state
        self.count = count  # a statistic: the crawl's stats, the walk's counter
        self.link_faults = link_faults  # links an exception of ours hit (logged once)
        self.max_depth = config.max_depth
        self.css = config["LINKAUDIT_CSS"]
        self.check_fragments = config["LINKAUDIT_CHECK_FRAGMENTS"]
        self.templates = config["LINKAUDIT_TEMPLATES"]

    def is_near(self, url: str) -> bool:
        return self.rules.is_near(url)

    def discover(
        self,
        url: str,
        depth: int,
        referer: str | None,
        outcome: str | None = None,
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
        outcome: str | None,
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
        vet: Callable[[str, PageLinks], str | None] | None = None,
    ) -> Scanned:
        """The page's links, its number of images, the results of new links
        settled on sight and, with --check-fragments, its anchors and its
        links to fragments.  A near stylesheet (CSS) has its ``url()`` and
        ``@import`` links and nothing else.

        ``text``: the body decoded, None when it is not text (a PNG sent as
        text/html): no links.  ``vet``: what says an HTML file read is no
        page (a build's unrendered template): then none of its links is
        placed."""
        if truncated:
            self.note_truncated(url)
        if text is None:
            return Scanned([], 0, [], None, None, None)
        if truncated:  # the last chunk may reach past the cap; only cut pages are copied
            text = text[: self.config["LINKAUDIT_PAGE_MAXSIZE"]]
        read = self.read(text, stylesheet)
        why = vet(text, read) if vet is not None and not stylesheet else None
        if why is not None:
            return Scanned([], 0, [], None, None, None, not_page=why)
        return self.place_page(read, url, depth, stylesheet)

    def note_truncated(self, url: str) -> None:
        self.count("linkaudit/pages_truncated")
        maxsize = self.config["LINKAUDIT_PAGE_MAXSIZE"]
        logger.info("%s is larger than %d bytes: the rest was not read", url, maxsize)

    def read(self, text: str, stylesheet: bool) -> PageLinks:
        return read_page(
            text,
            stylesheet,
            css=self.css,
            anchors=self.check_fragments,
            limit=self.config["LINKAUDIT_PAGE_MAXLINKS"],
            templates=self.templates,
        )

    def place_page(self, read: PageLinks, url: str, depth: int, stylesheet: bool) -> Scanned:
        """What a page's links become: URLs resolved once each, the state
        asked once for the page, the new ones settled or queued."""
        if read.dropped:
            self.count("linkaudit/links_dropped", read.dropped)
            logger.info(
                "%s has more than %d links: %d more were not read (LINKAUDIT_PAGE_MAXLINKS)",
                url,
                self.config["LINKAUDIT_PAGE_MAXLINKS"],
                read.dropped,
            )
        fragments: list[list[Any]] | None = [] if self.check_fragments else None
        base_url = url
        if read.base is not None:
            try:
                base_url = canonicalize(read.base, url)
            except InvalidURL:
                pass  # the Standard: a base that does not parse is ignored
        links: Links = []
        found: list[UrlResult] = []
        resolved: dict[str, Verdict] = {}
        head: set[str] = set()  # the URLs of the head's tags (rules/templates.py)
        templates = read.marks is not None and not stylesheet
        for value, line, tag in read.links:
            verdict = resolved.get(value)
            if verdict is None:
                verdict = resolved[value] = self.resolve_link(value, base_url, url, line)
            links.append((verdict[0], line))
            if templates and tag in HEAD_TAGS:  # only blocks use the head's URLs
                head.add(verdict[0])
            if fragments is not None and "#" in value and verdict[1] is None:
                fragment = fragment_of(value)
                if fragment:
                    fragments.append([verdict[0], fragment, line])
        # each URL once, in the order found; the state is asked once per page
        verdicts = {verdict[0]: verdict for verdict in resolved.values()}
        keys = list(verdicts)
        unrecorded: set[str] = set()  # past --max-urls
        for key, new in zip(keys, self.state.discover_many(keys, depth + 1), strict=True):
            if new:
                found.extend(self.place_link(key, depth + 1, url, verdicts[key]))
            elif new is None:
                unrecorded.add(key)
        if unrecorded:
            links, fragments = unrecorded_out(links, fragments, unrecorded)
        if fragments:
            self.state.mark(ANCHORS, list(dict.fromkeys(f[0] for f in fragments)))
        blocks = None
        if not stylesheet:  # the report's pages are HTML pages
            self.count("linkaudit/pages")
            if read.marks is not None:
                blocks = page_blocks(links, read.marks, head)
        logger.debug("Scanned %s: %d links", url, len(links))
        return Scanned(
            links,
            read.images,
            found,
            sorted(read.anchors) if read.anchors is not None else None,
            fragments or None,
            blocks,
            read.dropped,
        )

    def resolve_link(self, value: str, base: str, page: str, line: int | None) -> Verdict:
        """A link value's verdict (``LinkRules.resolve``); an exception of
        ours makes it an internal error of this link, keyed as written."""
        try:
            return self.rules.resolve(value, base)
        except Exception as exc:
            key = clean(value)
            self.link_fault(key, f"reading the link {value[:SHOWN]!r} on {page} line {line}")
            return Verdict(key, UNCHECKED, internal_error(exc))

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
                    url=key, near=self.is_near(key), outcome=UNCHECKED, depth=depth, error=error
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
