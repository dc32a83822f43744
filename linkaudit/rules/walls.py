"""Bot walls: the deny and challenge answers of the common bot-protection
services, each recognised by the markers its vendor documents (or a
maintained detector reads), with the source of every marker.

A walled URL is neither broken nor ok: what the wall answered says nothing
about the page behind it.  It is ``unchecked``, and its ``error`` names the
wall (:func:`wall_words`), so the report counts it per wall
(:func:`wall_named` reads the name back).

A wall is recognised when the answer's status is one the wall uses and one
of its markers is there: a header (name, and a word its value holds), a
cookie it sets (``Set-Cookie``, by the start of the cookie's name), or words
of its page.  The status matters: the headers of most of these services
are on every answer they pass through (``x-datadome``, ``x-iinfo``,
``Server: AkamaiGHost``), and the presence of a wall is no action by it.  A
plain 403 with no marker is the site's own answer: a verdict.

Pure (no Scrapy): the body is the bounded prefix the download gate lets
through for an answer that may be a wall (``components/gate.py``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

# How much of a body the markers are looked for in (the download gate lets
# this much of a far answer through: ``components/gate.py``).
BODY_PREFIX = 32 * 1024
# How much of a page an ``exact`` wall's words are looked for in: the head
# of the page, where Anubis writes them (its challenge scripts), read on
# every 200 page whatever its length.
HEAD_PREFIX = 8 * 1024

# where a marker is
HEADER, COOKIE, BODY = "header", "cookie", "body"

# Statuses a wall's page may come with when it is configurable: any error.
ERRORS = frozenset(range(400, 600))


@dataclass(frozen=True)
class Marker:
    """``where`` (HEADER, COOKIE or BODY); ``name``: the header's name, the
    start of the cookie's name (lower case), or for BODY nothing; ``words``:
    what the header's value or the page holds (lower case; empty: any value),
    and the ``source`` that documents it."""

    where: str
    name: bytes
    words: bytes
    source: str


@dataclass(frozen=True)
class Wall:
    """A bot wall: its ``name`` in the report, the ``statuses`` its deny and
    challenge answers use (None: any status but a redirect, for a wall whose
    challenge answers 200 by default), its ``markers`` (none: the status
    alone is the wall's own); ``exact``: its page's words are looked for as
    the service writes them, case and all, in the page's first
    :data:`HEAD_PREFIX` bytes (cheap enough for every 200 page read)."""

    name: str
    statuses: frozenset[int] | None
    markers: tuple[Marker, ...]
    exact: bool = False


CLOUDFLARE_DOCS = (
    "https://developers.cloudflare.com/cloudflare-challenges/challenge-types/"
    "challenge-pages/detect-response/"
)
AWS_WAF_DOCS = (
    "https://docs.aws.amazon.com/waf/latest/developerguide/waf-captcha-and-challenge-actions.html"
)
WAFW00F = "https://github.com/EnableSecurity/wafw00f/blob/master/wafw00f/plugins/"
ANUBIS = "https://github.com/TecharoHQ/anubis/blob/main/"
DATADOME_DOCS = "https://docs.datadome.co/reference/validate-request"
PX_ENFORCER = (
    "https://github.com/PerimeterX/perimeterx-python-wsgi/blob/master/perimeterx/"
    "templates/block_template.mustache, px_blocker.py"
)
GO_AWAY = "https://git.gammaspectra.live/git/go-away (GitHub mirror WeebDataHoarder/go-away): "

WALLS: tuple[Wall, ...] = (
    Wall(
        "Cloudflare",
        frozenset({403, 429, 503}),
        (Marker(HEADER, b"cf-mitigated", b"", CLOUDFLARE_DOCS),),
    ),
    Wall(
        "AWS WAF",  # Challenge: 202; CAPTCHA: 405; the interstitial only for Accept: text/html
        frozenset({202, 405}),
        (Marker(HEADER, b"x-amzn-waf-action", b"", AWS_WAF_DOCS),),
    ),
    Wall(
        "Vercel",  # Attack Challenge Mode, the firewall's deny and challenge rules
        frozenset({403, 429}),
        (
            Marker(
                HEADER,
                b"x-vercel-mitigated",
                b"",
                "https://github.com/vercel-labs/vgpu/pull/228 (Vercel Labs: 403 with"
                " x-vercel-mitigated: challenge and the Security Checkpoint on every path;"
                " no page of Vercel's docs names the header)",
            ),
            Marker(
                BODY, b"", b"<title>vercel security checkpoint</title>", WAFW00F + "vercel.py"
            ),
        ),
    ),
    Wall(
        "DataDome",  # a blocked request: 401 or 403 with the API's page
        frozenset({401, 403}),
        (
            Marker(HEADER, b"x-datadome", b"", DATADOME_DOCS + " (X-DataDome: protected)"),
            Marker(COOKIE, b"datadome", b"", DATADOME_DOCS + " (Set-Cookie: datadome=...)"),
            Marker(
                BODY,
                b"",
                b"captcha-delivery.com",
                "https://github.com/ZennoLab/capmonstercloud-docs (captchas/datadome.md: the"
                " 403 page's captcha from geo.captcha-delivery.com)",
            ),
        ),
    ),
    Wall(
        "Imperva",
        frozenset({403}),
        (
            Marker(
                HEADER,
                b"x-iinfo",
                b"",
                "https://docs.imperva.com/bundle/cloud-application-security/page/settings/"
                "caching.htm, https://http.dev/x-iinfo (on every answer of Imperva's edge)",
            ),
            Marker(COOKIE, b"incap_ses_", b"", WAFW00F + "incapsula.py"),
            Marker(COOKIE, b"visid_incap_", b"", WAFW00F + "incapsula.py"),
            Marker(BODY, b"", b"incapsula incident id", WAFW00F + "incapsula.py"),
            Marker(BODY, b"", b"/_incapsula_resource", WAFW00F + "incapsula.py"),
        ),
    ),
    Wall(
        "Sucuri",
        frozenset({403}),
        (
            Marker(HEADER, b"x-sucuri-block", b"", WAFW00F + "sucuri.py"),
            Marker(HEADER, b"x-sucuri-id", b"", WAFW00F + "sucuri.py"),
            Marker(BODY, b"", b"sucuri website firewall", WAFW00F + "sucuri.py"),
        ),
    ),
    Wall(
        "Akamai",
        frozenset({403}),
        (
            Marker(HEADER, b"server", b"akamaighost", WAFW00F + "kona.py"),
            Marker(
                BODY,
                b"",
                b"errors&#46;edgesuite&#46;net",
                "https://community.akamai.com/community/cloud-security/blog/2016/04/07/"
                "why-is-akamai-blocking-me (the Access Denied page and its reference number)",
            ),
        ),
    ),
    Wall(
        "HUMAN/PerimeterX",  # a block: 403 and the captcha page; a rate limit: 429
        frozenset({403, 429}),
        (
            Marker(BODY, b"", b'<div id="px-captcha">', PX_ENFORCER),
            Marker(BODY, b"", b"window._pxappid", PX_ENFORCER),
            Marker(BODY, b"", b"perimeterx.com/whywasiblocked", WAFW00F + "perimeterx.py"),
        ),
    ),
    Wall(
        "Anubis",  # challenge and deny pages answer 200 unless configured
        None,
        (
            Marker(
                COOKIE,
                b"techaro.lol-anubis-cookie-verification",
                b"",
                ANUBIS + "lib/http.go (the challenge sets the cookie-verification cookie)",
            ),
            Marker(BODY, b"", b'<script id="anubis_challenge"', ANUBIS + "web/index.templ"),
            Marker(BODY, b"", b"/.within.website/x/cmd/anubis/", ANUBIS + "web/index.templ"),
        ),
        exact=True,
    ),
    Wall(
        "go-away",  # challenges answer 418 by default, a deny 403
        ERRORS,
        (
            Marker(COOKIE, b".go-away-", b"", GO_AWAY + "utils/cookie.go"),
            Marker(
                BODY,
                b"",
                b'protected by <a href="https://git.gammaspectra.live/git/go-away">go-away</a>',
                GO_AWAY + "embed/templates/challenge-anubis.gohtml",
            ),
        ),
    ),
    # LinkedIn answers 999 to what it takes for automated: no LinkedIn page
    # says so; https://github.com/JustinBeckwith/linkinator/blob/main/src/index.ts
    # skips it ("Used by LinkedIn and other sites to block automated
    # requests"); no registered status is 999 (RFC 9110 section 15: 100-599)
    Wall("LinkedIn", frozenset({999}), ()),
)

WORDS = "could not verify: behind "


@cache
def _walls_for(status: int) -> tuple[Wall, ...]:
    """The walls that answer with ``status`` (a redirect is no wall's)."""
    if 300 <= status < 400:
        return ()
    return tuple(w for w in WALLS if w.statuses is None or status in w.statuses)


def wall_of(status: int, headers: Mapping[bytes, Any], body: bytes = b"") -> Wall | None:
    """The wall that answered, or None.  ``headers``: names as bytes, read
    with ``get`` (Scrapy's ``Headers`` or a plain mapping); ``body``: what
    was downloaded of the answer (only its first :data:`BODY_PREFIX` bytes
    are read)."""
    page: bytes | None = None
    cookies: list[bytes] | None = None
    for wall in _walls_for(status):
        if not wall.markers:
            return wall
        for marker in wall.markers:
            if marker.where == BODY:
                if wall.exact:
                    if body.find(marker.words, 0, HEAD_PREFIX) >= 0:
                        return wall
                    continue
                if page is None:
                    page = body[:BODY_PREFIX].lower()
                if marker.words in page:
                    return wall
            elif marker.where == HEADER:
                if any(marker.words in value.lower() for value in _values(headers, marker.name)):
                    return wall
            else:
                if cookies is None:
                    cookies = list(_cookies(headers))
                if any(name.startswith(marker.name) for name in cookies):
                    return wall
    return None


def wall_words(wall: Wall, status_words: str) -> str:
    """The ``error`` of a walled URL: ``could not verify: behind DataDome,
    which refused automated checking (403 Forbidden)``."""
    return f"{WORDS}{wall.name}, which refused automated checking ({status_words})"


def wall_named(error: str | None) -> str | None:
    """The wall an ``error`` names (:func:`wall_words`), or None."""
    if not error or not error.startswith(WORDS):
        return None
    name = error[len(WORDS) :].split(",", 1)[0]
    return name if name in NAMES else None


NAMES = frozenset(w.name for w in WALLS)


def _values(headers: Mapping[bytes, Any], name: bytes) -> list[bytes]:
    """Every value of header ``name``, as bytes (none when absent)."""
    getlist = getattr(headers, "getlist", None)
    if getlist is not None:
        found: Iterable[Any] = getlist(name)
    else:
        value = headers.get(name)
        if value is None:  # a plain mapping: its names may be in any case
            value = next((v for k, v in headers.items() if _lower(k) == name), None)
        found = () if value is None else value if isinstance(value, list | tuple) else (value,)
    return [v if isinstance(v, bytes) else str(v).encode("latin-1", "replace") for v in found]


def _cookies(headers: Mapping[bytes, Any]) -> Iterable[bytes]:
    """The names of the cookies the answer sets, lower case."""
    for value in _values(headers, b"set-cookie"):
        yield value.split(b"=", 1)[0].strip().lower()


def _lower(key: Any) -> bytes:
    return (key if isinstance(key, bytes) else str(key).encode("latin-1", "replace")).lower()
