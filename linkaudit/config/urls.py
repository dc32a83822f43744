"""How the URLs the user gives are read (start URLs, ``--near``,
``--sitemap``, ``--root-url``; see ``checks.py``): http(s), valid, canonical,
and without credentials, which go in ``--auth``; errors never show a
password."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

from linkaudit.rules.urls import HTTP_SCHEMES, InvalidURL, canonicalize, scheme_of
from linkaudit.rules.userinfo import masked

_SPLIT = re.compile(r"[\s,]+")


def split_list(value: Any) -> list[str]:
    """``"a b,c"`` -> ``["a", "b", "c"]``: whitespace or commas separate."""
    if isinstance(value, (list, tuple)):
        return [str(v) for v in value if str(v).strip()]
    return [v for v in _SPLIT.split(str(value or "").strip()) if v]


def start_urls(settings: Any, name: str) -> tuple[str, ...]:
    raws = split_list(settings.get(name))
    if not raws:
        raise ValueError("give at least one URL, e.g. -a start=https://example.com/")
    urls: list[str] = []
    for raw in raws:
        url = _http_url(raw, "URL")
        if url not in urls:
            urls.append(url)
    return tuple(urls)


def url_prefixes(settings: Any, name: str) -> tuple[str, ...] | None:
    """Near prefixes; None: not given (the start URLs are the site)."""
    value = settings.get(name)
    if value is None or value == "" or value == []:
        return None
    prefixes = tuple(_http_url(raw, "URL prefix") for raw in split_list(value))
    if not prefixes:
        raise ValueError("give at least one URL prefix")
    return prefixes


def url_list(settings: Any, name: str) -> tuple[str, ...]:
    """http(s) URLs (sitemaps), each once."""
    return tuple(dict.fromkeys(_http_url(raw, "URL") for raw in split_list(settings.get(name))))


def optional_url(settings: Any, name: str) -> str | None:
    value = str(settings.get(name) or "").strip()
    return _http_url(value, "URL") if value else None


def _http_url(raw: str, what: str) -> str:
    """A URL the user gave, canonical; errors never show its password."""
    shown = masked(raw)
    if scheme_of(raw) not in HTTP_SCHEMES:
        raise ValueError(f"{shown!r} is not an http(s) {what}")
    try:
        url = canonicalize(raw)
    except InvalidURL as exc:
        raise ValueError(f"{shown!r} is not a valid {what} ({exc})") from None
    if "@" in urlsplit(url).netloc:
        # it would be requested with them, sent to far hosts as a Referer and
        # written in the report: --auth sends them to the site's hosts only
        raise ValueError(
            f"{shown!r} holds a user name or password: give them with --auth "
            "(-a auth=USER:PASSWORD), which sends them to the site's own hosts only"
        )
    return url
