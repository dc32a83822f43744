"""The exceptions a request can end with that one part of the crawl raises
and another judges, in one module (as ``scrapy.exceptions``): the parts
that drop, hold or refuse a request (middlewares, extensions, the host
holds) raise them, the failure judge (``components/failures.py``) turns
each into a result, and neither imports the other.

Each is a Scrapy exception, so that Scrapy handles it as it handles its
own: an ``IgnoreRequest`` goes to the request's errback without an error
log; a ``DownloadFailedError`` is a download failure (a network failure,
judged ``broken``).

Exceptions that do not leave their folder's interface stay with it: a
rule's (``rules/urls.py``'s ``InvalidURL``, ``rules/inflate.py``'s
``CorruptBody``), the configuration's (``ConfigError``), a state backend's
(``DatabaseError``, ``RedisUnavailable``).  Those folders are below this
one and import no Scrapy (a walked build and ``linkaudit --version`` import
none); each caller imports them from the folder it already uses.
"""

from __future__ import annotations

from scrapy.exceptions import DownloadFailedError, DownloadTimeoutError, IgnoreRequest


class Interrupted(IgnoreRequest):
    """A request dropped before it was sent because the audit is closing
    (``extensions/drain.py``); the URL ends ``unchecked``."""


class HostHeld(IgnoreRequest):
    """A link check taken back from its host's download slot: the host asked
    us to wait (``Retry-After``).  Not a verdict: the request is asked again
    after the wait."""


class ConnectTimedOut(DownloadTimeoutError):
    """No connection within the download timeout: the server never
    accepted one (its packets dropped, a host that is down, a name lookup
    that never ended), raised by the download handler
    (``network/handler.py``).  A timeout, retried and condemned as one; but
    unlike a server that accepted the connection and then answered too
    slowly, it says the server cannot be reached."""


class RobotsTxtWait(IgnoreRequest):
    """A robots.txt answered 429 (or 503) with ``Retry-After``: its host is
    held until ``until`` (``time.monotonic``; ``hosts/holds.py``), and the
    robots.txt is asked again, after its ``tries``-th wait, by the first
    request of the host given back (``middlewares/robots.py``).  Not a
    verdict."""

    def __init__(self, message: str, tries: int, until: float):
        super().__init__(message)
        self.tries, self.until = tries, until


class HostFailing(IgnoreRequest):
    """A request not sent, or an answer not judged: its host was given up
    (the back-off); the URL ends ``unchecked``."""


class HostUnreachable(DownloadFailedError):
    """A request not sent: its host failed earlier in this run (``__cause__``).
    A download failure like the one it repeats, so a network failure."""


class RobotsBlocked(IgnoreRequest):
    """A request robots.txt does not let us make; the message says why."""


class RobotsUnanswered(IgnoreRequest):
    """A request not made: its host's robots.txt did not answer in time (the
    URL is ``unchecked``, not ``blocked``: nothing says it is disallowed)."""
