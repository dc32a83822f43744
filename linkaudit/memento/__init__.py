"""Archived copies of broken links (``--archive``): the copy readers saw.

Not the page archive of ``--pagedir`` (``linkaudit/extensions/pagearchive.py``),
which keeps the audit's own copies of the site's pages.

- ``walk.py``: one link's walk through a Memento service (TimeMap, copies
  newest first before the link broke, the first good one), Scrapy-free;
- ``lookups.py``: the extension that runs the walks through Scrapy's engine
  once the crawl is idle, as requests to a host like any other (robots.txt,
  its delay, ``Retry-After``), bounded, and keeps what they found in the
  audit's state (with ``--db``: looked up once, not every night).

The report shows it beside each broken link (``output/report/build.py``);
the protocol's pure rules are ``linkaudit/rules/memento.py``.
"""
