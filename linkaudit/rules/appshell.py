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
