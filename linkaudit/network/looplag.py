"""How long our own code has held the event loop, so that a download's
timeout counts the server's time and not ours.

Scrapy's download timeout is a timer on the event loop, and so is
everything of ours: while a large page is scanned for seconds, the answers
of the requests in flight sit unread in their sockets, and when the loop is
free their timers (already due) fire before more than the first 64 KiB of
each answer is read.  The server sent everything in time; the link was
reported ``Timed out``.

:class:`LoopLag` ticks every 0.1 s and adds up how late each tick ran: the
seconds the loop was held.  A download's timer, when it fires, subtracts
the seconds held since the download started and waits that much longer
(``linkaudit/network/handler.py``), at most one more timeout: a server gets
``DOWNLOAD_TIMEOUT`` seconds of a loop that listens, and a silent one is
still reported within twice the timeout.
"""

from __future__ import annotations

import time
import weakref
from typing import Any

INTERVAL = 0.1  # seconds between ticks
TOLERANCE = 0.05  # lateness of a tick that is jitter, not a held loop


class LoopLag:
    """Seconds the event loop was held, in total, since :meth:`start`."""

    _of: weakref.WeakKeyDictionary[Any, LoopLag] = weakref.WeakKeyDictionary()

    def __init__(self, reactor: Any) -> None:
        self.reactor = reactor
        self.total = 0.0
        self._expected = 0.0  # when the pending tick is due
        self._call: Any = None

    @classmethod
    def of(cls, crawler: Any) -> LoopLag:
        """The crawler's one monitor (the http and https handlers share it)."""
        if crawler not in cls._of:
            from twisted.internet import reactor

            cls._of[crawler] = cls(reactor)
        return cls._of[crawler]

    def start(self) -> None:
        if self._call is None:
            self._schedule()

    def stop(self) -> None:
        if self._call is not None and self._call.active():
            self._call.cancel()
        self._call = None

    def held(self) -> float:
        """Seconds held so far, the hold that just ended included (a timer
        due in the same turn of the loop may run before the tick)."""
        if self._call is None:
            return self.total
        return self.total + self._lateness(time.monotonic())

    def _lateness(self, now: float) -> float:
        late = now - self._expected
        return late if late > TOLERANCE else 0.0

    def _schedule(self) -> None:
        self._expected = time.monotonic() + INTERVAL
        self._call = self.reactor.callLater(INTERVAL, self._tick)

    def _tick(self) -> None:
        self.total += self._lateness(time.monotonic())
        self._schedule()
