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
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from linkaudit.audit import Audit, link_rules
from linkaudit.components.answers import FILE, Reply
from linkaudit.components.discovery import Discovery
from linkaudit.components.pages import Pages
from linkaudit.components.path import CheckPath
from linkaudit.components.probes import Probes
from linkaudit.components.replay import Replay
from linkaudit.components.sitemaps import Sitemaps
from linkaudit.items import Method, Outcome, UrlResult
from linkaudit.localbuild.decoding import decoded
from linkaudit.localbuild.inventory import BuildPages
from linkaudit.localbuild.pool import (
    MIN_PAGES,
    Job,
    PageReader,
    ReadAhead,
    can_fork,
    processes,
    start,
)
from linkaudit.localbuild.reading import read_file
from linkaudit.localbuild.serving import content_type
from linkaudit.localbuild.static import Answer as Served
from linkaudit.localbuild.static import answer, outside_warning, served_path
from linkaudit.rules.decisions import HEAD, first_phase
from linkaudit.rules.soft404 import is_probe
from linkaudit.rules.statuses import internal_error, media_type
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
        self.audit = audit = Audit(config, link_rules(config), state, None, None)
        audit.counter = self._count
        self.rules = audit.rules
        self.scan_types = audit.scan_types
        self.maxsize = config["LINKAUDIT_PAGE_MAXSIZE"]
        self.head_first = config["LINKAUDIT_HEAD_FIRST"]
        self.link_faults = audit.link_faults
        self.stats: Counter[str] = Counter()
        self.netloc = urlsplit(config.build_url).netloc
        self.base_path = served_path(config.build_url)
        self.root = config["LINKAUDIT_LOCAL_DIR"]
        self.items: list[UrlResult] = []
        self.elsewhere: list[Pending] = []  # other origins: the crawl's
        # every page of the build, linked or not (inventory.py); --depth: the linked ones
        self.pages = audit.build = BuildPages(
            self.root, config.build_url, enumerate_unread=self.max_depth is None
        )
        # the crawl's components, on answers read from the files
        self.discovery = Discovery(config, self.rules, state, self._count, self.link_faults)
        probes = Probes(audit)
        self.path = CheckPath(
            audit,
            Pages(audit, self.discovery, probes),
            probes,
            Sitemaps(audit, self.discovery),
            Replay(audit, self.discovery),
            _Ask,
        )
        # LINKAUDIT_JOBS: the processes that read the pages (pool.py), made
        # for the first level worth them; the answers looked up for them
        self.jobs = processes(config["LINKAUDIT_JOBS"])
        self.pool: ReadAhead | None = None
        self.found: dict[str, Served] = {}

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
            if not level and not self.pages.feed(self.state, self.rules.judge, stopped):
                break  # every link followed, every page of the build read
            if not level:
                continue
            logger.debug("Walking depth %d: %d URLs", level[0].depth, len(level))
            self._read_ahead(level)
            for index, pending in enumerate(level):
                if stopped():  # inside a level too: one level can be the whole build
                    for left in level[index:]:  # still waiting, as the crawl leaves them
                        self.state.enqueue(left.url, left.depth, left.referer)
                    self.close()  # (the pages read ahead are not waited for)
                    break
                if self._ours(pending.url):
                    self.items.extend(self._checked(pending))
                    progress(self)
                else:
                    self.elsewhere.append(pending)
            self.found.clear()
            if self.pool is not None:
                self.pool.forget()
        for pending in self.elsewhere:
            self.state.enqueue(pending.url, pending.depth, pending.referer)
        logger.info(
            "Walked the build: %d files asked for, %d URLs left for the crawl",
            self.requests,
            len(self.elsewhere),
        )

    def close(self) -> None:
        """End the processes that read the pages, if any."""
        if self.pool is not None:
            self.pool.close()
            self.pool = None
            self.discovery.ready = None

    def _ours(self, url: str) -> bool:
        """A URL of the build's origin: answered from the files."""
        return urlsplit(url).netloc == self.netloc and url.startswith("http:")

    def _answer(self, url: str) -> Served:
        found = self.found.pop(url, None)  # looked up already for the pool
        return found or answer(self.root, self.base_path, urlsplit(url).path or "/")

    def _read_ahead(self, level: list[Pending]) -> None:
        """With more than one process: the level's pages the walk will
        scan (a near page or stylesheet of the build, found), handed to
        the pool in the walk's order, its answers kept for the walk."""
        if self.jobs < 2 or not (self.pool is not None or can_fork()):
            return
        jobs: list[Job] = []
        for pending in level:
            url = pending.url
            if not self._ours(url) or not self.is_near(url):
                continue
            found = self.found[url] = self._answer(url)
            if found.status != 200 or found.file is None or found.outside is not None:
                continue
            ctype = content_type(found.file.name)
            kind = media_type(ctype)
            if kind in self.scan_types:
                jobs.append(Job(url, str(found.file), ctype, kind in self.audit.css_types))
        if len(jobs) < MIN_PAGES:
            return
        if self.pool is None:
            workers = start(self.jobs, PageReader(self.discovery.scanner, self.maxsize))
            if workers is None:
                self.jobs = 1
                return
            self.pool = ReadAhead(workers)
            self.discovery.ready = self.pool.get
        self.pool.start_level(jobs)

    def _checked(self, pending: Pending) -> list[UrlResult]:
        """:meth:`_check`, an exception of ours an internal error of that
        URL (``unchecked``), as the crawl makes one of a failed download."""
        try:
            return list(self._check(pending))
        except Exception as exc:
            self.discovery.link_fault(pending.url, f"checking {pending.url}")
            error = internal_error(exc)
            return [self.audit.unchecked(pending.url, pending.depth, error)]

    def _check(self, pending: Pending) -> Iterator[UrlResult]:
        """One URL of the build's origin, answered from the files, as the
        crawl asks it (``first_phase``) and as the decision table says
        after each answer (``CheckPath``): a request the table asks for is
        answered from the files again."""
        url = pending.url
        found = self._answer(url)
        near = self.is_near(url)
        phase = first_phase(None, near, self.head_first, is_probe(url))
        self._count("requests")
        if found.outside is not None:  # a symbolic link out of the build: never read
            # (the crawl's localbuild/middleware.py says the same of the handler's answer)
            ctype = content_type(os.path.basename(found.outside))
            method = Method.HEAD if phase == HEAD else Method.GET
            headers = {b"Content-Type": ctype.encode("latin-1")}
            reply = Reply(url, pending.depth, phase, method, 200, headers, via=FILE)
            yield self.audit.result(reply, Outcome.OK, warning=outside_warning(found.outside))
            return
        for _turn in range(8):  # a check is at most a few requests (rules/decisions.py)
            out = list(self.path.on_reply(self._reply(pending, phase, found)))
            if len(out) == 1 and isinstance(out[0], _Ask):
                self._count("requests")
                phase = out[0].phase
                continue
            yield from out
            return
        raise RuntimeError(f"the check of {url} asked for more than 8 requests")

    def _reply(self, pending: Pending, phase: str, found: Served) -> Reply:
        """The answer the build's server would give to a request of the
        check in ``phase``: its status and headers from the static-host
        rules, the file's body when the crawl would download it (a near
        page to scan, a page's anchors)."""
        url = pending.url
        status, path = found.status, found.file  # the file sent: the page, or the 404 page
        ctype = content_type(path.name) if status == 200 and path else "text/html"
        headers = {b"Content-Type": ctype.encode("latin-1")}
        location = location_error = None
        if found.location is not None:  # the directory's 301 to its slash
            try:
                location = canonicalize(found.location, url)
            except InvalidURL as exc:  # never for our own Location, but as the crawl says it
                location_error = f"Invalid redirect Location {found.location!r}: {exc}"
        method = Method.HEAD if phase == HEAD else Method.GET
        body, truncated, read = b"", False, False
        if method == Method.GET and self._downloads(url, phase, ctype):
            try:
                body, truncated = read_file(path, self.maxsize)
                read = True
                if status == 200 and path is not None:  # (not the site's 404.html)
                    self.pages.read(url, str(path))
            except OSError:  # gone or unreadable since it was found: as the handler
                status, headers = 404, {b"Content-Type": b"text/html"}
        return Reply(
            url,
            pending.depth,
            phase,
            method,
            status,
            headers,
            body=body,
            decode=(lambda: decoded(ctype, body)) if read else lambda: None,
            truncated=truncated,
            location=location,
            location_error=location_error,
            referrer=pending.referer,
            via=FILE,
        )

    def _downloads(self, url: str, phase: str, ctype: str) -> bool:
        """Whether the crawl would download this GET's body
        (``components/gate.py``): a near page to scan (whatever its status:
        an accepted 404 page is scanned), or a page read for its anchors;
        every other GET stops at the headers."""
        near = self.is_near(url)
        return (near and media_type(ctype) in self.scan_types) or phase == "anchors"


class _Ask:
    """What the walk's path yields for "one more request of the check"."""

    __slots__ = ("phase",)

    def __init__(self, _reply: Reply, phase: str):
        self.phase = phase
