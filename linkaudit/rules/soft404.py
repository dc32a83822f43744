"""Soft 404s: pages that answer 200 but are error pages.

Two signals, as the literature uses them (Bar-Yossef et al., WWW 2004;
Meneses et al., TPDL 2012):

- a probe: for each host and directory pattern that serves near HTML, one
  URL that cannot exist, of the same shape (``/blog/<token>.html`` for
  ``/blog/post.html``).  A site with real 404s answers it 404; a site that
  answers 200 shows its error page, and a page near-identical to that
  answer (same status, shingle resemblance at least
  ``LINKAUDIT_SOFT_404_SIMILARITY``) is one;
- the page's ``<title>`` or first ``<h1>`` says "not found" (its text may
  mention it freely: only those two are read).

A page's fingerprint is a bottom-k sketch of its word 3-shingles (crc32,
the 16 smallest): 16 numbers estimate the resemblance of two pages, and are
stable across processes (a shared audit's workers compare each other's).
"""

from __future__ import annotations

import hashlib
import heapq
import posixpath
import re
import zlib
from urllib.parse import urlsplit

PROBE_PREFIX = "linkaudit-probe-"
SKETCH = 16  # shingle hashes kept per page
WORDS = 2000  # words read per page: an error page is short, a longer page is none
_PROBE = re.compile(rf"/{PROBE_PREFIX}[0-9a-f]{{16}}(\.[A-Za-z0-9]{{1,8}})?$")
# What a reader does not see: <script>, <style>, <template> and comments,
# each up to its end (one without an end is text)
_HIDDEN = re.compile(r"<(script|style|template)\b|<!--", re.I)
_HIDDEN_END = {  # by the length of the opening name
    6: re.compile(r"</script\s*>", re.I),
    5: re.compile(r"</style\s*>", re.I),
    8: re.compile(r"</template\s*>", re.I),
    0: re.compile(r"-->"),
}
_TAG = re.compile(r"<[^>]*>")
_TITLE = (re.compile(r"<title\b[^>]*>", re.I), re.compile(r"</title\s*>", re.I))
_H1 = (re.compile(r"<h1\b[^>]*>", re.I), re.compile(r"</h1\s*>", re.I))
_NOT_FOUND = re.compile(
    r"\bnot\s+found\b|\berror\s*404\b|^\s*404\b|\bpage\s+(?:does\s+not|doesn't|no\s+longer)\s+exists?\b"
    r"|\bno\s+longer\s+available\b|\bnicht\s+gefunden\b|\bintrouvable\b|\bno\s+encontrad[ao]\b",
    re.I,
)


def pattern_of(url: str) -> str:
    """A URL's host and directory pattern: its directory and the shape of
    its last segment (the extension), e.g. ``http://h/blog/*.html``."""
    parts = urlsplit(url)
    directory, name = posixpath.split(parts.path or "/")
    extension = posixpath.splitext(name)[1] if name else ""
    directory = directory if directory.endswith("/") else directory + "/"
    return f"{parts.scheme}://{parts.netloc}{directory}*{extension}"


def probe_url(pattern: str, salt: str) -> str:
    """The URL that cannot exist for ``pattern``: the same for every worker
    and run of an audit of ``salt`` (the start URLs), unguessable otherwise."""
    prefix, extension = pattern.rsplit("*", 1)
    token = hashlib.sha1(f"{salt}\n{pattern}".encode()).hexdigest()[:16]
    return f"{prefix}{PROBE_PREFIX}{token}{extension}"


def is_probe(url: str) -> bool:
    return PROBE_PREFIX in url and _PROBE.search(urlsplit(url).path) is not None


def fingerprint(html: str) -> list[int]:
    """The page's sketch: the smallest crc32s of its word 3-shingles."""
    words = strip_tags(strip_hidden(html)).lower().split()[:WORDS]
    if len(words) < 3:
        shingles = {" ".join(words)}
    else:
        shingles = {" ".join(words[i : i + 3]) for i in range(len(words) - 2)}
    return heapq.nsmallest(SKETCH, {zlib.crc32(s.encode("utf-8", "replace")) for s in shingles})


def resemblance(a: list[int], b: list[int]) -> float:
    """The estimated share of shingles two pages have in common (0 to 1):
    of the smallest hashes of both together, those in both."""
    if not a or not b:
        return 0.0
    union = heapq.nsmallest(SKETCH, set(a) | set(b))
    both = set(a) & set(b)
    return sum(1 for h in union if h in both) / len(union)


def says_not_found(html: str) -> str | None:
    """The page's title or first heading, when it says the page is not there."""
    for start, end in (_TITLE, _H1):
        text = _element_text(html, start, end)
        if text is not None:
            text = " ".join(strip_tags(text).split())
            if _NOT_FOUND.search(text):
                return text
    return None


# Each of these is linear in the page: what a regular expression such as
# ``<title\b[^>]*>(.*?)</title\s*>`` does by itself, trying every start and
# scanning to the end of the page from each start that has no end (a page
# of ``<title>`` without ``</title>`` costs the square of its size).
def _element_text(html: str, start: re.Pattern[str], end: re.Pattern[str]) -> str | None:
    """The text between the first start tag that has an end tag after it
    and that end tag: the first start tag's, or none (a later start tag
    has no end tag after it either)."""
    opened = start.search(html, 0, html.rfind(">") + 1)  # each try stops at a ">"
    if opened is None:
        return None
    closed = end.search(html, opened.end())
    return None if closed is None else html[opened.end() : closed.start()]


def strip_tags(text: str) -> str:
    """Tags replaced by spaces; after the last ``>`` no ``<`` starts a tag."""
    cut = text.rfind(">") + 1
    return _TAG.sub(" ", text[:cut]) + text[cut:]


def strip_hidden(html: str) -> str:
    """Scripts, styles, templates and comments replaced by spaces, each from
    its start to its first end; one with no end stays, and once the end of
    a kind is missing it is never looked for again."""
    parts: list[str] = []
    done = at = 0
    ended: set[int] = set()  # kinds with no end left in the page
    while (m := _HIDDEN.search(html, at)) is not None:
        kind = len(m.group(1) or "")
        closed = None if kind in ended else _HIDDEN_END[kind].search(html, m.end())
        if closed is None:
            ended.add(kind)
            at = m.start() + 1
            continue
        parts.append(html[done : m.start()])
        parts.append(" ")
        done = at = closed.end()
    parts.append(html[done:])
    return "".join(parts)
