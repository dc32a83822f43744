"""A build's report names its files and deployed URLs, never the internal
address it was audited at (``rules/names.py``): the one place the report
writer (``build.report_entries``) translates what it made, an entry at a
time and then the rest of the report."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from linkaudit.items import FEED_FIELDS, UrlResult
from linkaudit.rules.names import BuildNames

_ITEM_FIELDS = tuple(f.name for f in dataclasses.fields(UrlResult) if f.name in FEED_FIELDS)


def named_entry(
    item: dict[str, Any], names: BuildNames, files: Callable[[str], str | None] | None
) -> dict[str, Any]:
    """An entry of a build's report as outputs show it: every string that
    held the internal address holds the shown name, and an entry of a file
    the build serves names it (``file``, as its referrers do)."""
    url = item["url"]
    if files is not None and names.is_build(url) and "file" not in item:
        path = files(url)
        if path is not None:
            item["file"] = path
    return names.translate(item)


def named_head(report: dict[str, Any], names: BuildNames) -> dict[str, Any]:
    """The report's head (start URLs, near prefixes, groups, the sitemap,
    the redirect fix-list, rendered pages, what was fixed) translated, with
    how the build is named in its ``build`` section (``rules/names.py``:
    ``BuildNames.section``), beside what else the section says."""
    head = names.translate(report)
    head["build"] = {**names.section(), **(head.get("build") or {})}
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
