"""Readers (see ``checks.py``) of what gets an audit into a site behind a
password: headers, HTTP basic credentials, a cookies.txt file, ``.netrc``."""

from __future__ import annotations

import json
import netrc
import os
import re
from http.cookiejar import LoadError, MozillaCookieJar
from typing import Any

_TOKEN = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")  # RFC 9110 field name
Logins = dict[str, tuple[str, str]]  # host ("" for netrc's default) -> (user, password)


def headers(settings: Any, name: str) -> tuple[tuple[str, str], ...]:
    """``Name: Value`` headers: a list, or text with one per line (a value
    may hold commas), or a JSON list."""
    value = settings.get(name) or []
    if isinstance(value, str):
        try:
            value = json.loads(value) if value.lstrip().startswith("[") else value.splitlines()
        except json.JSONDecodeError:
            raise ValueError(f"{value!r} is not a JSON list of headers") from None
    found = []
    for item in value:
        field, sep, content = str(item).partition(":")
        content = content.strip()
        if not sep or not _TOKEN.match(field.strip()) or "\n" in content or "\r" in content:
            raise ValueError(f"{item!r} is not a header (Name: Value)")
        found.append((field.strip(), content))
    return tuple(found)


def credentials(settings: Any, name: str) -> tuple[str, str] | None:
    """``user:password`` (HTTP basic authentication), or None."""
    value = str(settings.get(name) or "")
    if not value:
        return None
    user, sep, password = value.partition(":")
    if not sep or not user:
        raise ValueError("is not user:password")
    return user, password


def cookie_file(settings: Any, name: str) -> str | None:
    """A Netscape cookies.txt file that loads."""
    path = str(settings.get(name) or "")
    if not path:
        return None
    try:
        MozillaCookieJar().load(path, ignore_discard=True)
    except (OSError, LoadError) as exc:
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
        logins["" if host == "default" else host.lower()] = (login, password or "")
    return logins
