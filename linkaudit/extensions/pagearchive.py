"""The page archive (seed: the CS50 crawler's ``pageDirectory``).

Every near HTML page fetched is saved as one file named by its document id:
0 for the first page fetched (the start page), then 1, 2, 3... in fetch
order.  Each file holds the page's URL on line 1, its depth on line 2 and
its HTML from line 3, bytes as the server sent them (decompressed).

Setting ``LINKAUDIT_PAGEDIR`` (default empty: off), or ``-a pagedir=DIR``.
The directory must exist and be writable: that is checked before the crawl.
Files already there with the same names are replaced: created anew, so a
symbolic link planted at a page's path is replaced, never followed
(``files.py``).
"""

from __future__ import annotations

import logging
import os

from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from scrapy.http import Response

from linkaudit.config import config_of
from linkaudit.output.exitstatus import fail_at_exit
from linkaudit.output.files import create_fresh
from linkaudit.signals import page_scanned

logger = logging.getLogger(__name__)


class PageArchive:
    def __init__(self, crawler: Crawler, directory: str):
        self.crawler = crawler
        self.directory = directory
        self.next_id = 0
        self.failed = False
        crawler.signals.connect(self.page_scanned, signal=page_scanned)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> PageArchive:
        directory = config_of(crawler)["LINKAUDIT_PAGEDIR"]
        if not directory:
            raise NotConfigured
        return cls(crawler, directory)

    def page_scanned(self, response: Response, url: str, depth: int) -> None:
        if self.failed:
            return
        path = os.path.join(self.directory, str(self.next_id))
        try:
            # a file already there is replaced, a link there never followed
            with open(create_fresh(path), "wb") as fh:
                fh.write(f"{url}\n{depth}\n".encode())
                fh.write(response.body)
        except OSError as exc:
            # The audit goes on (its report matters more); the archive stops,
            # says so once, and the exit status tells.
            self.failed = True
            logger.error("linkaudit: cannot write the page archive %s: %s", path, exc.strerror)
            fail_at_exit(1)
            return
        self.next_id += 1
        self.crawler.stats.set_value("linkaudit/pages_archived", self.next_id)
