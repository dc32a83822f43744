"""Look the broken links up in a web archive once the crawl is idle
(``--archive``; see the package's doc and ``docs/guide/archive.md``).

The archive is a host like any other: its requests go through Scrapy's
engine and linkaudit's middlewares, so its robots.txt is read and obeyed,
``Retry-After`` holds it (``hosts/retryafter.py``), a host that does not
answer fails its other requests at once (``hosts/failures.py``), and its
download slot gets ``LINKAUDIT_ARCHIVE_DELAY`` (at least) and one request at
a time.  Its own limits are the audit's: at most ``LINKAUDIT_ARCHIVE_MAX``
requests an audit, one link walked at a time, and the first sign of trouble
that outlives the middlewares (a 429 or 5xx after ``Retry-After`` was
honoured, twice; no answer at all; robots.txt refusing) ends the look-ups
for this audit: the links left get a note, not a verdict, and are looked up
by the next audit.

When the link broke (the walk takes the copies made at or before it): the
first audit that saw it broken (an audit database, ``--db``), else the
``Last-Modified`` of the pages that link to it (the latest), else now (the
newest copy).  What a walk found is kept in the audit's state
(``note_archived``): with ``--db`` a copy found is never asked for again,
and "no good copy" only after ``LINKAUDIT_ARCHIVE_RECHECK`` days.

Why on ``spider_idle``: every link's verdict is known then, and Scrapy's
way to keep an idle spider open with more requests is this signal
(``DontCloseSpider``).  Each walk's next request is handed to the engine
from the previous one's callback, so the crawl is never idle in between.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

from scrapy import signals
from scrapy.crawler import Crawler
from scrapy.exceptions import DontCloseSpider, IgnoreRequest, NotConfigured
from scrapy.http import Request, Response
from twisted.python.failure import Failure

from linkaudit import internals
from linkaudit.audit import audit_of
from linkaudit.exceptions import HostHeld, RobotsBlocked, RobotsUnanswered
from linkaudit.items import Outcome, UrlResult
from linkaudit.memento.walk import Ask, Found, Walk
from linkaudit.meta import MAXSIZE
from linkaudit.network.failures import describe_failure, failed_exception, failed_request
from linkaudit.rules.memento import ArchiveNote, iso_date, iso_datetime, may_look_up

logger = logging.getLogger(__name__)

ARCHIVE = "la_archive"  # meta: a request of an archive look-up (not a link check)
TIMEMAP_MAXSIZE = 2 * 1024 * 1024  # a TimeMap read up to here (the newest copies may be cut)
COPY_MAXSIZE = 512 * 1024  # a copy's start: enough for its title and first heading
TROUBLES = 2  # 429s or 5xx in a row (after Retry-After) that end the look-ups


class ArchiveLookups:
    """Settings: ``LINKAUDIT_ARCHIVE`` (off), ``LINKAUDIT_ARCHIVE_SERVICE``,
    ``LINKAUDIT_ARCHIVE_MAX`` (50 requests), ``LINKAUDIT_ARCHIVE_TRIES`` (5
    copies a link), ``LINKAUDIT_ARCHIVE_DELAY`` (2.5 s),
    ``LINKAUDIT_ARCHIVE_RECHECK`` (30 days)."""

    def __init__(self, crawler: Crawler):
        audit = audit_of(crawler)
        if audit is None or not audit.config["LINKAUDIT_ARCHIVE"]:
            raise NotConfigured
        config = audit.config
        self.crawler = crawler
        self.state = audit.state
        self.service: str = config["LINKAUDIT_ARCHIVE_SERVICE"]
        self.host = urlsplit(self.service).hostname or ""
        self.max: int = config["LINKAUDIT_ARCHIVE_MAX"]
        self.tries: int = config["LINKAUDIT_ARCHIVE_TRIES"]
        self.delay: float = config["LINKAUDIT_ARCHIVE_DELAY"]
        self.recheck = timedelta(days=config["LINKAUDIT_ARCHIVE_RECHECK"])
        self.timeout: float = config["DOWNLOAD_TIMEOUT"]
        self.broken: dict[str, int] = {}  # broken URL -> its referrers, as found
        self.modified: dict[str, str] = {}  # page URL -> its Last-Modified (ISO)
        self.handled: set[str] = set()
        self.pending: list[str] = []
        self.walk: Walk | None = None
        self.ask: Ask | None = None
        self.asked = 0  # requests sent of LINKAUDIT_ARCHIVE_MAX
        self.troubles = 0
        self.stopped: str | None = None  # why no more look-ups this audit
        self.past: Any = None
        self.past_read = False
        crawler.signals.connect(self.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(self.item_scraped, signal=signals.item_scraped)
        crawler.signals.connect(self.idle, signal=signals.spider_idle)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> ArchiveLookups:
        return cls(crawler)

    # -- what the crawl found ----------------------------------------------------
    def spider_opened(self) -> None:
        """The archive's download slot: its delay (at least), one at a time."""
        slots = self.crawler.engine.downloader.per_slot_settings
        mine = slots.setdefault(self.host, {})
        mine["delay"] = max(float(mine.get("delay", 0)), self.delay)
        mine["concurrency"] = 1

    def item_scraped(self, item: Any, **_kwargs: Any) -> None:
        if not isinstance(item, UrlResult):
            return
        if item.outcome == Outcome.BROKEN:
            self.broken[item.url] = item.referrer_count
        page = item.page
        modified = page.get("last_modified") if isinstance(page, dict) else None
        if modified:
            self.modified[item.url] = modified

    # -- the look-ups --------------------------------------------------------
    def idle(self) -> None:
        if self.walk is not None:  # (a request of ours is on its way: not idle)
            raise DontCloseSpider
        if self.stopped is not None:
            return
        new = [u for u in self.broken if u not in self.handled and u not in self.pending]
        new.sort(key=lambda u: (-self.broken[u], u))  # the most linked first
        self.pending.extend(new)
        if new:
            logger.info(
                "Looking up %d broken links at the archive %s (at most %d requests)",
                len(new),
                self.host,
                self.max - self.asked,
            )
        if self._start_next():
            raise DontCloseSpider

    def _start_next(self) -> bool:
        """Start the next link's walk; False when none is left to ask."""
        while self.pending and self.stopped is None:
            url = self.pending.pop(0)
            self.handled.add(url)
            if self._known(url):
                self.crawler.stats.inc_value("linkaudit/archive/known")
                continue
            if not may_look_up(url, self.service):
                self._keep(url, Found(None, None, "not looked up: a private address", False, 0))
                continue
            if self.asked >= self.max:
                self._stop(f"the audit's {self.max} requests to the archive were used")
                self._keep(url, self._left())
                break
            walk = Walk(url, self.service, self._when(url), self.tries)
            return self._send(walk, walk.first())
        return False

    def _known(self, url: str) -> bool:
        """The archive already answered for ``url`` (an earlier audit, with
        ``--db``): a copy, or none found not long ago."""
        record = self.state.archived(url)
        if not record or not record.get("final"):
            return False
        if record.get("url"):
            return True
        at = iso_datetime(record.get("at"))
        return at is not None and datetime.now(UTC) - at < self.recheck

    def _when(self, url: str) -> datetime | None:
        """When ``url`` broke, as well as the audit knows (see the module)."""
        if not self.past_read:
            self.past, self.past_read = self.state.past(), True
        streak = self.past.broken.get(url) if self.past is not None else None
        if streak is not None:
            return iso_datetime(streak.since)
        _count, referrers = self.state.referrers(url)
        dates = [iso_datetime(self.modified.get(page)) for page, _line in referrers]
        known = [d for d in dates if d is not None]
        return max(known) if known else None

    def _send(self, walk: Walk, ask: Ask) -> bool:
        if self.asked >= self.max:
            self._stop(f"the audit's {self.max} requests to the archive were used")
            self._finish(walk, self._left(walk.tried))
            return False
        self.walk, self.ask = walk, ask
        self.asked += 1
        self.crawler.stats.inc_value("linkaudit/archive/requests")
        request = Request(
            ask.url,
            headers=ask.headers,
            callback=self._answered,
            errback=self._failed,
            dont_filter=True,
            # redirects are the walk's to judge (another capture, or another page)
            meta={
                ARCHIVE: True,
                MAXSIZE: TIMEMAP_MAXSIZE if ask.kind != "copy" else COPY_MAXSIZE,
                "dont_redirect": True,
            },
        )
        slot = internals.download_slot(self.crawler, request)
        if slot is not None and slot.delay < self.delay:  # a slot made before ours
            slot.delay = self.delay
        self.crawler.engine.crawl(request)
        return True

    def _answered(self, response: Response) -> None:
        walk, ask = self.walk, self.ask
        assert walk is not None and ask is not None
        headers = {
            key.decode("latin-1").lower(): ", ".join(
                v.decode("latin-1") for v in response.headers.getlist(key)
            )
            for key in response.headers
        }
        try:
            step = walk.answer(ask, response.status, headers, response.body)
        except Exception:  # a fault of ours: one line, no verdict changes
            logger.exception("Internal error while reading the archive's answer for %s", walk.url)
            step = Found(None, None, "not looked up: an internal error", False, walk.tried)
        if isinstance(step, Ask):
            self._send(walk, step)
            return
        if step.trouble:
            self.troubles += 1
            if self.troubles >= TROUBLES:
                self._stop(f"the archive answered {response.status} again")
        else:
            self.troubles = 0
        self._finish(walk, step)

    def _failed(self, failure: Failure) -> None:
        walk = self.walk
        assert walk is not None
        exc = failed_exception(failure)
        if isinstance(exc, HostHeld):  # a Retry-After hold took it back: it waits its turn
            self.crawler.engine.crawl(failed_request(failure).replace(dont_filter=True))
            return
        if isinstance(exc, RobotsBlocked):
            why = "the archive's robots.txt disallows it"
        elif isinstance(exc, IgnoreRequest) and not isinstance(exc, RobotsUnanswered):
            why = f"the archive was not asked ({exc})"
        else:
            words = describe_failure(exc, host=self.host, timeout=self.timeout)
            why = f"the archive did not answer ({words})"
        self._stop(why)
        self._finish(walk, Found(None, None, f"not looked up: {why}", False, walk.tried))

    def _finish(self, walk: Walk, found: Found) -> None:
        self.walk = self.ask = None
        self._keep(walk.url, found, walk.when)
        if found.url:
            self.crawler.stats.inc_value("linkaudit/archive/found")
        self._start_next()

    def _keep(self, url: str, found: Found, when: datetime | None = None) -> None:
        record: ArchiveNote = {
            "url": found.url,
            "date": found.date,
            "note": found.note,
            "final": found.final,
            "tried": found.tried,
            "at": iso_date(datetime.now(UTC)),
            "before": iso_date(when) if when is not None else None,
        }
        self.state.note_archived(url, record)

    def _left(self, tried: int = 0) -> Found:
        return Found(None, None, f"not looked up: {self.stopped}", False, tried)

    def _stop(self, why: str) -> None:
        """No more look-ups this audit; the links left get a note."""
        if self.stopped is not None:
            return
        self.stopped = why
        left = [u for u in self.pending if u not in self.handled]
        logger.warning(
            "Archive look-ups stopped: %s (%d broken links left for the next audit)",
            why,
            len(left) + (self.walk is not None),
        )
        for url in left:
            self.handled.add(url)
            if not self._known(url):
                self._keep(url, self._left())
        self.pending = []
