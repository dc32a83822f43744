"""What the report decides when the audit ends, told to the feeds too.

A feed item (``-O``, ``--jsonl``, Scrapyd's) is written as its URL is
checked.  A few verdicts exist only once the whole audit is known, and the
report makes them from the recorded results (``build.report_entries``,
``late``): a redirect in a loop is broken, "Redirect loop" (each hop is
checked on its own, as a redirect); a page that answers as its pattern's
probe does is a soft 404 (the probes are compared when every one has
answered); a failure whose grace period ran out while the audit ran is
broken.  When the crawl closes, before the feeds do, each such entry is
built as the report builds it and sent to the feeds once more, marked
``revised``: for a feed's reader, the last item of a URL is its verdict,
the report's.  Nothing is read when no feed is written.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import cast

from linkaudit.items import FEED_FIELDS, UrlResult
from linkaudit.output.report.build import report_entries
from linkaudit.output.report.facts import ReportFacts
from linkaudit.output.report.records import (
    FeedItem,
    ReportEntry,
)
from linkaudit.state.base import AuditState

# an item's fields that an entry of the report may leave out (the optional
# ones unset), with the value an item of a check gives them
_DEFAULTS = {
    f.name: f.default for f in dataclasses.fields(UrlResult) if f.default is not dataclasses.MISSING
}


def revisions(state: AuditState, facts: ReportFacts) -> Iterator[FeedItem]:
    """The feed items of the URLs whose verdict the report decides at the
    end, as the report will show them (its final referrers too), each
    ``revised``.  The findings that are no field of an item (fragments,
    groups, suggestions, the sitemap, the history) are not built."""
    lean = dataclasses.replace(
        facts, fragments=False, sitemaps=False, templates=None, history=None, suggest=None
    )
    late: set[str] = set()
    for entry in report_entries(state, {}, lean, late):
        if entry["url"] in late:
            yield feed_item(entry)


def feed_item(entry: ReportEntry) -> FeedItem:
    """A report entry as a revising feed item: every field of an item, in
    the feed's order (docs/item.schema.json)."""
    item = {name: entry.get(name, _DEFAULTS.get(name)) for name in FEED_FIELDS}
    item["revised"] = True
    return cast(FeedItem, item)  # (FEED_FIELDS are FeedItem's: tests/unit/test_records.py)
