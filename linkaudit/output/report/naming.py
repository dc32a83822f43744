"""A build's report names its files and deployed URLs, never the internal
address it was audited at (``rules/names.py``): the one place the report
writer (``build.report_entries``) translates what it made, an entry at a
time and then the rest of the report."""

from __future__ import annotations

import dataclasses
from collections import deque
from collections.abc import Callable, Iterable, Iterator

from linkaudit.items import FEED_FIELDS, UrlResult
from linkaudit.output.report.records import (
    Report,
    ReportEntry,
)
from linkaudit.rules.names import BuildNames

_ITEM_FIELDS = tuple(f.name for f in dataclasses.fields(UrlResult) if f.name in FEED_FIELDS)


def named_entry(
    item: ReportEntry, names: BuildNames, files: Callable[[str], str | None] | None
) -> ReportEntry:
    """An entry of a build's report as outputs show it: every string that
    held the internal address holds the shown name, and an entry of a file
    the build serves names it (``file``, as its referrers do)."""
    url = item["url"]
    if files is not None and names.is_build(url) and "file" not in item:
        path = files(url)
        if path is not None:
            item["file"] = path
    named: ReportEntry = names.translate(item)
    return named


def named_head(report: Report, names: BuildNames) -> Report:
    """The report's head (start URLs, near prefixes, groups, the sitemap,
    the redirect fix-list, rendered pages, what was fixed) translated, with
    how the build is named in its ``build`` section (``rules/names.py``:
    ``BuildNames.section``), beside what else the section says (the
    naming's own fields win: ``directory`` as the outputs name it)."""
    head = names.translate(report)
    head["build"] = {**(head.get("build") or {}), **names.section()}
    return head


def named_item(
    item: UrlResult, names: BuildNames, files: Callable[[str], str | None] | None
) -> UrlResult:
    """A feed's item of a build as the report names it: a copy (the audit
    keeps the item it recorded), its fields translated, its referrers'
    files named."""
    fields = {name: names.translate(getattr(item, name)) for name in _ITEM_FIELDS}
    if files is not None:
        for referrer, named in zip(item.referrers, fields["referrers"], strict=True):
            path = files(referrer["url"])
            if path is not None:
                named["file"] = path
    return dataclasses.replace(item, **fields)


def in_shown_order(items: Iterable[ReportEntry], names: BuildNames) -> Iterator[ReportEntry]:
    """A build's entries, translated, sorted by their names as the report
    promises (``urls`` sorted by ``url``), from entries sorted by the
    audit's own URLs, an entry at a time.

    The build's own URLs are one run of the audit's order (they share its
    address), and stay in order when renamed: only that run moves, among
    the other URLs (far links).  The other URLs that came before it but
    sort after its names (``ftp:`` after ``file:``, a far server on a lower
    port of 127.0.0.1) are held until it has passed: a few, whatever the
    build's size."""
    prefix = names.url
    held: deque[ReportEntry] = deque()
    passed = False
    for item in items:
        url = item["url"]
        if url.startswith(prefix):
            passed = True
        elif not passed and url > prefix:
            held.append(item)  # (sorted: they came in order)
            continue
        while held and held[0]["url"] < url:
            yield held.popleft()
        yield item
    yield from held
