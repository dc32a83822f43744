"""The journal: every result as it comes, one JSON line each, flushed.

The report is written when the spider closes.  A second Ctrl-C, a killed
process or a report that cannot be written would lose the whole audit; the
journal keeps what was already checked.  ``python -m linkaudit.output.journal
JOURNAL -o REPORT`` rebuilds a report (``complete: false`` unless the journal
recorded a finished crawl) from it.

Lines, in order: one ``{"type": "start", ...}`` record, one ``{"type":
"url", ...}`` per checked URL (the report's fields without the referrers,
plus ``links``: ``[target, line]`` pairs, from which referrers are rebuilt),
and ``{"type": "end", ...}`` when the crawl closed normally.

Settings: ``LINKAUDIT_JOURNAL_ENABLED`` (default True), ``LINKAUDIT_JOURNAL``
(default empty: beside the report, ``<report>.journal.jsonl``); the spider
argument ``journal=PATH`` sets the path.  A journal at the default path is
removed once the report is written (it has served its purpose); one whose
path the user chose is kept.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import shutil
import sys
import tempfile
from collections.abc import Iterable
from typing import IO, TYPE_CHECKING, Any

from linkaudit.config import config_of
from linkaudit.items import CONTRACT_FIELDS, OPTIONAL_FIELDS, UrlResult
from linkaudit.output.files import create_fresh
from linkaudit.output.report.atomic import write_json_atomic
from linkaudit.output.report.build import build_report
from linkaudit.output.report.facts import ReportFacts, now_iso
from linkaudit.rules.names import BuildNames
from linkaudit.signals import report_written
from linkaudit.state.memory import MemoryState

# Scrapy where the journal is a pipeline: reading a journal back (the
# command's rebuild) needs none of it
if TYPE_CHECKING:
    from scrapy import Spider
    from scrapy.crawler import Crawler

logger = logging.getLogger(__name__)

JOURNAL_VERSION = 1
_RESULT_FIELDS = [f for f in CONTRACT_FIELDS if f not in ("referrers", "referrer_count")]


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
                **({"build": _build(config.names)} if config.names is not None else {}),
            }
        )

    def process_item(self, item: Any, spider: Spider | None = None) -> Any:
        if isinstance(item, UrlResult) and self.file is not None:
            record: dict[str, Any] = {"type": "url"}
            record.update((name, getattr(item, name)) for name in _RESULT_FIELDS)
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


# -- rebuilding a report -------------------------------------------------------
def read_journal(lines: Iterable[str]) -> list[dict[str, Any]]:
    """The journal's records; a last line cut short by a kill is skipped."""
    records = []
    for line in lines:
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return records


def rebuild_report(records: list[dict[str, Any]]) -> dict[str, Any]:
    """The report a journal stands for.  Without an end record the crawl was
    cut off: ``finish_reason`` is ``shutdown``, and the links of scanned
    pages that have no result are ``unchecked``."""
    if not records or records[0].get("type") != "start":
        raise ValueError("not a linkaudit journal (no start record)")
    start = records[0]
    end = next((r for r in records if r.get("type") == "end"), None)
    state = MemoryState()
    results = [r for r in records if r.get("type") == "url"]
    for rec in results:
        state.discover(rec["url"], rec["depth"])
    for rec in results:
        for target, line in rec.get("links", ()):
            state.discover(target, rec["depth"] + 1)
            state.add_referrer(target, rec["url"], line)
    for rec in results:
        fields: dict[str, Any] = {name: rec.get(name) for name in _RESULT_FIELDS}  # (JSON's)
        optional = {name: rec[name] for name in OPTIONAL_FIELDS if name in rec}
        state.record(UrlResult(**fields, **optional), 0.0)
    # the run as the journal recorded it; it holds no findings switches
    facts = ReportFacts(
        start_urls=start["start_urls"],
        near_prefixes=start["near_prefixes"],
        started_at=start["started_at"],
        finished_at=end["finished_at"] if end else now_iso(),
        finish_reason=end["finish_reason"] if end else "shutdown",
        pages=end["pages"] if end else sum(1 for r in results if "page" in r),
        requests=end["requests"] if end else sum(1 for r in results if r.get("method")),
        max_depth=start.get("max_depth"),
        names=_names(start.get("build")),
    )
    return build_report(state, facts)


def _build(names: BuildNames) -> dict[str, Any]:
    """How a build is named, for the report rebuilt from the journal."""
    return {"path": names.path, "address": names.base, "root_url": names.root_url}


def _names(build: Any) -> BuildNames | None:
    if not isinstance(build, dict):
        return None
    return BuildNames(build["path"], build["address"], build.get("root_url") or "")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m linkaudit.output.journal",
        description="Rebuild a linkaudit report from the journal of a crawl.",
    )
    parser.add_argument("journal", help="the .journal.jsonl file of a crawl")
    parser.add_argument("-o", "--output", required=True, help="where to write the report")
    ns = parser.parse_args(argv)
    try:
        with open(ns.journal, encoding="utf-8") as fh:
            report = rebuild_report(read_journal(fh))
        write_json_atomic(ns.output, report)
    except (OSError, ValueError, KeyError) as exc:
        print(f"linkaudit: error: {exc}", file=sys.stderr)
        return 2
    print(f"Report rebuilt from {ns.journal}: {report['summary']['urls']} URLs -> {ns.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
