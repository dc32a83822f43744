"""The journal's pipeline: every result appended as it comes, one JSON
line each, flushed (the journal's format and its rebuild into a report:
``linkaudit/output/journal.py``).

Settings: ``LINKAUDIT_JOURNAL_ENABLED`` (default True), ``LINKAUDIT_JOURNAL``
(default empty: beside the report, ``<report>.journal.jsonl``); the spider
argument ``journal=PATH`` sets the path.  A journal at the default path is
removed once the report is written (it has served its purpose); one whose
path the user chose is kept.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import tempfile
from typing import IO, TYPE_CHECKING, Any

from linkaudit.config import config_of
from linkaudit.items import UrlResult
from linkaudit.output.files import create_fresh
from linkaudit.output.journal import JOURNAL_VERSION, RESULT_FIELDS, build_record
from linkaudit.output.report.facts import now_iso
from linkaudit.signals import report_written

if TYPE_CHECKING:
    from scrapy import Spider
    from scrapy.crawler import Crawler

logger = logging.getLogger(__name__)


class JournalPipeline:
    """Appends each result to the journal and flushes it at once (line
    buffering): a process killed a moment later has still handed the line
    to the operating system."""

    def __init__(self, crawler: Crawler, path: str, keep: bool = True):
        self.crawler = crawler
        self.path = path
        self.keep = keep  # False: removed once the report is written
        self.file: IO[str] | None = None
        self.report_written = False
        from scrapy import signals

        crawler.signals.connect(self.spider_closed, signal=signals.spider_closed)
        crawler.signals.connect(self._report_written, signal=report_written)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> JournalPipeline:
        config = config_of(crawler)
        if config.journal is None:
            from scrapy.exceptions import NotConfigured

            raise NotConfigured
        return cls(crawler, config.journal, keep=config.keep_journal)

    def open_spider(self, spider: Spider | None = None) -> None:
        config = config_of(self.crawler)
        # created anew, never through a link planted at its path (files.py);
        # readable: the crawl's own journal, read back if its directory vanishes
        fd = create_fresh(self.path, readable=True)
        self.file = open(fd, "w+", encoding="utf-8", buffering=1)
        self._write(
            {
                "type": "start",
                "journal": JOURNAL_VERSION,
                "start_urls": list(config.start_urls),
                "near_prefixes": list(config.near_prefixes),
                "max_depth": config.max_depth,
                "started_at": now_iso(),
                # a build directory: the journal keeps the audit's own
                # addresses, a report rebuilt from it names the files
                **({"build": build_record(config.names)} if config.names is not None else {}),
            }
        )

    def process_item(self, item: Any, spider: Spider | None = None) -> Any:
        if isinstance(item, UrlResult) and self.file is not None:
            record: dict[str, Any] = {"type": "url"}
            record.update((name, getattr(item, name)) for name in RESULT_FIELDS)
            record.update(item.optional_dict())
            if item.links:
                record["links"] = item.links
            self._write(record)
        return item

    def spider_closed(self, spider: Spider, reason: str) -> None:
        if self.file is None:
            return
        stats = self.crawler.stats
        self._write(
            {
                "type": "end",
                "finish_reason": reason,
                "finished_at": now_iso(),
                "pages": stats.get_value("linkaudit/pages", 0),
                "requests": stats.get_value("downloader/request_count", 0),
            }
        )
        if not os.path.exists(self.path):
            self._rescue()
        self.file.close()
        self.file = None
        self._tidy()

    def _report_written(self, path: str) -> None:
        self.report_written = True
        if self.file is None:  # closed already (the order of the handlers)
            self._tidy()

    def _tidy(self) -> None:
        """No leftovers: a journal nobody asked for goes once the report is
        safely written."""
        if self.report_written and not self.keep:
            try:
                os.unlink(self.path)
            except FileNotFoundError:
                pass

    def _write(self, record: dict[str, Any]) -> None:
        assert self.file is not None
        self.file.write(json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n")

    def _rescue(self) -> None:
        """The journal's directory was removed under us: the open file still
        holds everything, so copy it somewhere that exists."""
        assert self.file is not None
        fd, rescue = tempfile.mkstemp(prefix="linkaudit-journal-", suffix=".jsonl")
        self.file.seek(0)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            shutil.copyfileobj(self.file, out)
        logger.error("linkaudit: %s is gone; the journal was saved to %s", self.path, rescue)
        self.path = rescue
