"""A local build checked at file speed: a walk of its files, breadth-first
from the start URL, under the static-host rules (``linkaudit/localbuild/static.py``),
with the crawl's own discovery (``linkaudit/components/discovery.py``) and state.

Each URL of the build's origin is answered as the download handler answers
it (``linkaudit/localbuild/handler.py``): a page is read from disk, decoded
as Scrapy decodes a response, and scanned; any other URL is one lookup of
its file, never read.  Nothing of the crawl's per-request machinery (no
Request, no middleware, no signal, no reactor) is in the path, which is what
makes it about ten times cheaper per file.  The results are the items the
crawl would have produced for the same build, and the request counts those
its ``GET``s (and ``HEAD``s for URLs of the origin outside the site) would
have been: ``tests/test_local_build.py`` holds both routes to one report.

URLs of other origins (far links) are left in the state's frontier, at the
depth they were found: the crawl checks them (``linkaudit/localbuild/walk.py``).
"""

from __future__ import annotations

import logging
import os
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from linkaudit.components.discovery import Discovery
from linkaudit.demo.server import content_type
from linkaudit.items import UrlResult, page_stats
from linkaudit.localbuild.decoding import decoded
from linkaudit.localbuild.reading import PageJob, PageRead, read_file, read_job
from linkaudit.localbuild.static import answer, outside_warning, served_path
from linkaudit.meta import ANCHORS
from linkaudit.rules.html import extract_links
from linkaudit.rules.judge import LinkRules
from linkaudit.rules.statuses import (
    BROKEN,
    FALLBACK,
    OK,
    REDIRECT,
    UNCHECKED,
    internal_error,
    judge_status,
    media_type,
    status_text,
    unchecked_reason,
)
from linkaudit.rules.urls import InvalidURL, canonicalize
from linkaudit.state.base import AuditState, Pending

if TYPE_CHECKING:
    from linkaudit.config import Config

logger = logging.getLogger(__name__)


class BuildWalk:
    """The walk of one build directory (``LINKAUDIT_LOCAL_DIR``), served at
    the first start URL."""

    def __init__(self, config: Config, state: AuditState):
        self.config = config
        self.state = state
        self.start_urls = list(config.start_urls)
        self.max_depth = config.max_depth
        self.rules = LinkRules(
            config.near_prefixes, config.guards, config["URLLENGTH_LIMIT"], config.root_mapping
        )
        self.html_types = frozenset(t.lower() for t in config["LINKAUDIT_HTML_TYPES"])
        self.css = config["LINKAUDIT_CSS"]
        self.css_types = frozenset(t.lower() for t in config["LINKAUDIT_CSS_TYPES"] if self.css)
        self.scan_types = self.html_types | self.css_types
        self.check_fragments = config["LINKAUDIT_CHECK_FRAGMENTS"]
        self.templates = config["LINKAUDIT_TEMPLATES"]
        self.soft_404 = config["LINKAUDIT_SOFT_404"] != "off"
        self.accept = config["LINKAUDIT_ACCEPT_STATUS"]
        self.maxsize = config["LINKAUDIT_PAGE_MAXSIZE"]
        self.link_faults: set[str] = set()
        self.stats: Counter[str] = Counter()
        self.netloc = urlsplit(self.start_urls[0]).netloc
        self.base_path = served_path(self.start_urls[0])
        self.root = config["LINKAUDIT_LOCAL_DIR"]
        self.items: list[UrlResult] = []
        self.elsewhere: list[Pending] = []  # other origins: the crawl's
        self.discovery = Discovery(config, self.rules, state, self._count, self.link_faults)

    # -- what Discovery is given ----------------------------------------------------
    def is_near(self, url: str) -> bool:
        return self.rules.is_near(url)

    def _count(self, name: str, count: int = 1) -> None:
        self.stats[name] += count

    @property
    def requests(self) -> int:
        """The requests the crawl would have sent to the build's origin."""
        return self.stats["requests"]

    # -- the walk ------------------------------------------------------------
    def run(
        self,
        stopped: Callable[[], bool] = lambda: False,
        progress: Callable[[BuildWalk], None] = lambda walk: None,
    ) -> None:
        """Walk level by level (depths are shortest, as the crawl's) until
        the build's URLs are all checked or ``stopped()`` says so (asked
        before each URL); other origins' URLs go back to the frontier for
        the crawl.  ``progress``
        is called after each URL of the build (a status line, when drawn)."""
        for url in self.start_urls:
            self.items.extend(self.discovery.discover(url, 0, None))
        if self.config["ROBOTSTXT_OBEY"]:
            self._count("requests")  # the crawl asks for robots.txt (a 404: no file)
        while not stopped():
            level = self.state.next_level()
            if not level:
                break
            logger.debug("Walking depth %d: %d URLs", level[0].depth, len(level))
            for index, pending in enumerate(level):
                if stopped():  # inside a level too: one level can be the whole build
                    for left in level[index:]:  # still waiting, as the crawl leaves them
                        self.state.enqueue(left.url, left.depth, left.referer)
                    break
                if urlsplit(pending.url).netloc == self.netloc and pending.url.startswith("http:"):
                    self.items.extend(self._checked(pending))
                    progress(self)
                else:
                    self.elsewhere.append(pending)
        for pending in self.elsewhere:
            self.state.enqueue(pending.url, pending.depth, pending.referer)
        logger.info(
            "Walked the build: %d files asked for, %d URLs left for the crawl",
            self.requests,
            len(self.elsewhere),
        )

    def _page_job(self, path: Path | None, kind: str) -> PageJob:
        return PageJob(
            path,
            content_type(path.name) if path else "text/html",
            self.maxsize,
            kind in self.css_types,
            self.css,
            self.check_fragments,
            self.config["LINKAUDIT_PAGE_MAXLINKS"],
            self.templates,
            self.soft_404 and kind in self.html_types,
        )

    def _result(self, url: str, depth: int, outcome: str, **fields: Any) -> UrlResult:
        return UrlResult(url=url, near=self.is_near(url), outcome=outcome, depth=depth, **fields)

    def _checked(self, pending: Pending) -> list[UrlResult]:
        """:meth:`_check`, an exception of ours an internal error of that
        URL (``unchecked``), as the crawl makes one of a failed download."""
        try:
            return list(self._check(pending))
        except Exception as exc:
            self.discovery.link_fault(pending.url, f"checking {pending.url}")
            error = internal_error(exc)
            return [self._result(pending.url, pending.depth, UNCHECKED, error=error)]

    def _check(self, pending: Pending) -> Iterator[UrlResult]:
        """One URL of the build's origin, answered from the files: a near
        URL is asked with GET (the command's local default), any other with
        HEAD first, as the crawl asks them."""
        url, depth = pending.url, pending.depth
        near = self.is_near(url)
        found = answer(self.root, self.base_path, urlsplit(url).path or "/")
        method = "GET" if near else "HEAD"
        self._count("requests")
        if found.outside is not None:  # a symbolic link out of the build: never read
            kind = media_type(content_type(os.path.basename(found.outside)))
            warning = outside_warning(found.outside)
            yield self._result(
                url, depth, OK, status=200, method=method, content_type=kind, warning=warning
            )
            return
        status = found.status
        body = found.file  # the file sent: the page, or the site's 404.html
        kind = media_type(content_type(body.name)) if status == 200 and body else "text/html"
        verdict = judge_status(status, {}, head=method == "HEAD", accept=self.accept)
        if verdict == FALLBACK:  # a HEAD that failed is asked again with GET
            self._count("requests")
            method = "GET"
            verdict = judge_status(status, {}, head=False, accept=self.accept)
        fields = {"status": status, "method": method, "content_type": kind}
        if verdict == REDIRECT and found.location is not None:
            yield from self._redirected(pending, found.location, fields)
        elif verdict == OK and near and method == "GET" and kind in self.scan_types:
            read = read_job(self._page_job(body, kind))  # the site's 404 page if accepted
            yield from self._page(url, depth, read, kind, fields)
        elif verdict == OK:
            anchors = self._anchors(url, body, kind) if status == 200 else None
            if anchors is not None:  # answered by the GET that read them
                fields["method"] = "GET"
            yield self._result(url, depth, OK, anchors=anchors, **fields)
        elif verdict == BROKEN:
            yield self._result(url, depth, BROKEN, error=status_text(status), **fields)
        else:
            error = unchecked_reason(status, {})
            yield self._result(url, depth, "unchecked", error=error, **fields)

    def _redirected(
        self, pending: Pending, location: str, fields: dict[str, Any]
    ) -> Iterator[UrlResult]:
        """The directory's 301 to its slash: the target is a link of the URL."""
        url, depth = pending.url, pending.depth
        try:
            target = canonicalize(location, url)
        except InvalidURL as exc:  # cannot happen for our own Location, but as the crawl says it
            error = f"Invalid redirect Location {location!r}: {exc}"
            yield self._result(url, depth, BROKEN, error=error, **fields)
            return
        error, target, found = self.discovery.redirect_target(url, target, depth, pending.referer)
        if error is not None:
            yield self._result(url, depth, BROKEN, error=error, location=target, **fields)
            return
        error = status_text(fields["status"])
        yield self._result(
            url, depth, REDIRECT, error=error, location=target, links=[(target, None)], **fields
        )
        yield from found

    def _page(
        self, url: str, depth: int, read: PageRead | OSError, kind: str, fields: dict[str, Any]
    ) -> Iterator[UrlResult]:
        """A near page (or stylesheet), read: its result with its links,
        then the results of its new links settled on sight."""
        if isinstance(read, OSError):  # gone or unreadable since it was found: as the handler
            fields = {**fields, "status": 404, "content_type": "text/html"}
            yield self._result(url, depth, BROKEN, error=status_text(404), **fields)
            return
        if read.truncated:
            self.discovery.note_truncated(url)
        stylesheet = kind in self.css_types
        scanned = self.discovery.place_page(read.links, url, depth, stylesheet)
        stats, soft = None, {}
        if kind in self.html_types:
            stats = page_stats(read.size, None, len(scanned.links), scanned.images)
            if read.said is not None:
                soft = {"soft_404": True, "warning": f"soft 404: the page says {read.said!r}"}
        yield self._result(
            url,
            depth,
            OK,
            links=scanned.links,
            truncated=read.truncated or bool(scanned.dropped),
            links_dropped=scanned.dropped,
            page=stats,
            anchors=scanned.anchors,
            fragments=scanned.fragments,
            blocks=scanned.blocks,
            **soft,
            **fields,
        )
        yield from scanned.found

    def _anchors(self, url: str, path: Path | None, kind: str | None) -> list[str] | None:
        """A page of the origin outside the site, read for its anchors only
        when fragments are checked and a link points at one of them (the
        crawl's GET after the HEAD)."""
        if not (
            self.check_fragments
            and kind in self.html_types
            and not self.is_near(url)
            and self.state.marked(ANCHORS, url)
        ):
            return None
        self._count("requests")
        try:
            body, _truncated = read_file(path, self.maxsize)
        except OSError:
            return []
        text = decoded(content_type(path.name) if path else "text/html", body)[: self.maxsize]
        return sorted(extract_links(text, anchors=True).anchors or ())
