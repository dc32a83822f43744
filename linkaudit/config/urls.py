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


def service_url(settings: Any, name: str) -> str:
    """A Memento service's TimeGate prefix (``--archive-service``): an
    http(s) URL, the original URL is appended to it, so it ends with ``/``
    (added when missing, as ``https://web.archive.org/web`` means)."""
    value = str(settings.get(name) or "").strip()
    if not value:
        raise ValueError(
            "give the Memento service's TimeGate URL, e.g. https://web.archive.org/web/"
        )
    url = _http_url(value, "URL")
    if urlsplit(url).query or urlsplit(url).fragment:
        raise ValueError(f"{masked(value)!r}: the URL is appended to it, so it takes no ? or #")
    return url if url.endswith("/") else url + "/"


# A host and port as people type them without a scheme: a name with a dot
# (example.com), localhost, an IPv4 or bracketed IPv6 address, a :port
_BARE = re.compile(
    r"(?P<host>localhost|\[[0-9A-Fa-f:.]+\]|[0-9]+(?:\.[0-9]+){3}|"
    r"[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.(?P<tld>[A-Za-z]{2,63}))"
    r"(?P<port>:[0-9]{1,5})?(?:[/?#].*)?",
    re.ASCII | re.DOTALL,
)
# names whose last label is a file's extension, not a top-level domain
_FILE_ENDINGS = frozenset(
    "html htm xhtml shtml php asp aspx jsp xml json txt md css js pdf png jpg gif svg".split()
)


def _meant(raw: str) -> str | None:
    """The URL a value without a scheme most likely meant: ``http://`` for
    this machine, an address or a port (``127.0.0.1:9201``), else
    ``https://`` (``example.com/docs``); None when it does not look like a
    host (``index.html``, ``mailto:...``)."""
    value = raw.strip()
    m = _BARE.fullmatch(value)
    if m is None or (m["tld"] or "").lower() in _FILE_ENDINGS:
        return None
    local = m["tld"] is None or m["port"] is not None
    try:
        return canonicalize(("http://" if local else "https://") + value)
    except InvalidURL:
        return None


def _http_url(raw: str, what: str) -> str:
    """A URL the user gave, canonical; errors never show its password."""
    shown = masked(raw)
    if scheme_of(raw) not in HTTP_SCHEMES:
        meant = _meant(raw)
        hint = f" (did you mean {masked(meant)}?)" if meant else ""
        raise ValueError(f"{shown!r} is not an http(s) {what}{hint}")
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
