"""Honour ``Retry-After`` on 429 (and 503): wait, then ask again, a few times.

Scrapy's RetryMiddleware retries at once, which is exactly what a server
saying "too many requests" asks us not to do.  Waits are bounded by
``LINKAUDIT_RETRY_AFTER_MAX``: a server asking for longer is not waited for
and the URL ends ``unchecked`` rather than stalling the audit.

The wait is the host's (``linkaudit/hosts/holds.py``): none of its link
checks is sent before it is over, and none of them holds a download place
meanwhile, so the other hosts go on.  A robots.txt that asks to wait
(fetched outside the scheduler, by the first request to its host) holds its
host the same way: it ends in :class:`RobotsTxtWait`, which carries the
robots.txt to ask again, and the robots.txt middleware sends the requests
waiting for it back to the scheduler (``middlewares/robots.py``).  It used
to be waited for here, inside its download: a download place held per host,
and Ctrl-C waiting for it.
"""

from __future__ import annotations

import logging
import time

from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from scrapy.http import Request, Response

from linkaudit.config import config_of
from linkaudit.exceptions import RobotsTxtWait
from linkaudit.hosts.holds import HostHolds
from linkaudit.meta import BROWSER, HELD_BY_ANSWER, HELD_ONCE, RETRY_AFTER_TRIES, ROBOTS_TXT
from linkaudit.rules.statuses import delay_seconds, http_date, is_bot_wall

logger = logging.getLogger(__name__)


def retry_after_seconds(value: bytes | None, now: float | None = None) -> float | None:
    """Seconds to wait from a Retry-After value (delta-seconds or HTTP-date)."""
    seconds = delay_seconds(value)
    if seconds is not None:
        return seconds
    when = http_date(value)
    if when is None:
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


class RetryAfterMiddleware:
    """Settings: ``LINKAUDIT_RETRY_AFTER_CODES`` (default [429, 503]),
    ``LINKAUDIT_RETRY_AFTER_TIMES`` (2 more tries; 0 turns this off),
    ``LINKAUDIT_RETRY_AFTER_MAX`` (30 s), ``LINKAUDIT_RETRY_AFTER_DEFAULT``
    (5 s, when a 429 gives no Retry-After).  503 is retried only when it
    says Retry-After: a plain 503 is an outage, not a request to slow down.
    """

    def __init__(self, crawler: Crawler):
        config = config_of(crawler)
        self.codes = config["LINKAUDIT_RETRY_AFTER_CODES"]
        self.times = config["LINKAUDIT_RETRY_AFTER_TIMES"]
        self.max_wait = config["LINKAUDIT_RETRY_AFTER_MAX"]
        self.default_wait = config["LINKAUDIT_RETRY_AFTER_DEFAULT"]
        if self.times <= 0 or not self.codes:
            raise NotConfigured
        self.stats = crawler.stats
        self.holds = HostHolds.of(crawler)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> RetryAfterMiddleware:
        return cls(crawler)

    def process_response(
        self, request: Request, response: Response, spider: object = None
    ) -> Request | Response:
        if response.status not in self.codes:
            return response
        if is_bot_wall(response.status, response.headers, response.body):
            return response  # a wall's 429 (rules/walls.py): waiting does not open it
        tries = request.meta.get(RETRY_AFTER_TRIES, 0)
        wait = retry_after_seconds(response.headers.get(b"Retry-After"))
        if wait is None:
            if response.status != 429:
                return response
            wait = self.default_wait
        if tries >= self.times or wait > self.max_wait:
            return response
        logger.info(
            "%s %s answered %s: retrying in %.1f s (Retry-After)",
            request.method,
            request.url,
            response.status,
            wait,
        )
        self.stats.inc_value("linkaudit/retry_after")
        if request.meta.get(BROWSER):  # a rendered page's: the host waits, paced.py asks again
            self.holds.hold(request, wait)
            request.meta[HELD_BY_ANSWER] = True
            return response
        if request.meta.get(ROBOTS_TXT):  # its host waits, not its download
            until = self.holds.hold(request, wait, robots=True)
            raise RobotsTxtWait(f"{request.url} asked to wait {wait:g} s", tries + 1, until)
        self.holds.hold(request, wait)  # the retry waits with the host's other requests
        retry = request.replace(dont_filter=True)
        retry.meta[RETRY_AFTER_TRIES] = tries + 1
        retry.meta.pop(HELD_ONCE, None)  # a new request: it waits for the new hold
        return retry
