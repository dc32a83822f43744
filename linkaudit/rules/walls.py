"""Bot walls: the deny and challenge answers of the common bot-protection
services, each recognised by the markers its vendor documents (or a
maintained detector reads), with the source of every marker.

A walled URL is neither broken nor ok: what the wall answered says nothing
about the page behind it.  It is ``unchecked``, and its ``error`` names the
wall (:func:`wall_words`); the wall's name travels apart, as data (the
result's ``wall``), so the report counts it per wall and the formats group
by it without reading the words back.

A wall is recognised when the answer's status is one the wall uses and one
of its markers is where the wall puts it: a header (name, and a word its
value holds), a cookie it sets (``Set-Cookie``, by the start of the
cookie's name), words of its page's markup (never in a comment), or an
element of its page (its ``<div id="px-captcha">``, the ``src`` of its
challenge's script or frame: ``rules/wallpage.py``).  The status matters:
the headers of most of these services are on every answer they pass
through (``x-datadome``, ``x-iinfo``, ``Server: AkamaiGHost``), and the
presence of a wall is no action by it.  A plain 403 with no marker is the
site's own answer: a verdict.  A wall whose pages may come with any status
(Anubis answers 200) is recognised by its page's structure alone; its
cookie is a hint that a HEAD's answer is asked again with GET (whose page
decides), never a verdict: a 404 that sets a cookie named like a wall's is
the site's 404.

Pure (no Scrapy): the body is the bounded prefix the download gate lets
through for an answer that may be a wall (``components/gate.py``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from linkaudit.rules.wallpage import WallPage

# How much of a body the markers are looked for in (the download gate lets
# this much of a far answer through: ``components/gate.py``).
BODY_PREFIX = 32 * 1024
# How much of a page an ``exact`` wall's words are looked for in: the head
# of the page, where Anubis writes them (its challenge scripts), read on
# every 200 page whatever its length.
HEAD_PREFIX = 8 * 1024

# where a marker is: a header, a cookie, words of the page's markup (not in
# a comment), an attribute of one of the page's elements
HEADER, COOKIE, TEXT, TAG = "header", "cookie", "text", "tag"


@dataclass(frozen=True)
class Marker:
    """``where`` (HEADER, COOKIE, TEXT or TAG); ``name``: the header's name,
    the start of the cookie's name (lower case), the attribute of a TAG's
    ``elements``, or for TEXT nothing; ``words``: what the header's value,
    the page or the attribute holds (lower case; empty: any value), and the
    ``source`` that documents it.  ``proof``: False for a hint only (a
    cookie the wall sets, on an answer whose status does not tell): it sends
    a HEAD's URL to a GET, whose page decides."""

    where: str
    name: bytes
    words: bytes
    source: str
    elements: frozenset[str] = frozenset()
    proof: bool = True


def _tag(elements: str, attribute: str, words: bytes, source: str) -> Marker:
    """A TAG marker: one of ``elements`` (space-separated names) whose
    ``attribute`` holds ``words``."""
    return Marker(TAG, attribute.encode(), words, source, frozenset(elements.split()))


@dataclass(frozen=True)
class Wall:
    """A bot wall: its ``name`` in the report, the ``statuses`` its deny and
    challenge answers use (None: any status but a redirect, for a wall whose
    challenge answers 200 by default), its ``markers`` (none: the status
    alone is the wall's own); ``exact``: its page's words are looked for as
    the service writes them, case and all, in the page's first
    :data:`HEAD_PREFIX` bytes (cheap enough for every 200 page read), and
    every one of its page's markers must be there (its page's structure: a
    wall that answers 200 is told from a page by more than a word)."""

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
            Marker(TEXT, b"", b"<title>vercel security checkpoint</title>", WAFW00F + "vercel.py"),
        ),
    ),
    Wall(
        "DataDome",  # a blocked request: 401 or 403 with the API's page
        frozenset({401, 403}),
        (
            Marker(HEADER, b"x-datadome", b"", DATADOME_DOCS + " (X-DataDome: protected)"),
            Marker(COOKIE, b"datadome", b"", DATADOME_DOCS + " (Set-Cookie: datadome=...)"),
            _tag(
                "script iframe",
                "src",
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
            Marker(TEXT, b"", b"incapsula incident id", WAFW00F + "incapsula.py"),
            _tag("iframe script", "src", b"/_incapsula_resource", WAFW00F + "incapsula.py"),
        ),
    ),
    Wall(
        "Sucuri",
        frozenset({403}),
        (
            Marker(HEADER, b"x-sucuri-block", b"", WAFW00F + "sucuri.py"),
            Marker(HEADER, b"x-sucuri-id", b"", WAFW00F + "sucuri.py"),
            Marker(TEXT, b"", b"sucuri website firewall", WAFW00F + "sucuri.py"),
        ),
    ),
    Wall(
        "Akamai",
        frozenset({403}),
        (
            Marker(HEADER, b"server", b"akamaighost", WAFW00F + "kona.py"),
            Marker(
                TEXT,
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
            _tag("div", "id", b"px-captcha", PX_ENFORCER),
            Marker(TEXT, b"", b"window._pxappid", PX_ENFORCER),
            _tag("a", "href", b"perimeterx.com/whywasiblocked", WAFW00F + "perimeterx.py"),
        ),
    ),
    Wall(
        # challenge and deny pages answer 200 unless configured: every page
        # of Anubis (its base template) holds its version as a JSON script
        # in the head, and its mascot or its challenge's script from the
        # wall's own path
        "Anubis",
        None,
        (
            Marker(
                COOKIE,
                b"techaro.lol-anubis-cookie-verification",
                b"",
                ANUBIS + "lib/http.go (the challenge sets the cookie-verification cookie)",
                proof=False,
            ),
            _tag("script", "id", b"anubis_", ANUBIS + "web/index.templ (anubis_version)"),
            _tag(
                "img script", "src", b"/.within.website/x/cmd/anubis/", ANUBIS + "web/index.templ"
            ),
        ),
        exact=True,
    ),
    Wall(
        # challenges answer 418 by default, a deny 403; one configured to
        # answer another status is that status's verdict (a 404 is broken)
        "go-away",
        frozenset({403, 418}),
        (
            Marker(COOKIE, b".go-away-", b"", GO_AWAY + "utils/cookie.go"),
            _tag(
                "a",
                "href",
                b"https://git.gammaspectra.live/git/go-away",
                GO_AWAY + "embed/templates/challenge-anubis.gohtml (its footer)",
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


def wall_of(
    status: int, headers: Mapping[bytes, Any], body: bytes = b"", *, hints: bool = False
) -> Wall | None:
    """The wall that answered, or None.  ``headers``: names as bytes, read
    with ``get`` (Scrapy's ``Headers`` or a plain mapping); ``body``: what
    was downloaded of the answer (only its first :data:`BODY_PREFIX` bytes
    are read); ``hints``: a HEAD's answer, which has no page: a marker that
    is only a hint counts (its GET decides)."""
    pages: dict[bool, WallPage] = {}
    cookies: list[bytes] | None = None
    for wall in _walls_for(status):
        if not wall.markers:
            return wall
        missing = False  # an ``exact`` wall's page marker not there
        for marker in wall.markers:
            if marker.where == HEADER:
                values = _values(headers, marker.name)
                if any(marker.words in value.lower() for value in values):
                    if marker.proof or hints:
                        return wall
            elif marker.where == COOKIE:
                if cookies is None:
                    cookies = list(_cookies(headers))
                if any(name.startswith(marker.name) for name in cookies):
                    if marker.proof or hints:
                        return wall
            elif not missing:
                page = pages.get(wall.exact)
                if page is None:
                    size = HEAD_PREFIX if wall.exact else BODY_PREFIX
                    page = pages[wall.exact] = WallPage(body, size, exact=wall.exact)
                if not _on(page, marker):
                    missing = wall.exact
                elif not wall.exact:
                    return wall
        if wall.exact and not missing and any(m.where in (TEXT, TAG) for m in wall.markers):
            return wall
    return None


def _on(page: WallPage, marker: Marker) -> bool:
    """Whether the page holds ``marker`` where the wall puts it."""
    if marker.where == TEXT:
        return page.has_text(marker.words)
    return page.has_tag(marker.elements, marker.name.decode(), marker.words)


def wall_words(wall: Wall, status_words: str) -> str:
    """The ``error`` of a walled URL: ``could not verify: behind DataDome,
    which refused automated checking (403 Forbidden)``."""
    return f"{WORDS}{wall.name}, which refused automated checking ({status_words})"


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
