"""When a struggling host is slowed down, paused or given up: pure rules, one
host's recent answers in, a decision out (no Scrapy, no clock of its own).

A host's last ``window`` answers are kept, each a failure's label (``503``,
``429``, ``timeouts``...) or ``None`` for an answer that is not the host's
trouble (200, 404, a redirect: a 404 is a verdict on a link, not on the
server).  A decision is taken every ``step`` answers (a quarter of the
window), not at each answer: a back-off needs fresh evidence at its new
pace before the next one, or a burst read at one pace would double the
delay ``step`` times over.  Over ``threshold`` (a share of the answers
looked at), the delay doubles up to ``max_delay``; at the cap, the host
is paused; after ``max_pauses`` pauses without a recovery, it is given up.
At or under the threshold, the delay comes back down one step at a time.

After a pause only the answers since the pause are looked at: the ones
before it are the reason it was paused, not news about the host now.

Throttling is read at once, not over a window: a host that closes a
connection without an answer, or answers 429, 430 or 503, is asked one
connection at a time (``lanes`` 1, at least ``FLOOR`` apart) from that
answer on, and never again more than half as many at a time as when it
throttled (``ceiling``); after ``window`` calm answers in a row it is
allowed one more connection, up to that ceiling.  A request it throttled is asked
again (:func:`throttle_verdict` says when not): only a URL that still fails
when asked alone gets a verdict.
"""

from __future__ import annotations

import math
from collections import Counter, deque
from dataclasses import dataclass, field
from typing import Any, TypedDict

BACKOFF, PAUSE, GIVE_UP, RECOVER = "backoff", "pause", "give up", "recover"
# the answers a throttling host gives: too many requests (429), Shopify's
# 430, unavailable (503); a connection closed without an answer is the fourth
THROTTLE_STATUSES = frozenset({429, 430, 503})
# a URL a throttling (not struggling) host failed is asked again at most
# this many times (its HEAD's and its GET's retries together)
THROTTLE_TRIES = 2
# the lowest delay a back-off doubles: a host asked without a delay (tests,
# DOWNLOAD_DELAY 0) is slowed down too
FLOOR = 0.25
MAX_COUNT = 2**53  # the report's counts of back-offs and pauses (config/numbers.py's bound)
_MAX_REASON = 1000  # characters of a given-up host's reason taken from a shared record


@dataclass(frozen=True)
class BackoffPolicy:
    window: int = 20
    threshold: float = 0.5
    max_delay: float = 8.0
    pause: float = 30.0
    max_pauses: int = 2

    @property
    def step(self) -> int:
        """Answers between two decisions (and the fewest one is taken on)."""
        return max(2, self.window // 4)

    @property
    def max_level(self) -> int:
        """The level from which the delay is ``max_delay`` whatever the
        host's own delay (doubled from ``FLOOR`` at least): the highest the
        rules reach."""
        return max(0, math.ceil(math.log2(max(self.max_delay, FLOOR) / FLOOR)))

    def delay(self, base: float, level: int) -> float:
        """The delay of a host whose normal delay is ``base``, backed off
        ``level`` times."""
        if level <= 0:
            return base
        return min(self.max_delay, max(base, FLOOR) * 2**level)


class BackoffRecord(TypedDict):
    """What a shared audit keeps of a host's back-off (:meth:`HostBackoff.record`;
    ``AuditState.save_backoff``); read back from Redis, it is open again
    (:meth:`HostBackoff.restore` clamps each value)."""

    level: int
    pauses: int
    paused_until: float
    given_up: str | None
    backoffs: int
    paused: int


@dataclass
class HostBackoff:
    """One host's back-off: its window, and what is in effect."""

    policy: BackoffPolicy
    base: float = 0.0  # the host's delay before any back-off
    level: int = 0  # back-offs in effect (the delay doubled this many times)
    pauses: int = 0  # pauses since the host last recovered
    paused_until: float = 0.0  # a time of the caller's clock
    given_up: str | None = None  # the reason, once the host is given up
    answers: deque[str | None] = field(default_factory=deque)
    since_decision: int = 0
    since_pause: int | None = None  # answers since the last pause (None: none)
    changed_at: float = 0.0  # when the pace last changed (caller's clock)
    seen: int = 0  # answers noted in all
    fine: int = 0  # answers that were not the host's trouble, in all
    lanes: int | None = None  # connections at a time while throttled (None: as configured)
    ceiling: int | None = None  # the most lanes it gets back (below where it throttled)
    calm: int = 0  # fine answers in a row since it last throttled
    throttles: int = 0  # times it throttled from more than one connection
    backoffs: int = 0  # back-offs and pauses in all (the report's summary)
    paused: int = 0

    @property
    def delay(self) -> float:
        delay = self.policy.delay(self.base, self.level)
        return max(delay, FLOOR) if self.lanes is not None else delay

    def throttle(self, concurrency: int) -> bool:
        """The host throttled a request sent while it was allowed
        ``concurrency`` connections at a time: one at a time from now on,
        and never more than half ``concurrency`` again.  True when that is news (it was
        allowed more than one)."""
        self.calm = 0
        was = self.lanes if self.lanes is not None else concurrency
        if was <= 1:
            self.lanes = 1
            return False
        self.lanes = 1
        self.ceiling = max(1, min(self.ceiling or was, was // 2))
        self.throttles += 1
        return True

    def calm_answer(self) -> int | None:
        """Note a fine answer while throttled: the lanes it gets after it
        when that changes (one more after ``window`` calm answers in a row,
        up to the ceiling), else None."""
        self.fine += 1
        if self.lanes is None:
            return None
        self.calm += 1
        if self.calm < self.policy.window or self.lanes >= (self.ceiling or 1):
            return None
        self.calm = 0
        self.lanes += 1
        return self.lanes

    @property
    def at_cap(self) -> bool:
        return self.policy.delay(self.base, self.level + 1) <= self.delay

    def struggling(self, now: float) -> bool:
        """Backing off, paused or given up: a failing answer now is the
        host's state, not a verdict on its URL."""
        return self.level > 0 or now < self.paused_until or self.given_up is not None

    def observe(self, failure: str | None, now: float, sent_at: float | None = None) -> str | None:
        """Note one answer (``failure`` its label, None when fine) at time
        ``now`` to a request sent at ``sent_at``; the decision it brings,
        if any.  An answer to a request sent before the pace last changed
        is kept in the window but is no evidence about the new pace."""
        self.seen += 1
        if self.given_up is not None:
            return None
        window = self.policy.window
        self.answers.append(failure)
        if len(self.answers) > window:
            self.answers.popleft()
        if now < self.paused_until or (sent_at is not None and sent_at < self.changed_at):
            return None
        self.since_decision += 1
        if self.since_pause is not None:
            self.since_pause += 1
        step = self.policy.step
        # no verdict on a host before a whole window of its answers: a few
        # timeouts on a small site are those URLs' trouble, not the host's
        if self.since_decision < step or len(self.answers) < window:
            return None
        self.since_decision = 0
        decision = self._decide(now)
        if decision is not None:
            self.changed_at = now
        return decision

    def _decide(self, now: float) -> str | None:
        looked = list(self.answers)
        if self.since_pause is not None and self.since_pause < len(looked):
            looked = looked[-self.since_pause :]
        failing = sum(1 for a in looked if a is not None) > self.policy.threshold * len(looked)
        if not failing:
            if self.level == 0:
                self.pauses = 0
                return None
            self.level -= 1
            if self.level == 0:
                self.pauses = 0
            return RECOVER
        if not self.at_cap:
            self.level += 1
            self.backoffs += 1
            return BACKOFF
        if self.pauses < self.policy.max_pauses:
            self.pauses += 1
            self.paused += 1
            self.paused_until = now + self.policy.pause
            self.since_pause = 0
            return PAUSE
        self.given_up = self.reason()
        return GIVE_UP

    def reason(self) -> str:
        """What the host did, in the words of a report's error."""
        failures = Counter(a for a in self.answers if a is not None)
        labels = " and ".join(label for label, _ in failures.most_common(3))
        then = "paused" if self.pauses else "given up"
        return (
            f"Host failing: {labels or 'failures'} on {sum(failures.values())} "
            f"of the last {len(self.answers)} requests; {then}"
        )

    def record(self) -> BackoffRecord:
        """What a shared audit keeps of it (the window stays with the worker)."""
        return {
            "level": self.level,
            "pauses": self.pauses,
            "paused_until": self.paused_until,
            "given_up": self.given_up,
            "backoffs": self.backoffs,
            "paused": self.paused,
        }

    def restore(self, record: Any, now: float) -> None:
        """Take on what another worker left (a record of :meth:`record`, read
        at time ``now``), each value clamped to what the rules could have
        written: a shared state may have been altered, and one pause until
        the year 3000, or a level of 10**9 (2**level is computed), would
        stall every worker.  A level is at most the one that reaches
        ``max_delay``, pauses at most ``max_pauses``, a pause ends at most
        ``pause`` seconds from now; what is not a number is 0."""
        if not isinstance(record, dict):
            return
        policy = self.policy
        self.level = _whole(record.get("level"), policy.max_level)
        self.pauses = _whole(record.get("pauses"), policy.max_pauses)
        until = record.get("paused_until")
        if isinstance(until, bool):  # JSON's true is no time
            until = None
        if isinstance(until, int | float) and math.isfinite(until) and until > now:
            self.paused_until = min(float(until), now + policy.pause)
        given_up = record.get("given_up")
        self.given_up = given_up[:_MAX_REASON] if isinstance(given_up, str) and given_up else None
        self.backoffs = _whole(record.get("backoffs"), MAX_COUNT)
        self.paused = _whole(record.get("paused"), MAX_COUNT)


def throttle_verdict(tries: int, alone: bool, fine_since: bool) -> bool:
    """Whether a request a throttling host failed gets its verdict now
    rather than being asked again: its URL was asked again ``tries`` times
    already (its HEAD's and its GET's retries together); ``alone``: it was
    sent while the host was asked one connection at a time; ``fine_since``:
    the host answered other requests fine since the URL last failed (the
    failure is the URL's, not the host's)."""
    return tries >= THROTTLE_TRIES or (tries >= 1 and alone and fine_since)


def _whole(value: Any, most: int) -> int:
    """``value`` as a count from 0 to ``most``: 0 unless it is a whole number."""
    if type(value) is not int:
        return 0
    return min(max(value, 0), most)
