"""Extension: a crawl of a build directory names its pages by their files
in the report, and knows which of the build's pages it read, so that the
scheduler has the others read too (``inventory.py``).  A separate module:
the walk of a build imports no Scrapy."""

from __future__ import annotations

from typing import Any

from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured

from linkaudit.audit import audit_of
from linkaudit.config import config_of
from linkaudit.localbuild.directory import local_files
from linkaudit.localbuild.inventory import BuildPages
from linkaudit.signals import page_scanned


class BuildFiles:
    """Extension: a crawl of a build directory names its pages by their
    files in the report (``Audit.files``, read by the report pipeline), and
    keeps the build's pages (``Audit.build``: each page scanned noted, by
    its file, for the scheduler's enumeration of the unread ones).  On by
    default (``EXTENSIONS``), in the crawl only when the audit is of a
    build directory; nothing to configure."""

    def __init__(self, crawler: Crawler):
        audit = audit_of(crawler)
        config = config_of(crawler) if audit is not None else None
        files = local_files(config) if config is not None else None
        if audit is None or config is None or files is None:
            raise NotConfigured
        audit.files = files
        walked = audit.walked.build if audit.walked is not None else None
        # --depth, or a shared audit: the pages the links reach, no more (inventory.py)
        every = config.max_depth is None and not audit.state.shared
        self.pages = audit.build = walked or BuildPages(
            config["LINKAUDIT_LOCAL_DIR"], config.build_url, enumerate_unread=every
        )
        crawler.signals.connect(self.page_scanned, signal=page_scanned)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> BuildFiles:
        return cls(crawler)

    def page_scanned(self, url: str, **_kwargs: Any) -> None:
        self.pages.read(url, self.pages.file_of(url))
