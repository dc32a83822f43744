"""``linkaudit DIR`` without a crawl: the build's files walked
(``files.py``), the audit finished without Scrapy when nothing else is left
to check, or handed to the crawl with what the walk found (``audit.py``)."""
