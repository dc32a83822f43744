"""Feed exporters: CSV with cells a program can read back.

Scrapy's CSV exporter joins lists with commas and writes dicts as Python
reprs; a ``referrers`` cell (a list of {url, line}) would then be neither
CSV nor JSON.  Here list and dict cells are JSON, booleans ``true``/``false``
as in the JSON feeds, and None an empty cell.
"""

from __future__ import annotations

import json
from typing import Any

from scrapy.exporters import CsvItemExporter as ScrapyCsvItemExporter


class CsvItemExporter(ScrapyCsvItemExporter):
    def _join_if_needed(self, value: Any) -> Any:
        if isinstance(value, (list, tuple, dict)):
            return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
        if isinstance(value, bool):
            return "true" if value else "false"
        return value
