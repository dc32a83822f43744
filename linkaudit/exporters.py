"""Feed exporters: CSV with cells a program can read back; the feed's file
opened without following a link planted at its path.

Scrapy's CSV exporter joins lists with commas and writes dicts as Python
reprs; a ``referrers`` cell (a list of {url, line}) would then be neither
CSV nor JSON.  Here list and dict cells are JSON, booleans ``true``/``false``
as in the JSON feeds, and None an empty cell.
"""

from __future__ import annotations

import json
import os
from typing import IO, Any

from scrapy.extensions.feedexport import FileFeedStorage

from linkaudit import internals
from linkaudit.output.files import open_feed


class CsvItemExporter(internals.csv_exporter_class()):  # type: ignore[misc]
    def cell(self, value: Any) -> Any:
        if isinstance(value, (list, tuple, dict)):
            return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
        if isinstance(value, bool):
            return "true" if value else "false"
        return value


class NoFollowFileStorage(FileFeedStorage):
    """Scrapy's file storage (``FEED_STORAGES``), opening the feed as
    ``output/files.py`` does: a symbolic link at its path is replaced, not
    written through (Scrapy's ``open()`` follows it and truncates the
    file it points at); ``/dev/stdout`` and a pipe are written to."""

    def open(self, spider: Any) -> IO[bytes]:
        directory = os.path.dirname(os.path.abspath(self.path))
        os.makedirs(directory, exist_ok=True)  # as Scrapy's (--jsonl checks it first)
        return os.fdopen(open_feed(self.path, append=self.write_mode == "ab"), "wb")
