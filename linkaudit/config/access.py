"""Readers (see ``checks.py``) of what gets an audit into a site behind a
password: headers, HTTP basic credentials, a cookies.txt file, ``.netrc``."""

from __future__ import annotations

import json
import netrc
import os
import re
from typing import Any

from linkaudit.config.inputs import check_regular

_TOKEN = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")  # RFC 9110 field name
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")  # tab is allowed in a field value
# Scrapy encodes basic credentials so: any other character fails every request
_BASIC, _BASIC_WHY = "latin-1", "HTTP basic authentication sends Latin-1"
Logins = dict[str, tuple[str, str]]  # host ("" for netrc's default) -> (user, password)


def headers(settings: Any, name: str) -> tuple[tuple[str, str], ...]:
    """``Name: Value`` headers: a list, or text with one per line (a value
    may hold commas), or a JSON list.  Errors name the header, never show
    its value (a token, often)."""
    value = settings.get(name) or []
    if isinstance(value, str):
        try:
            value = json.loads(value) if value.lstrip().startswith("[") else value.splitlines()
        except json.JSONDecodeError:
            raise ValueError("is not a JSON list of headers") from None
    found = []
    for number, item in enumerate(value, 1):
        field, sep, content = str(item).partition(":")
        field, content = field.strip(), content.strip()
        if not sep:
            raise ValueError(
                f"header {number} has no colon: give Name: Value (the text is not "
                "shown: it may hold a secret)"
            )
        if not _TOKEN.match(field):
            raise ValueError(f"{_shown(field)} is not a header name (Name: Value)")
        why = _unsendable(content)
        if why:
            raise ValueError(f"the value of {field!r} {why}")
        found.append((field, content))
    return tuple(found)


def header_value(settings: Any, name: str) -> str | None:
    """One header's value (``USER_AGENT``): text HTTP can carry."""
    value = settings.get(name)
    if value is None or not isinstance(value, str):
        return value
    why = _unsendable(value)
    if why:
        raise ValueError(f"the value {why}")
    return value


def header_table(settings: Any, name: str) -> dict[str, Any] | None:
    """Headers as a table, ``{"Name": "value"}`` (``DEFAULT_REQUEST_HEADERS``)."""
    if settings.get(name) is None:
        return None
    try:
        table = settings.getdict(name)
    except ValueError:
        raise ValueError("is not a JSON object") from None
    for field, content in table.items():
        if not _TOKEN.match(str(field)):
            raise ValueError(f"{_shown(str(field))} is not a header name")
        why = _unsendable(content) if isinstance(content, str) else None
        if why:
            raise ValueError(f"the value of {field!r} {why}")
    return table


def _unsendable(text: str) -> str | None:
    """Why ``text`` cannot be a header's value (RFC 9110: no control
    character but tab; Scrapy sends it as UTF-8), or None."""
    if _CONTROL.search(text):
        return "holds a control character (CR, LF, NUL...), which HTTP forbids"
    return None if _encodes(text, "utf-8") else "is not UTF-8 text"


def _encodes(text: str, encoding: str) -> bool:
    """Bytes that were not text in the command line (``\xff``) arrive as
    lone surrogates: they encode to nothing, and every request would fail."""
    try:
        text.encode(encoding)
    except UnicodeEncodeError:
        return False
    return True


def _shown(name: str) -> str:
    """A header name for an error line: quoted, controls and bytes escaped."""
    return ascii(name[:80])


def credentials(settings: Any, name: str) -> tuple[str, str] | None:
    """``user:password`` (HTTP basic authentication), or None."""
    value = str(settings.get(name) or "")
    if not value:
        return None
    user, sep, password = value.partition(":")
    if not sep or not user:
        raise ValueError("is not user:password")
    if not _encodes(value, _BASIC):
        raise ValueError(f"user:password is not Latin-1 text ({_BASIC_WHY})")
    return user, password


def cookie_file(settings: Any, name: str) -> str | None:
    """A Netscape cookies.txt file that loads."""
    path = str(settings.get(name) or "")
    if not path:
        return None
    from http.cookiejar import LoadError, MozillaCookieJar  # urllib.request, http.client: on use

    try:
        check_regular(path)  # a pipe or /dev/zero would never end (loaded by name)
        MozillaCookieJar().load(path, ignore_discard=True)
    except (OSError, LoadError, ValueError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise ValueError(f"{path!r} is not a readable cookies.txt file ({reason})") from None
    return os.path.abspath(path)


def netrc_logins(settings: Any, name: str) -> Logins:
    """The logins of ``$NETRC`` or ``~/.netrc`` when the setting is on and
    the file exists (as curl and requests read it)."""
    from linkaudit.config.checks import boolean

    if not boolean(settings, name):
        return {}
    path = os.environ.get("NETRC") or os.path.join(os.path.expanduser("~"), ".netrc")
    if not os.path.isfile(path):
        return {}
    try:
        parsed = netrc.netrc(path)
    except (OSError, netrc.NetrcParseError) as exc:
        raise ValueError(f"{path}: {exc}") from None
    logins = {}
    for host, (login, _account, password) in parsed.hosts.items():
        if not _encodes(f"{login}:{password or ''}", _BASIC):
            raise ValueError(f"{path}: the login of {host} is not Latin-1 text ({_BASIC_WHY})")
        logins["" if host == "default" else host.lower()] = (login, password or "")
    return logins
