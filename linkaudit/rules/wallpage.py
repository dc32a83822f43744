"""A bot wall's page, read where the wall writes its markers.

A wall's words count only where its page puts them: in the page's markup,
never in a comment (``<!-- /.within.website/x/cmd/anubis/ -->`` on a site's
own page is no wall), and its resources only as the attribute of the
element the wall writes (Imperva's ``<iframe src="/_Incapsula_Resource...">``,
DataDome's ``<script src="https://ct.captcha-delivery.com/c.js">``).  The
tags are read by the page scan's tokenizer (``rules/html/tokenizer.py``),
so a comment, a script's text or a ``<title>``'s text holds no tag.

Both readings are made once per answer, and only when the cheap test (the
marker's words somewhere in the prefix) passed: a page that names no wall
costs one ``bytes.find`` per marker.
"""

from __future__ import annotations

import re

from linkaudit.rules.html.tokenizer import start_tags

# a comment as the HTML Standard's tokenizer ends it ("<!-->" and "<!--->" at
# once, "--!>" too); an unterminated one runs to the end of what was read
_COMMENT = re.compile(rb"<!--(?:>|->|.*?--!?>|.*\Z)", re.DOTALL)


class WallPage:
    """The first ``size`` bytes of an answer's body, as the markers read
    them: ``lowered`` (every byte, lower case: the cheap test), ``text``
    (lower case, comments removed) and ``tags`` (the start tags).
    ``exact``: the cheap test takes the words as the wall writes them, case
    and all, on the bytes as they came (a wall read on every 200 page: no
    page is lowered for it)."""

    def __init__(self, body: bytes, size: int, exact: bool = False):
        self.raw = body[:size]
        self.exact = exact
        self._lowered: bytes | None = None
        self._text: bytes | None = None
        self._tags: list[tuple[str, dict[str, str]]] | None = None

    @property
    def lowered(self) -> bytes:
        if self._lowered is None:
            self._lowered = self.raw.lower()
        return self._lowered

    @property
    def text(self) -> bytes:
        """The page's markup and text without its comments, lower case."""
        if self._text is None:
            lowered = self.lowered
            self._text = _COMMENT.sub(b" ", lowered) if b"<!--" in lowered else lowered
        return self._text

    @property
    def tags(self) -> list[tuple[str, dict[str, str]]]:
        """Every start tag of the prefix (name, attributes), in order."""
        if self._tags is None:
            # latin-1: one character per byte, the ASCII markers as written
            html = self.raw.decode("latin-1")
            self._tags = [(name, attrs) for name, attrs, _, _ in start_tags(html, every=True)]
        return self._tags

    def _maybe(self, words: bytes) -> bool:
        """The cheap test: ``words`` anywhere in the prefix."""
        return words in (self.raw if self.exact else self.lowered)

    def has_text(self, words: bytes) -> bool:
        """``words`` (lower case) in the page, not in a comment."""
        return self._maybe(words) and words.lower() in self.text

    def has_tag(self, elements: frozenset[str], attribute: str, words: bytes) -> bool:
        """An element of ``elements`` whose ``attribute`` holds ``words``
        (case aside)."""
        if not self._maybe(words):
            return False
        wanted = words.decode("latin-1").lower()
        return any(
            name in elements and wanted in attrs.get(attribute, "").lower()
            for name, attrs in self.tags
        )
