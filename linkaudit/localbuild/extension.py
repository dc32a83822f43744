"""Extension: a crawl of a build directory names its pages by their files
in the report (a separate module: the walk of a build imports no Scrapy)."""

from __future__ import annotations

from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured

from linkaudit.audit import audit_of
from linkaudit.config import config_of
from linkaudit.localbuild.directory import local_files


class BuildFiles:
    """Extension: a crawl of a build directory names its pages by their
    files in the report (``Audit.files``, read by the report pipeline).
    On by default (``EXTENSIONS``), in the crawl only when the audit is of
    a build directory; nothing to configure."""

    def __init__(self, crawler: Crawler):
        audit = audit_of(crawler)
        files = local_files(config_of(crawler)) if audit is not None else None
        if audit is None or files is None:
            raise NotConfigured
        audit.files = files

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> BuildFiles:
        return cls(crawler)
