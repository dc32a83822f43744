"""Pure decisions: what an HTTP answer or a failure means for a link, and
which URLs are not requested at all (other schemes, crawler traps, user rules).
"""

from __future__ import annotations

import email.utils
import re
import ssl
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from http import HTTPStatus
from urllib.parse import urlsplit

from OpenSSL.SSL import Error as SSLError
from scrapy.exceptions import (
    CannotResolveHostError,
    DownloadCancelledError,
    DownloadConnectionRefusedError,
    DownloadFailedError,
    DownloadTimeoutError,
    ResponseDataLossError,
)
from twisted.internet import error as twisted_error
from twisted.web._newclient import (
    ParseError,
    RequestTransmissionFailed,
    ResponseFailed,
    ResponseNeverReceived,
)

# What the spider does with an HTTP answer.
OK, REDIRECT, BROKEN, UNCHECKED, FALLBACK = "ok", "redirect", "broken", "unchecked", "fallback"

HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
# Statuses that mean "this URL is gone": no GET fallback after a HEAD.
GONE = frozenset({404, 410})
# LinkedIn and others answer 999 to anything that looks automated.
BOT_WALL_STATUSES = frozenset({999})
# Challenge pages: Cloudflare marks them with cf-mitigated.
BOT_WALL_HEADERS = (b"cf-mitigated",)


def media_type(value: bytes | str | None) -> str | None:
    """``text/html; charset=utf-8`` -> ``text/html``; None when absent."""
    if not value:
        return None
    if isinstance(value, bytes):
        value = value.decode("latin-1")
    mtype = value.split(";", 1)[0].strip().lower()
    return mtype or None


def http_date(value: bytes | str | None) -> datetime | None:
    """An HTTP-date header value (RFC 9110, all three formats) as an aware
    datetime; None when absent or not a date."""
    if not value:
        return None
    if isinstance(value, bytes):
        value = value.decode("latin-1")
    try:
        when = email.utils.parsedate_to_datetime(value.strip())
    except (TypeError, ValueError, IndexError):
        return None
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def http_date_iso(value: bytes | str | None) -> str | None:
    """``Wed, 21 Oct 2015 07:28:00 GMT`` -> ``2015-10-21T07:28:00+00:00``."""
    when = http_date(value)
    return when.astimezone(UTC).isoformat(timespec="seconds") if when else None


def status_text(status: int) -> str:
    """``404 Not Found``; an unknown status is given with a plain word."""
    if status == 999:
        return "999 Request denied"
    try:
        return f"{status} {HTTPStatus(status).phrase}"
    except ValueError:
        return f"{status} HTTP status"


def is_bot_wall(status: int, headers: Mapping[bytes, object]) -> bool:
    if status in BOT_WALL_STATUSES:
        return True
    return status in (403, 429, 503) and any(h in headers for h in BOT_WALL_HEADERS)


def judge_status(
    status: int,
    headers: Mapping[bytes, object],
    *,
    head: bool,
    accept: Iterable[int] = (),
) -> str:
    """What an HTTP status means, given whether it answered a HEAD.

    A HEAD that fails with anything but "gone" is asked again with GET:
    many servers answer HEAD with 405, 403 or 500 while GET works.
    """
    if status in accept or 200 <= status < 300:
        return OK
    if 300 <= status < 400:
        return REDIRECT
    if status == 429 or is_bot_wall(status, headers):
        return UNCHECKED
    if head and status >= 400 and status not in GONE:
        return FALLBACK
    return BROKEN


def unchecked_reason(status: int, headers: Mapping[bytes, object]) -> str:
    if is_bot_wall(status, headers):
        return f"{status_text(status)}: the site refused automated checking"
    return f"{status_text(status)}: the server kept refusing after the allowed retries"


# What the network or the server can do to a request: the only exceptions
# that are a verdict on a link.  Decided positively: anything else raised
# while checking a URL is a fault of linkaudit's, reported as an internal
# error (``unchecked``), never as the link being broken.
NETWORK_FAILURES: tuple[type[BaseException], ...] = (
    # Scrapy's download handlers wrap Twisted's errors in these
    CannotResolveHostError,
    DownloadConnectionRefusedError,
    DownloadTimeoutError,
    DownloadCancelledError,
    DownloadFailedError,
    ResponseDataLossError,
    # and let these through: connecting, the connection, the HTTP exchange
    twisted_error.ConnectError,  # DNS, refused, TCP timeout, no route...
    twisted_error.ConnectionClosed,  # lost, done
    twisted_error.TimeoutError,
    ResponseFailed,
    ResponseNeverReceived,
    RequestTransmissionFailed,
    ParseError,
    # TLS, and what the operating system says of a socket
    SSLError,
    ssl.SSLError,
    ConnectionError,
    TimeoutError,
)
INTERNAL_ERROR = "Internal error"


def is_network_failure(exc: BaseException) -> bool:
    """The request failed because of the network or the server."""
    return isinstance(exc, NETWORK_FAILURES)


def internal_error(exc: BaseException) -> str:
    """The ``error`` of a URL whose check an exception of ours stopped."""
    text = str(exc)
    words = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    if len(words) > 300:
        words = words[:300] + "..."
    return f"{INTERNAL_ERROR}: {words} (a bug in linkaudit, not a verdict on the link)"


def is_timeout(exc: BaseException) -> bool:
    return isinstance(exc, DownloadTimeoutError | twisted_error.TimeoutError | TimeoutError)


def _causes(exc: BaseException) -> list[BaseException]:
    """``exc`` and what it wraps: ``__cause__`` chains and Twisted's
    ``reasons`` lists (ResponseFailed, ResponseNeverReceived)."""
    seen: list[BaseException] = []
    todo = [exc]
    while todo and len(seen) < 20:
        current = todo.pop(0)
        if current in seen:
            continue
        seen.append(current)
        if current.__cause__ is not None:
            todo.append(current.__cause__)
        for reason in getattr(current, "reasons", None) or ():
            value = getattr(reason, "value", reason)
            if isinstance(value, BaseException):
                todo.append(value)
    return seen


def describe_failure(exc: BaseException, *, host: str, timeout: float) -> str:
    """A failure to get any HTTP answer (see :func:`is_network_failure`), in
    words a person understands."""
    causes = _causes(exc)

    def has(*types: type[BaseException]) -> bool:
        return any(isinstance(c, types) for c in causes)

    if has(CannotResolveHostError, twisted_error.DNSLookupError):
        return f"DNS lookup failed for {host}"
    if has(DownloadConnectionRefusedError, twisted_error.ConnectionRefusedError):
        return "Connection refused"
    if any(is_timeout(c) for c in causes) or has(twisted_error.TCPTimedOutError):
        return f"Timed out after {timeout:g} s"
    text = " | ".join(str(c) for c in causes if str(c)) or type(exc).__name__
    lowered = text.lower()
    if has(SSLError) or "certificate" in lowered:
        return f"TLS error: {_tls_words(causes, text)}"
    if has(ParseError):
        bad = next(c for c in causes if isinstance(c, ParseError))
        data = bad.args[1] if len(bad.args) > 1 else b""
        shown = data[:40].decode("latin-1") if isinstance(data, bytes) else str(data)[:40]
        return f"Invalid HTTP response: {shown!r}"
    if "reset" in lowered or has(ConnectionResetError):
        return "Connection reset by peer"
    if has(ResponseNeverReceived):
        return "Connection closed without a response"
    if has(ResponseDataLossError, twisted_error.ConnectionLost):
        # Twisted reports a TCP reset as a "non-clean" ConnectionLost;
        # ConnectionDone is a clean close (FIN) before the promised length.
        if has(twisted_error.ConnectionDone):
            return "Connection closed before the response was complete"
        return "Connection reset before the response was complete"
    if "ssl" in lowered or "tls" in lowered:
        return f"TLS error: {text}"
    if has(DownloadCancelledError):
        return "Download cancelled"
    if has(twisted_error.NoRouteError):
        return "No route to host"
    if has(DownloadFailedError):
        return f"Download failed: {str(exc) or type(exc).__name__}"
    return f"{type(exc).__name__}: {str(exc)}" if str(exc) else type(exc).__name__


def _tls_words(causes: list[BaseException], text: str) -> str:
    """OpenSSL's reasons (``certificate verify failed``...), without the
    Failure reprs around them."""
    reasons: list[str] = []
    for cause in causes:
        if isinstance(cause, SSLError) and cause.args and isinstance(cause.args[0], list):
            for entry in cause.args[0]:
                if isinstance(entry, tuple) and entry and entry[-1] not in reasons:
                    reasons.append(str(entry[-1]))
    if reasons:
        return "; ".join(reasons)
    return text[:200]


@dataclass(frozen=True)
class TrapGuards:
    """Rules that keep the audit out of crawler traps and the user's exclusions.

    :meth:`reason` returns why a URL is excluded, or None.  Every limit is a
    setting (see ``linkaudit/settings.py``); 0 turns a numeric one off.  The
    trap guards (``//``, repeated segments, deep paths) apply to near URLs
    only: far URLs are checked, never crawled, so they cannot trap the crawl
    (``https://web.archive.org/web/2020/https://example.com/`` is a real
    link).  User info and the user's patterns apply to every URL.
    """

    max_path_segments: int = 32
    max_segment_repeat: int = 3
    exclude_userinfo: bool = True
    exclude_double_slash: bool = True
    patterns: tuple[re.Pattern[str], ...] = ()

    def reason(self, url: str, near: bool = True) -> str | None:
        parts = urlsplit(url)
        if self.exclude_userinfo and "@" in parts.netloc:
            return "Excluded: URL has user info (user:password@)"
        for pattern in self.patterns:
            if pattern.search(url):
                return f"Excluded: matches LINKAUDIT_EXCLUDE pattern {pattern.pattern!r}"
        return self._trap(parts.path) if near else None

    def _trap(self, path: str) -> str | None:
        if self.exclude_double_slash and "//" in path:
            return "Excluded: '//' in the path (crawler trap guard)"
        segments = [s for s in path.split("/") if s]
        if self.max_path_segments and len(segments) > self.max_path_segments:
            return f"Excluded: path deeper than {self.max_path_segments} segments"
        if self.max_segment_repeat and len(segments) > self.max_segment_repeat:
            counts: dict[str, int] = {}
            for seg in segments:
                counts[seg] = counts.get(seg, 0) + 1
                if counts[seg] > self.max_segment_repeat:
                    return (
                        f"Excluded: path segment {seg!r} repeated more than "
                        f"{self.max_segment_repeat} times (crawler trap guard)"
                    )
        return None
