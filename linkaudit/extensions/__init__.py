"""Scrapy extensions of linkaudit, one per module: robots.txt Crawl-delay
(``crawldelay``), dropping unsent requests on an early close (``drain``),
the live status line (``progress``), the delay margin (``pacing``), Scrapy's
loggers at ``LOG_LEVEL`` (``loglevel``), the garbage collector paced for a
crawl (``collector``); and the stats collector (``stats``, ``STATS_CLASS``)."""
