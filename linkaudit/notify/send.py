"""Sending, with the standard library: a JSON POST (``urllib.request``),
an e-mail (``smtplib``: STARTTLS when the server offers it, a login when
the URL gives one).  Blocking: called after the report is written, off
the crawl's event loop (``extensions/notify.py`` runs it in a thread).

A target that fails (refused, no answer, any 4xx or 5xx, an SMTP error)
is tried again, at most ``retries`` more times and within ``seconds`` in
all; a ``Retry-After`` (or Discord's ``retry_after``) is waited for when
it fits.  What fails is :class:`SendError`, whose words never hold the
target's URL, a secret or a password: urllib's own messages hold none,
and every other exception is put in fixed words here.
"""

from __future__ import annotations

import email.utils
import hashlib
import hmac
import http.client
import ipaddress
import json
import smtplib
import socket
import ssl
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from email.message import EmailMessage
from typing import Any

from linkaudit import __version__
from linkaudit.notify.targets import Target

TRY_SECONDS = 10.0  # one try's most: a slow target leaves time for another try
RETRY_AFTER_MOST = 60.0
SIGNATURE = "X-Hub-Signature-256"  # GitHub's header, and its "sha256=" form


class SendError(Exception):
    """Why a target got no message, in words safe to log; ``tries``."""

    def __init__(self, reason: str, tries: int = 1):
        super().__init__(reason)
        self.reason = reason
        self.tries = tries


class _Again(Exception):
    """A try failed; ``wait``: what the target asked us to wait (None: ours)."""

    def __init__(self, reason: str, wait: float | None = None):
        super().__init__(reason)
        self.reason, self.wait = reason, wait


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None  # a 3xx is a failure: a signed body goes nowhere it was not sent


_OPENER = urllib.request.build_opener(_NoRedirect)


def signature(secret: str, body: bytes) -> str:
    """GitHub's ``X-Hub-Signature-256`` value: HMAC-SHA256 of the raw body."""
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def with_retries(
    attempt: Callable[[float], None],
    retries: int,
    seconds: float,
    sleep: Callable[[float], None] = time.sleep,
) -> int:
    """Call ``attempt(timeout)`` until it returns, at most ``retries + 1``
    times within ``seconds``; the number of tries, or SendError."""
    deadline = time.monotonic() + seconds
    tries = 0
    while True:
        tries += 1
        left = deadline - time.monotonic()
        try:
            attempt(max(min(TRY_SECONDS, left), 0.5))
            return tries
        except _Again as again:
            wait = again.wait if again.wait is not None else 0.5 * 2 ** (tries - 1)
            left = deadline - time.monotonic()
            if tries > retries or wait >= left - 0.5:
                raise SendError(again.reason, tries) from None
            sleep(max(wait, 0.0))


def post(url: str, payload: bytes, headers: dict[str, str], retries: int, seconds: float) -> int:
    """POST ``payload`` (JSON) to ``url``; the tries it took."""
    head = {"Content-Type": "application/json", "User-Agent": f"linkaudit/{__version__}"}
    head.update(headers)

    def attempt(timeout: float) -> None:
        request = urllib.request.Request(url, data=payload, headers=head, method="POST")
        try:
            with _OPENER.open(request, timeout=timeout) as answer:
                answer.read(65536)
                if not 200 <= answer.status < 300:
                    raise _Again(f"HTTP {answer.status} {answer.reason}")
        except urllib.error.HTTPError as exc:
            raise _Again(_http_words(exc), _retry_after(exc)) from None
        except (urllib.error.URLError, OSError, http.client.HTTPException, ValueError) as exc:
            raise _Again(_network_words(exc, timeout)) from None

    return with_retries(attempt, retries, seconds)


def _http_words(exc: urllib.error.HTTPError) -> str:
    words = f"HTTP {exc.code} {exc.reason}".strip()
    try:
        body = exc.read(200).decode("utf-8", "replace").strip()
    except OSError:
        body = ""
    # Slack's short codes (invalid_blocks, no_service): nothing else of a
    # body, which a receiver may fill with the URL it was sent to
    if body and len(body) <= 40 and body.replace("_", "").isalpha():
        words += f" ({body})"
    return words


def _retry_after(exc: urllib.error.HTTPError) -> float | None:
    """Seconds from ``Retry-After`` (seconds or an HTTP date), or from
    Discord's JSON ``retry_after``; None: not said."""
    value = (exc.headers.get("Retry-After") or "").strip() if exc.headers else ""
    wait: float | None = None
    if value:
        try:
            wait = float(value)
        except ValueError:
            when = email.utils.parsedate_to_datetime(value) if value else None
            wait = when.timestamp() - time.time() if when is not None else None
    if exc.headers is not None and exc.headers.get_content_type() == "application/json":
        try:
            found = json.loads(exc.read(4096) or b"{}").get("retry_after")
            wait = float(found) if isinstance(found, int | float) else wait
        except (ValueError, AttributeError, OSError):
            pass
    return None if wait is None else min(max(wait, 0.0), RETRY_AFTER_MOST)


def _network_words(exc: BaseException, timeout: float) -> str:
    reason = exc.reason if isinstance(exc, urllib.error.URLError) else exc
    if isinstance(reason, TimeoutError | socket.timeout):
        return f"no answer within {timeout:g} s"
    if isinstance(reason, ConnectionRefusedError):
        return "connection refused"
    if isinstance(reason, socket.gaierror):
        return "DNS lookup failed"
    if isinstance(reason, ssl.SSLCertVerificationError):
        return f"TLS certificate not trusted ({reason.verify_message})"
    if isinstance(reason, ssl.SSLError):
        return "TLS handshake failed"
    if isinstance(reason, http.client.RemoteDisconnected | ConnectionResetError):
        return "the connection closed without an answer"
    if isinstance(reason, OSError) and reason.strerror:
        return reason.strerror
    return type(reason).__name__  # never its message: it may quote the URL


def send_mail(
    target: Target, message: EmailMessage, retries: int, seconds: float, name: str = ""
) -> int:
    """Send ``message`` through the target's server; the tries it took.
    STARTTLS when offered; a password only over TLS (or to a loopback
    server): smtplib would send it in clear to a server that offers AUTH
    without TLS."""

    def attempt(timeout: float) -> None:
        context = ssl.create_default_context()
        local = name or "linkaudit.localhost"  # no getfqdn(): slow without reverse DNS
        try:
            if target.tls:
                client: smtplib.SMTP = smtplib.SMTP_SSL(
                    target.host, target.port, local, timeout=timeout, context=context
                )
            else:
                client = smtplib.SMTP(target.host, target.port, local, timeout=timeout)
            with client as smtp:
                smtp.ehlo()
                secure = target.tls
                if not secure and smtp.has_extn("starttls"):
                    smtp.starttls(context=context)
                    smtp.ehlo()
                    secure = True
                if target.user is not None:
                    if not secure and not _loopback(target.host):
                        raise SendError(
                            "the server offers no STARTTLS: the password is not sent in clear"
                        )
                    smtp.login(target.user, target.password or "")
                smtp.send_message(message)
        except smtplib.SMTPResponseException as exc:
            said = exc.smtp_error  # (bytes, as smtplib reads them; its type allows text)
            text = said.decode("utf-8", "replace") if isinstance(said, bytes) else said
            raise _Again(f"SMTP {exc.smtp_code} {text}"[:200].strip()) from None
        except smtplib.SMTPRecipientsRefused:
            raise _Again("every recipient was refused") from None
        except smtplib.SMTPNotSupportedError:
            raise _Again("the server does not offer a login (AUTH)") from None
        except smtplib.SMTPServerDisconnected:
            raise _Again("the server closed the connection") from None
        except (smtplib.SMTPException, OSError, ValueError) as exc:
            raise _Again(_network_words(exc, timeout)) from None

    return with_retries(attempt, retries, seconds)


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False
