"""An answer to one request of a check, as the components read it: the
one value both routes of an audit hand to the decision table and the
readers (``checks.py``, ``pages.py``, ``probes.py``, ``sitemaps.py``,
``replay.py``).  The crawl makes it from Scrapy's ``Response``
(``components/checks.py``: ``reply_of``); the walk of a build makes it from
the build's files (``localbuild/files.py``), without Scrapy.  So what an
answer means is written once, whichever route asked.

Scrapy-free at import: the walk of a build never imports Scrapy.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from linkaudit.rules.appshell import looks_like_app_shell
from linkaudit.rules.rendered import RenderFacts
from linkaudit.rules.statuses import media_type

# how an answer was obtained
NETWORK = "network"  # a request answered by the server (or the build's handler)
STORED = "stored"  # the audit database's copy (fresh, or a 304 from the server)
FILE = "file"  # a build's file, read by the walk


@dataclass(frozen=True)
class Reply:
    """One request's answer: the check it belongs to (``url`` checked, its
    ``depth``, the ``phase`` it was asked in, ``rules/decisions.py``), the
    request's ``method``, the answer's ``status``, ``headers`` (names as
    bytes, read with ``get``, Scrapy's ``Headers`` or a plain mapping),
    ``body`` (empty when it was not downloaded: a HEAD, a GET stopped at
    the headers), its ``text`` (the body decoded, None when it is not text),
    whether the body was cut at the size cap, what the redirect middleware
    read of a ``Location`` (the target, or why there is none), the referrer
    the URL was found on, ``via``: how it was obtained, and what the audit
    database knew of the URL (``history``).  A render's answer (phase
    ``render``) is the page's own answer, as fetched, with what the browser
    made of it (``rendered``: its DOM, or why the render failed).  ``source``:
    the Scrapy response, for the little only the crawl has (its request,
    for the check's next one; the page archive's signal)."""

    url: str
    depth: int
    phase: str
    method: str
    status: int
    headers: Mapping[bytes, Any]
    body: bytes = b""
    # the body decoded, when it is text (None: not text); called at most
    # once, when a reader wants the text (a sitemap is read as bytes)
    decode: Callable[[], str | None] = lambda: None
    truncated: bool = False
    location: str | None = None
    location_error: str | None = None
    referrer: str | None = None
    via: str = NETWORK
    history: Any = None  # what the audit database knew of the URL (replay.py)
    source: Any = None
    rendered: RenderFacts | None = None  # a render's answer (phase render)

    @cached_property
    def text(self) -> str | None:
        """The body decoded; None when it is not text."""
        return self.decode()

    @cached_property
    def app_shell(self) -> str | None:
        """Why its text looks like an app shell (``rules/appshell.py``), or
        None; read once, whoever asks (the decision table, the page's result)."""
        return looks_like_app_shell(self.text or "")

    @property
    def kind(self) -> str | None:
        """Its media type (Content-Type without parameters)."""
        return media_type(self.headers.get(b"Content-Type"))
