"""A message cut to its target's limits: whole items while they fit, then
"and N more" (never a link cut in the middle of its URL).

The limits, from each service's documentation (docs/guide/notifications.md):
Slack 50 blocks, 3,000 characters a section, 150 a header, and about
12,000 of block text in all (Slack refuses messages well under its
documented limits past that); Discord 25 fields of 1,024 characters, a
description of 4,096, 6,000 in all; Teams about 28 KB a message (20 KB
kept: the card's envelope counts); an e-mail and the webhook's JSON, a
generous count.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from linkaudit.notify.changes import Link

T = TypeVar("T")
MORE_LINKS = "and {n} more new broken link{s}: the report has them all"


def clip(text: str, limit: int) -> str:
    """``text`` within ``limit`` characters, an ellipsis where it was cut."""
    return text if len(text) <= limit else text[: max(limit - 1, 0)] + "…"


def more(n: int, words: str = "more") -> str:
    return f"and {n:,} {words}" if n > 0 else ""


def more_links(n: int) -> str:
    return MORE_LINKS.format(n=f"{n:,}", s="s" * (n != 1)) if n > 0 else ""


def fit(items: Sequence[T], size: Callable[[T], int], budget: int, count: int) -> list[T]:
    """The first items whose sizes add up to at most ``budget``, at most
    ``count`` of them (the rest are "and N more")."""
    kept: list[T] = []
    used = 0
    for item in items[:count]:
        cost = size(item)
        if used + cost > budget:
            break
        kept.append(item)
        used += cost
    return kept


def place_lines(link: Link, limit: int) -> list[str]:
    """The places of a new link in words, the first ``limit``, then "and N
    more places"."""
    words = [place.words() for place in link.places]
    if len(words) <= limit:
        return words
    return [*words[: max(limit - 1, 0)], more(len(words) - max(limit - 1, 0), "more places")]


def listed(urls: Sequence[str], limit: int, width: int) -> str:
    """URLs apart by commas within ``width`` characters, at most ``limit``,
    then "and N more"."""
    shown: list[str] = []
    used = 0
    for url in urls[:limit]:
        if used + len(url) + 2 > width - 20:
            break
        shown.append(url)
        used += len(url) + 2
    tail = more(len(urls) - len(shown))
    return ", ".join(shown) + (f" {tail}" if tail else "")
