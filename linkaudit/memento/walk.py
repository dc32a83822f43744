"""One broken link's walk through an archive, to the copy readers saw.

Scrapy-free: it is told each answer (status, headers, body) and says what
to ask next, or how the walk ended (:class:`Found`), so each rule is unit
tested without a crawl (``tests/test_memento.py``).

The walk:

1. the TimeMap (a Wayback service's is known; another service's TimeGate is
   asked first, with ``Accept-Datetime``, and its ``Link: rel="timemap"``
   followed; a TimeGate without one gives its own memento links);
2. the copies made at or before the date the link broke (``when``), newest
   first: a TimeGate alone picks the nearest copy on either side, often the
   archive's copy of the error page, made after the link broke;
3. each copy asked as archived (a Wayback copy's ``id_`` form: the status
   archived, no banner): it counts only if it answers 200, names the same
   original (``Link: rel="original"``, or the Wayback path) and is no
   archived error page (the soft-404 rules: its title or first heading
   says not found); a redirect to a copy of the same original (another
   capture time) is followed, at most ``HOPS`` times; a redirect to another
   page, an archived 404, a soft 404: the next older copy, at most
   ``tries`` copies.

A 429 or 5xx that got this far (``Retry-After`` was honoured by the crawl's
middleware first) ends the walk with ``trouble``: the service is
struggling, and the crawl stops asking it for this audit.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import NamedTuple
from urllib.parse import urljoin

from linkaudit.rules.memento import (
    Copy,
    accept_datetime,
    before,
    copies,
    first_link,
    http_datetime,
    is_wayback,
    iso_date,
    parse_links,
    raw_copy,
    same_original,
    shown_copy,
    timegate_url,
    timemap_url,
    wayback_original,
)
from linkaudit.rules.soft404 import says_not_found

HOPS = 3  # redirects between copies followed for one copy


class Ask(NamedTuple):
    """The next request of the walk."""

    url: str
    kind: str  # "timegate", "timemap" or "copy"
    headers: dict[str, str]


class Found(NamedTuple):
    """How a walk ended: a copy (``url``, ``date``), or none and why
    (``note``); ``final``: the answer is the archive's, to be kept (with
    ``--db``, not asked again); not final: the service could not tell."""

    url: str | None
    date: str | None
    note: str | None
    final: bool
    tried: int
    trouble: bool = False  # the service struggled (429, 5xx): ask it no more now


@dataclass
class Walk:
    """The walk of ``url`` through ``service`` (a TimeGate prefix) for a copy
    made at or before ``when`` (None: the newest), trying at most ``tries``
    copies."""

    url: str
    service: str
    when: datetime | None
    tries: int = 5
    queue: list[Copy] = field(default_factory=list)
    tried: int = 0
    hops: int = 0
    current: Copy | None = None
    rejected: list[str] = field(default_factory=list)  # why each copy tried was not taken

    def first(self) -> Ask:
        if is_wayback(self.service):
            return Ask(timemap_url(self.service, self.url), "timemap", {})
        headers = {"Accept-Datetime": accept_datetime(self.when)} if self.when else {}
        return Ask(timegate_url(self.service, self.url), "timegate", headers)

    def answer(
        self, asked: Ask, status: int, headers: Mapping[str, str], body: bytes
    ) -> Ask | Found:
        """What follows the answer to ``asked`` (``headers``: lower-case names)."""
        if status == 429 or status >= 500:
            return Found(None, None, f"the archive answered {status}", False, self.tried, True)
        if asked.kind == "copy":
            return self._copy(asked, status, headers, body)
        if status == 404:
            return Found(None, None, "not in the archive", True, self.tried)
        links = parse_links(headers.get("link", ""), asked.url)
        if asked.kind == "timegate":
            timemap = first_link(links, "timemap")
            if timemap is not None:
                return Ask(timemap, "timemap", {})
            listed = copies(links)  # a TimeGate without a TimeMap: its own memento links
            if not listed and 300 <= status < 400 and headers.get("location"):
                return self._unlisted(urljoin(asked.url, headers["location"]))
            return self._next(listed)
        if status != 200:
            return Found(None, None, f"the archive's TimeMap answered {status}", False, self.tried)
        text = body.decode("utf-8", "replace")
        return self._next(copies(parse_links(text, asked.url)))

    def _unlisted(self, location: str) -> Ask | Found:
        """The TimeGate's own pick, its date unknown until it answers."""
        self.queue = []
        self.current = None
        return self._ask_copy(location)

    def _next(self, listed: list[Copy] | None = None) -> Ask | Found:
        if listed is not None:
            self.queue = before(listed, self.when)
            if not self.queue:
                return self._none(listed)
        if self.tried >= self.tries or not self.queue:
            why = "; ".join(self.rejected)
            return Found(
                None, None, f"no good copy among {self.tried} tried ({why})", True, self.tried
            )
        self.current = self.queue.pop(0)
        self.hops = 0
        return self._ask_copy(self.current.url)

    def _none(self, listed: list[Copy]) -> Found:
        if not listed:
            return Found(None, None, "not in the archive", True, self.tried)
        assert self.when is not None
        day = iso_date(self.when)[:10]
        return Found(None, None, f"no copy made before {day}", True, self.tried)

    def _ask_copy(self, url: str) -> Ask:
        return Ask(raw_copy(url), "copy", {})

    def _copy(
        self, asked: Ask, status: int, headers: Mapping[str, str], body: bytes
    ) -> Ask | Found:
        if 300 <= status < 400 and headers.get("location"):
            target = urljoin(asked.url, headers["location"])
            original = wayback_original(target) or _original(headers, target)
            if original and same_original(original, self.url) and self.hops < HOPS:
                self.hops += 1  # another capture of the same page: followed
                return self._ask_copy(target)
            return self._reject(f"a redirect to {original or target}")
        if status != 200:
            return self._reject(f"archived status {status}")
        original = _original(headers, asked.url)
        if original is not None and not same_original(original, self.url):
            return self._reject(f"a copy of {original}")
        said = says_not_found(body.decode("utf-8", "replace"))
        if said is not None:
            return self._reject(f"an archived error page ({said[:60]})")
        when = http_datetime(headers.get("memento-datetime"))
        if when is None and self.current is not None:
            when = self.current.when
        if self.when is not None and when is not None and when > self.when and self.current is None:
            return self._reject("made after the link broke")
        date = iso_date(when) if when is not None else None
        self.tried += 1
        return Found(shown_copy(asked.url), date, None, True, self.tried)

    def _reject(self, why: str) -> Ask | Found:
        self.tried += 1
        self.rejected.append(why)
        return self._next()


def _original(headers: Mapping[str, str], base: str) -> str | None:
    """The original a copy names in its ``Link: rel="original"`` (or the
    Wayback path of its URL)."""
    named = first_link(parse_links(headers.get("link", ""), base), "original")
    return named or wayback_original(base)
