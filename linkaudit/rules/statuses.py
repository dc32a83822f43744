"""What an HTTP answer means for a link, in words a person understands.

Pure rules (no Scrapy): the verdict on a status (``judge_status``), the
words for it, and the words for a check that an exception of ours stopped.
"""

from __future__ import annotations

import email.utils
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from enum import StrEnum
from http import HTTPStatus
from typing import NamedTuple

from linkaudit.rules.walls import wall_of, wall_words


class StatusVerdict(StrEnum):
    """What a status means for the link (``judge_status``): an outcome, or
    ``FALLBACK``, a HEAD's answer that a GET of the same URL must confirm."""

    OK = "ok"
    REDIRECT = "redirect"
    BROKEN = "broken"
    UNCHECKED = "unchecked"
    FALLBACK = "fallback"


OK, REDIRECT, BROKEN, UNCHECKED, FALLBACK = (
    StatusVerdict.OK,
    StatusVerdict.REDIRECT,
    StatusVerdict.BROKEN,
    StatusVerdict.UNCHECKED,
    StatusVerdict.FALLBACK,
)


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
    datetime in UTC; None when absent or not a date.

    A header is the server's to get wrong, never ours to fail on: a value
    that is not ASCII (``int()`` reads ``٣`` as 3), out of range, or whose
    offset carries it past year 9999 (``Fri, 31 Dec 9999 23:59:59 -2359``:
    an OverflowError once converted) is read as absent."""
    if not value:
        return None
    if isinstance(value, bytes):
        value = value.decode("latin-1")
    if not value.isascii():
        return None
    try:
        when = email.utils.parsedate_to_datetime(value.strip())
        return when.astimezone(UTC) if when.tzinfo else when.replace(tzinfo=UTC)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None


def delay_seconds(value: bytes | str | None) -> float | None:
    """A header's delta-seconds (RFC 9110 ``1*DIGIT``, as ``Retry-After``
    holds); None when absent or not ASCII digits.  ``str.isdigit()`` and
    ``int()`` also take ``²`` or ``٣``, and ``int()`` refuses more than 4300
    digits: a value of many digits is read as the float it is (inf at worst)."""
    if not value:
        return None
    if isinstance(value, bytes):
        value = value.decode("latin-1")
    text = value.strip()
    if not text or not text.isascii() or not text.isdigit():
        return None
    return float(text)


def http_date_iso(value: bytes | str | None) -> str | None:
    """``Wed, 21 Oct 2015 07:28:00 GMT`` -> ``2015-10-21T07:28:00+00:00``."""
    when = http_date(value)
    return when.isoformat(timespec="seconds") if when else None


def status_text(status: int) -> str:
    """``404 Not Found``; an unknown status is given with a plain word."""
    if status == 999:
        return "999 Request denied"
    try:
        return f"{status} {HTTPStatus(status).phrase}"
    except ValueError:
        return f"{status} HTTP status"


def is_bot_wall(status: int, headers: Mapping[bytes, object], body: bytes = b"") -> bool:
    """Whether a bot wall answered (``rules/walls.py``: its markers)."""
    return wall_of(status, headers, body) is not None


def judge_status(
    status: int,
    headers: Mapping[bytes, object],
    *,
    head: bool,
    accept: Iterable[int] = (),
    body: bytes = b"",
) -> StatusVerdict:
    """What an HTTP status means, given whether it answered a HEAD.

    HEAD is a hint, GET is the verdict: a HEAD answered with anything but
    2xx is asked again with a GET of the same URL (``FALLBACK``) before a
    verdict, 404 and 410 included (servers answer HEAD with 404, 405, 403
    or 500 while GET works), and so is a HEAD that redirects (a server may
    redirect a HEAD to an error page while its GET answers 200: the GET's
    redirect is the one recorded).  A bot wall (``rules/walls.py``, whatever
    its status: AWS WAF's challenge is a 202, Anubis's a 200) is unchecked,
    never ok nor broken; recognised on a HEAD's headers (a hint, such as a
    wall's cookie, is enough there), it is asked again with GET, whose
    answer is the verdict.  429 is unchecked as it comes
    (the back-off asks it again).
    """
    if status in accept:
        return OK
    if wall_of(status, headers, body, hints=head) is not None:
        return FALLBACK if head else UNCHECKED
    if 200 <= status < 300:
        return OK
    if status == 429:
        return UNCHECKED
    if head:
        return FALLBACK
    if 300 <= status < 400:
        return REDIRECT
    return BROKEN


class Unchecked(NamedTuple):
    """Why an answer leaves its URL unchecked, in words, and the bot wall
    that answered by name (None when it was no wall): the name is the
    result's ``wall``, which the outputs read."""

    error: str
    wall: str | None


def unchecked_reason(status: int, headers: Mapping[bytes, object], body: bytes = b"") -> Unchecked:
    """Why an answer leaves its URL unchecked: the bot wall that answered,
    named (``could not verify: behind DataDome, ...``), or a server that
    kept refusing."""
    wall = wall_of(status, headers, body)
    if wall is not None:
        return Unchecked(wall_words(wall, status_text(status)), wall.name)
    return Unchecked(
        f"{status_text(status)}: the server kept refusing after the allowed retries", None
    )


INTERNAL_ERROR = "Internal error"


def internal_error(exc: BaseException) -> str:
    """The ``error`` of a URL whose check an exception of ours stopped."""
    text = str(exc)
    words = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    if len(words) > 300:
        words = words[:300] + "..."
    return f"{INTERNAL_ERROR}: {words} (a bug in linkaudit, not a verdict on the link)"
