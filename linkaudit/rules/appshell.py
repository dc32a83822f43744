"""Pages built by JavaScript: does the server's HTML of a page look like an
app shell, whose links only exist once a browser runs its scripts?

linkaudit reads the server's HTML, so on such a page it checks almost
nothing; the report says so rather than call the page fine.  The signals,
as the frameworks' own starter pages send them, each with at least one
``<script>`` and a page that is thin on links (fewer than ``FEW_LINKS``
``<a>`` elements: a shell whose navigation is in its HTML is read anyway):

- an empty mount element: ``<div id="root"></div>`` (React), ``id="app"``
  (Vue), ``id="__next"``, ``id="__nuxt"``, ``id="___gatsby"``, or
  ``<app-root></app-root>`` (Angular), empty or with a short text such as
  "Loading...";
- a ``<noscript>`` asking for JavaScript ("You need to enable JavaScript to
  run this app.");
- scripts, at most one link and almost no text (fewer than ``FEW_WORDS``
  words outside scripts, styles and tags).

Not a shell, whatever the signals: a page that navigates away at once and
whose links are read, a redirect page (jekyll-redirect-from's, Sphinx's,
a host's "this page has moved"): an inline script sets ``location``
(``location.replace(...)``, ``location.href = ...``) or a ``<meta
http-equiv="refresh">`` names a URL, and the page holds a link (the refresh
is one): the visitor is sent on, and linkaudit checks where to.  Its
links were checked; saying otherwise would be wrong.  A script navigation
with no link in the HTML stays a shell when the signals say so: where it
goes is only known by running it (``--render auto`` records it).

Linear in the page and cheap: a page with no script or with ``FEW_LINKS``
links stops there (a few searches from its top); the other searches try a
start only up to the next ``<`` or ``>``, or a bounded length; the text is
read only on a page with at most one link.
"""

from __future__ import annotations

import re

from linkaudit.rules.html.lowered import lowered
from linkaudit.rules.soft404 import strip_hidden, strip_tags

FEW_LINKS = 10
FEW_WORDS = 40
MOUNT_IDS = ("root", "app", "__next", "__nuxt", "___gatsby")
_LINK = re.compile(r"<a\s")
MOUNT_TAGS = ("div", "main", "section", "span")
TRIES = 10  # mount ids looked at per page: each try reads back to its tag's start
# a mount id, then the element's start tag: its name, the rest of its
# attributes, and what follows up to its end tag (empty, or a short text)
_MOUNT_ID = re.compile(r"(?<![\w-])id\s*=\s*[\"']?(" + "|".join(MOUNT_IDS) + r")(?=[\"'\s/>])")
_TAG_NAME = re.compile(r"<([a-z]+)\b")
_EMPTY = re.compile(r"[^<>]*>[^<>]{0,60}</([a-z]+)\s*>")
_ANGULAR = re.compile(r"<app-root\b[^<>]*>[^<>]{0,60}</app-root\s*>")
_NOSCRIPT = re.compile(r"<noscript\b[^<>]*>([^<]{0,300})")
# a script that navigates: location set or replaced (not compared: ``==``)
_NAVIGATES = re.compile(r"\blocation\s*(?:\.\s*(?:replace|assign)\s*\(|(?:\.\s*href\s*)?=(?!=))")
_REFRESH = re.compile(r"http-equiv\s*=\s*[\"']?refresh\b")
_REFRESH_URL = re.compile(r"\burl\s*=")
TAGS_READ = 20  # inline scripts, and <meta> tags, looked at for a navigation
SCRIPT_READ = 4096  # characters of each (a redirect's script is a line)
TAG_READ = 1024  # characters of a <meta> tag
_ASKS = re.compile(
    r"\b(?:enable|turn\s+on|activate|requires?|needs?|need\s+to\s+enable)\b[^<]{0,80}"
    r"\bjavascript\b|\bjavascript\b[^<]{0,40}\b(?:required|enabled|to\s+run)\b",
)


def looks_like_app_shell(html: str) -> str | None:
    """Why the page looks built by JavaScript, in words, or None."""
    low = lowered(html)  # the scan's own copy: ASCII words in any case, same places
    if "<script" not in low:
        return None
    links = 0
    for _link in _LINK.finditer(low):  # a page with links stops early: most pages
        links += 1
        if links == FEW_LINKS:
            return None
    if _redirects(low, links):
        return None
    scripts = low.count("<script")
    bundles = f"{scripts} script{'s' if scripts > 1 else ''}"
    element = _empty_mount(low)
    if element is not None:
        return f"an empty {element} and {bundles}"
    for noscript in _NOSCRIPT.finditer(low):
        if _ASKS.search(noscript.group(1)):
            said = " ".join(html[noscript.start(1) : noscript.end(1)].split())
            return f"<noscript> says {said[:80]!r}"
    if links <= 1:
        words = len(strip_tags(strip_hidden(html)).split())
        if words < FEW_WORDS:
            return f"{bundles}, {links} link{'' if links == 1 else 's'} and {words} words of text"
    return None


def _redirects(low: str, links: int) -> bool:
    """The page navigates away at once and its links are read: a ``<meta>``
    refresh to a URL (itself a link the scan reads), or a link and an
    inline script that sets ``location``.  Each search is bounded: the
    first :data:`TAGS_READ` scripts, :data:`SCRIPT_READ` characters of
    each, :data:`TAG_READ` of each of the first ``<meta>`` tags."""
    start = 0
    for _ in range(TAGS_READ):
        at = low.find("<meta", start)
        if at < 0:
            break
        end = low.find(">", at, at + TAG_READ)
        tag = low[at : end if end >= 0 else at + TAG_READ]
        if _REFRESH.search(tag) and _REFRESH_URL.search(tag):
            return True
        start = at + 5
    if not links:
        return False
    start = 0
    for _ in range(TAGS_READ):
        at = low.find("<script", start)
        opened = low.find(">", at) if at >= 0 else -1
        if opened < 0:
            return False
        end = low.find("</script", opened)
        stop = opened + 1 + SCRIPT_READ if end < 0 else min(end, opened + 1 + SCRIPT_READ)
        if _NAVIGATES.search(low, opened + 1, stop):
            return True
        if end < 0:
            return False
        start = end
    return False


def _empty_mount(low: str) -> str | None:
    """The first empty mount element of a lowered page, as ``<div
    id="root">``, or None."""
    if _ANGULAR.search(low) is not None:
        return "<app-root>"
    for tries, found in enumerate(_MOUNT_ID.finditer(low)):
        if tries == TRIES:
            break
        opened = low.rfind("<", 0, found.start())
        if opened < 0 or low.find(">", opened, found.start()) >= 0:
            continue  # not inside a start tag
        name = _TAG_NAME.match(low, opened)
        if name is None or name.group(1) not in MOUNT_TAGS:
            continue
        rest = _EMPTY.match(low, found.end())
        if rest is not None and rest.group(1) == name.group(1):
            return f'<{name.group(1)} id="{found.group(1)}">'
    return None
