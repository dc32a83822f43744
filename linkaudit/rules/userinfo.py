"""Passwords in URLs, masked for whatever a person reads.

``http://editor:secret@host/`` -> ``http://editor:***@host/``; a user name
alone (often a token: ``https://TOKEN@host/``) is masked whole.  Pure text
rules, for URLs the user gives (their errors) and links found on pages
(their keys in the report, when such links are excluded, never requested).
"""

from __future__ import annotations

import re

# scheme, its slashes (none: "http:u:p@host" is read so too), then the
# authority's userinfo, up to its last @ (as the URL Standard reads it)
_USERINFO = re.compile(r"^(\s*[A-Za-z][A-Za-z0-9+.-]*:[/\\]*)([^/\\?#]*)@")
_AUTHORITY = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")  # mailto:a@b has no userinfo


def masked(url: str) -> str:
    """The URL with its password (or its lone user name) as ``***``."""

    def mask(m: re.Match[str]) -> str:
        user, colon, _password = m[2].partition(":")
        return f"{m[1]}{user + ':' if colon else ''}***@"

    return _USERINFO.sub(mask, url, count=1)


def masked_link(url: str) -> str:
    """A link's URL, masked when it has an authority (``scheme://``): a
    ``mailto:`` or ``tel:`` link keeps its ``@``."""
    return masked(url) if _AUTHORITY.match(url) else url


# a service's URL (redis://, rediss://, unix://): its userinfo runs to the
# last "@" before the query (a password may hold "/" or "@", which no URL
# rule would take for its end), and redis-py also reads ?password=
_SERVICE_USERINFO = re.compile(r"^(\s*[A-Za-z][A-Za-z0-9+.-]*://)([^?#]*)@")
# "password=", "password: ", '"password": "' in a query or a table's text
_PASSWORD_PARAM = re.compile(
    r"""(\bpass(?:word|wd)['"]?\s*[:=]\s*['"]?)([^'"&,;}\s]+)""", re.IGNORECASE
)


def masked_service(url: str) -> str:
    """A service's URL (a Redis URL) with its password as ``***``, wherever
    redis-py would read one: ``redis://user:***@host/0``,
    ``redis://***@host/0`` (a lone user name: a token),
    ``unix://:***@/run/redis.sock``, ``?password=***``."""

    def mask(m: re.Match[str]) -> str:
        user, colon, _password = m[2].partition(":")
        return f"{m[1]}{user + ':' if colon else ''}***@"

    return masked_passwords(_SERVICE_USERINFO.sub(mask, url, count=1))


def masked_passwords(text: str) -> str:
    """``password=...`` (or ``"password": "..."``) in a text as ``***``."""
    return _PASSWORD_PARAM.sub(r"\1***", text)
