"""Failures to get an HTTP answer: which exceptions are a verdict on a link
(the network's or the server's doing), and the words for them.

Decided positively: an exception not in :data:`NETWORK_FAILURES` is a fault
of linkaudit's, reported as an internal error, never as a broken link.
"""

from __future__ import annotations

import errno
import ssl

from OpenSSL.SSL import Error as SSLError
from scrapy.exceptions import (
    CannotResolveHostError,
    DownloadCancelledError,
    DownloadConnectionRefusedError,
    DownloadFailedError,
    DownloadTimeoutError,
    ResponseDataLossError,
)
from scrapy.http import Request
from twisted.internet import error as twisted_error
from twisted.python.failure import Failure

from linkaudit import internals
from linkaudit.exceptions import ConnectTimedOut

_newclient = internals.newclient_errors()  # Twisted's HTTP client's own errors
ParseError = _newclient.ParseError
RequestTransmissionFailed = _newclient.RequestTransmissionFailed
ResponseFailed = _newclient.ResponseFailed
ResponseNeverReceived = _newclient.ResponseNeverReceived

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


def is_network_failure(exc: BaseException) -> bool:
    """The request failed because of the network or the server."""
    return isinstance(exc, NETWORK_FAILURES)


def is_timeout(exc: BaseException) -> bool:
    return isinstance(exc, DownloadTimeoutError | twisted_error.TimeoutError | TimeoutError)


# What the system says of a host it has no way to (ICMP unreachable, a
# neighbour that never answers ARP): Twisted names ENETUNREACH
# ``NoRouteError`` and leaves the others a plain ``ConnectError``
_NO_ROUTE = {errno.EHOSTUNREACH, errno.ENETUNREACH, errno.EHOSTDOWN, errno.ENETDOWN}


def no_route(exc: BaseException) -> bool:
    """The host or its network cannot be reached (no route, host down)."""
    return any(
        isinstance(c, twisted_error.NoRouteError)
        or (isinstance(c, twisted_error.ConnectError) and c.osError in _NO_ROUTE)
        for c in _causes(exc)
    )


def never_connected(exc: BaseException) -> bool:
    """The request timed out before a connection was made (the server never
    accepted one: ``network/handler.py``), not while a server that accepted
    it was answering."""
    return any(isinstance(c, ConnectTimedOut) for c in _causes(exc))


def is_unanswered(exc: BaseException) -> bool:
    """The server closed or reset the connection before any answer began
    (nginx's ``limit_conn`` with 444, a connection limit, "status 0" in
    other checkers): what a throttling host does, not a verdict by itself.
    Not a refused connection (nothing was sent: an unreachable host), not
    a timeout, not an answer cut short (it began)."""
    causes = _causes(exc)
    if any(isinstance(c, ResponseDataLossError | ParseError) or is_timeout(c) for c in causes):
        return False
    if any(isinstance(c, ResponseNeverReceived | RequestTransmissionFailed) for c in causes):
        return True
    if any(isinstance(c, ResponseFailed | twisted_error.ConnectError) for c in causes):
        return False
    closed = twisted_error.ConnectionLost | twisted_error.ConnectionDone | ConnectionResetError
    return any(isinstance(c, closed) for c in causes)


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
    if no_route(exc):
        return "No route to host"
    if has(ConnectTimedOut):  # as browsers tell it from a slow answer
        return f"Could not connect within {timeout:g} s"
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
    # Twisted refuses a header it must read (RFC 9112, 6.3: a Content-Length
    # of ``²``, or two that differ) with a plain ValueError inside its failure
    bad = next((c for c in causes if type(c) is ValueError), None)
    if bad is not None and has(ResponseFailed, DownloadFailedError):
        return f"Invalid HTTP response: {str(bad)[:100]}"
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


def failed_request(failure: Failure) -> Request:
    """The request of a failure Scrapy hands an errback: Scrapy sets it on
    the failure, an attribute Twisted's ``Failure`` does not declare."""
    return failure.request  # type: ignore[attr-defined]  # set by Scrapy


def failed_exception(failure: Failure) -> BaseException:
    """The exception of a failure (Twisted types it optional, but a
    ``Failure`` is only ever made of one)."""
    assert failure.value is not None
    return failure.value
