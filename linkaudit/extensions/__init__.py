"""Scrapy extensions of linkaudit, one per module: dropping unsent requests
on an early close (``drain``), the live status line (``progress``), Scrapy's
loggers at ``LOG_LEVEL`` (``loglevel``), the garbage collector paced for a
crawl (``collector``); and the stats collector (``stats``, ``STATS_CLASS``).
A host's pace (delay, Crawl-delay) is in ``linkaudit/hosts/``."""
