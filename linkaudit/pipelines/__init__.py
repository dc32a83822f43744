"""The crawl's item pipelines (``ITEM_PIPELINES``): each result recorded in
the audit's state and the report written at the close (``report.py``), and
each result appended to the journal as it comes (``journal.py``).  What
they record and write is ``linkaudit/output/``'s."""
