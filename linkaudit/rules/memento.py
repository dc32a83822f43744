"""Archived copies of a broken link: the Memento protocol (RFC 7089), pure.

A Memento service answers three kinds of question about an original URL
(URI-R): its TimeGate (URI-G) redirects to the copy (URI-M) nearest a
datetime, on either side of it; its TimeMap (URI-T, ``application/link-format``,
RFC 6690) lists every copy with its archival datetime; a copy answers with
``Memento-Datetime`` and a ``Link`` naming its original.  The Internet
Archive (the default service) and pywb serve the Wayback shapes:
TimeGate ``<prefix><URI-R>``, TimeMap ``<prefix>timemap/link/<URI-R>``,
copy ``<prefix><14 digits>/<URI-R>``, its archived bytes unmodified at
``<prefix><14 digits>id_/<URI-R>``.

The walk (``linkaudit/memento/walk.py``) asks for the TimeMap, takes the
copies made at or before the date the link broke, newest first, and keeps
the first that answers 200 and is no archived error page.  This module
holds what it reads and writes: the link format, the dates, the Wayback
URL shapes, the same original, the Robust Links markup, and which URLs are
never sent to a service (a private address).
"""

from __future__ import annotations

import html
import ipaddress
import re
from datetime import UTC, datetime
from email.utils import format_datetime, parsedate_to_datetime
from typing import NamedTuple, TypedDict
from urllib.parse import urljoin, urlsplit

# a TimeMap or a Link header: <uri>; name="value"; name=token, ...
_LINK = re.compile(r'\s*<([^>]*)>\s*((?:;\s*[A-Za-z0-9*_.-]+\s*(?:=\s*(?:"[^"]*"|[^",;]*))?\s*)*)')
_PARAM = re.compile(r';\s*([A-Za-z0-9*_.-]+)\s*(?:=\s*(?:"([^"]*)"|([^",;]*)))?')
# a Wayback copy: <prefix><1-14 digits><modifier>/<URI-R>
_WAYBACK = re.compile(r"^(?P<prefix>.*?/)(?P<stamp>[0-9]{1,14})(?P<mod>[a-z]{2}_)?/(?P<orig>.+)$")
# names that only a private network resolves (RFC 6761, RFC 8375, common use)
_PRIVATE_SUFFIXES = (".localhost", ".local", ".internal", ".lan", ".home.arpa", ".intranet")


class ArchiveNote(TypedDict):
    """What a look-up in the archive found for a broken URL, as the state
    keeps it (``memento/lookups.py``; ``AuditState.note_archived``): the copy
    (``url``, ``date``), or none and why (``note``); whether the answer is
    final; how many copies were tried; when it was asked (``at``) and the
    moment the copy had to precede (``before``)."""

    url: str | None
    date: str | None
    note: str | None
    final: bool
    tried: int
    at: str
    before: str | None


class Link(NamedTuple):
    """One link of a link-format document: its target and parameters."""

    uri: str
    params: dict[str, str]

    @property
    def rels(self) -> tuple[str, ...]:
        return tuple(self.params.get("rel", "").lower().split())


class Copy(NamedTuple):
    """A memento listed by a TimeMap: its URL and archival datetime."""

    when: datetime
    url: str


def parse_links(text: str, base: str = "") -> list[Link]:
    """The links of a link-format document (a TimeMap) or a ``Link`` header
    value; targets made absolute against ``base``; what is not a link
    (garbage between commas) is skipped."""
    links: list[Link] = []
    at, end = 0, len(text)
    while at < end:
        m = _LINK.match(text, at)
        if m is None:  # not a link: skip to the next one
            nxt = text.find("<", at + 1)
            if nxt < 0:
                break
            at = nxt
            continue
        params = {
            p.group(1).lower(): (
                p.group(2) if p.group(2) is not None else (p.group(3) or "")
            ).strip()
            for p in _PARAM.finditer(m.group(2))
        }
        links.append(Link(urljoin(base, m.group(1).strip()), params))
        at = m.end()
        comma = text.find(",", at)
        nxt = text.find("<", at)
        if nxt < 0:
            break
        at = nxt if comma < 0 or comma > nxt else comma + 1
    return links


def http_datetime(value: str | None) -> datetime | None:
    """An HTTP date (``Memento-Datetime``, a TimeMap's ``datetime``) in UTC;
    None when it is no date."""
    if not value:
        return None
    try:
        when = parsedate_to_datetime(value.strip())
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if when is None:
        return None
    return when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)


def iso_datetime(value: str | None) -> datetime | None:
    """An ISO 8601 date or time (the report's times) in UTC; None if none."""
    if not value:
        return None
    try:
        when = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return http_datetime(value)
    return when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)


def accept_datetime(when: datetime) -> str:
    """``when`` as a TimeGate's ``Accept-Datetime`` wants it (RFC 1123, GMT)."""
    return format_datetime(when.astimezone(UTC), usegmt=True)


def copies(links: list[Link]) -> list[Copy]:
    """The mementos a TimeMap lists (``rel`` holds ``memento``), newest
    first; one without a readable datetime is left out."""
    found = []
    for link in links:
        if "memento" in link.rels:
            when = http_datetime(link.params.get("datetime"))
            if when is not None:
                found.append(Copy(when, link.uri))
    return sorted(set(found), key=lambda c: (c.when, c.url), reverse=True)


def before(found: list[Copy], when: datetime | None) -> list[Copy]:
    """The copies made at or before ``when`` (None: every copy), newest first."""
    return found if when is None else [c for c in found if c.when <= when]


def first_link(links: list[Link], rel: str) -> str | None:
    """The target of the first link whose ``rel`` holds ``rel``."""
    return next((link.uri for link in links if rel in link.rels), None)


# -- the Wayback shapes -------------------------------------------------------
def is_wayback(service: str) -> bool:
    """A service in the Wayback shape (the Internet Archive's, pywb's): its
    TimeGate prefix ends with ``/web/``; its TimeMap and raw copies are known
    without asking."""
    return urlsplit(service).path.endswith("/web/")


def timegate_url(service: str, url: str) -> str:
    return service + url


def timemap_url(service: str, url: str) -> str:
    """The Wayback TimeMap in link format (``is_wayback`` services)."""
    return f"{service}timemap/link/{url}"


def raw_copy(url: str) -> str:
    """A Wayback copy's archived bytes as archived (``id_``): the status
    archived, no banner, no rewriting; any other URL as it is."""
    m = _WAYBACK.match(url)
    if m is None or "/web/" not in m["prefix"]:
        return url
    return f"{m['prefix']}{m['stamp']}id_/{m['orig']}"


def shown_copy(url: str) -> str:
    """The copy a reader opens: a Wayback copy without its replay modifier."""
    m = _WAYBACK.match(url)
    if m is None or not m["mod"] or "/web/" not in m["prefix"]:
        return url
    return f"{m['prefix']}{m['stamp']}/{m['orig']}"


def wayback_original(url: str) -> str | None:
    """The URI-R a Wayback copy's URL names (None: not that shape)."""
    m = _WAYBACK.match(url)
    return m["orig"] if m is not None and "/web/" in m["prefix"] else None


def same_original(a: str, b: str) -> bool:
    """``a`` and ``b`` name the same resource as an archive keys it: the
    scheme, ``www.``, a default port, the case of the host and a trailing
    slash do not count (the Internet Archive merges them)."""
    return _key(a) == _key(b)


def _key(url: str) -> str:
    parts = urlsplit(url.strip())
    host = (parts.hostname or "").lower().removeprefix("www.")
    port = parts.port if parts.port not in (None, 80, 443) else None
    path = parts.path.rstrip("/") or ""
    query = f"?{parts.query}" if parts.query else ""
    return f"{host}{':' + str(port) if port else ''}{path}{query}"


# -- what is shown ------------------------------------------------------------
def robust_link(original: str, copy: str, date: str) -> str:
    """The Robust Links markup to paste (robustlinks.mementoweb.org): the
    link to the original, decorated with its copy and the copy's date."""
    a = html.escape
    return (
        f'<a href="{a(original)}" data-originalurl="{a(original)}" '
        f'data-versionurl="{a(copy)}" data-versiondate="{a(date[:10])}">{a(original)}</a>'
    )


def iso_date(when: datetime) -> str:
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


# -- privacy --------------------------------------------------------------------
def private_host(host: str | None) -> bool:
    """A host only a private network reaches: a loopback, private,
    link-local or otherwise non-global address, ``localhost`` and the names
    reserved for local networks, or a name of one label (``intranet``)."""
    if not host:
        return True
    name = host.strip("[]").lower().rstrip(".")
    try:
        return not ipaddress.ip_address(name).is_global
    except ValueError:
        pass
    return name == "localhost" or "." not in name or name.endswith(_PRIVATE_SUFFIXES)


def may_look_up(url: str, service: str) -> bool:
    """``url`` may be sent to ``service``: a service on a private address
    sees any URL (it is the user's own); a public one never sees a URL of a
    private host."""
    return private_host(urlsplit(service).hostname) or not private_host(urlsplit(url).hostname)
