"""How long a URL has been broken, counted in audits: the rule of the
audit database's broken runs (``broken_since``, ``audits_broken``; and a
page's ``broken_links_since``, ``audits_with_broken_links``), kept apart
from where the runs are stored (``linkaudit/state/audits.py``).

A run is the unbroken series of audits that found a URL broken (or a page
carrying at least one broken link), this one included.  An audit that
checked the URL and did not find it broken ends the run, and so does a
complete audit that did not find the URL at all (the link is gone).  An
incomplete audit (a limit, an interruption, URLs left unchecked) that did
not check the URL knows nothing about it: the run goes on through it, not
counted, so a time-limited audit does not make every broken link "new".
A page's run is ended by a complete audit only: an incomplete one may have
checked the page and left its links unchecked.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import NamedTuple


class Streak(NamedTuple):
    """A broken run: when its first audit started, and how many audits."""

    since: str  # ISO 8601 UTC: the first audit's started_at
    audits: int


Runs = dict[str, Streak]  # URL (or page) -> its open run


def extend(before: Streak | None, started_at: str) -> Streak:
    """The run of a URL this audit (started at ``started_at``) finds broken."""
    return Streak(before.since, before.audits + 1) if before else Streak(started_at, 1)


def open_after(
    before: Mapping[str, Streak],
    now: Mapping[str, Streak],
    checked: Collection[str],
    complete: bool,
) -> dict[str, Streak]:
    """The runs still open once this audit is over: those it found broken
    (``now``), and, when it was incomplete, the earlier ones (``before``) of
    URLs it did not check."""
    kept = dict(now)
    if not complete:
        for url, streak in before.items():
            if url not in kept and url not in checked:
                kept[url] = streak
    return kept
