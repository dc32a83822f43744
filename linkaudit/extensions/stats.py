"""Scrapy's stats collector without its per-call wrapper (``STATS_CLASS``).

Scrapy 2.19's ``StatsCollector.__getattribute__`` wraps each of its methods
to warn about a deprecated ``spider`` argument, so every ``inc_value`` goes
through the wrapper and every attribute the method reads (``self._stats``)
first misses a ``_cached_`` lookup, an exception each time: about 1.7 µs a
call instead of 0.1.  An audit counts a dozen things per request (the
scheduler, the downloader, the core stats), 27,000 calls on a 1,200-page
site.  This collector is Scrapy's memory collector with plain attribute
access: the same methods, the same stats, no warning about an argument
linkaudit never passes.
"""

from __future__ import annotations

from scrapy.statscollectors import MemoryStatsCollector


class StatsCollector(MemoryStatsCollector):
    __getattribute__ = object.__getattribute__
