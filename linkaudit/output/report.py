"""The JSON report (``shared/contract/report.md``): built from the audit's
state, written atomically, and summarised for a person."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime
from typing import Any

from linkaudit.output.fragments import fragment_key, missing_fragments
from linkaudit.output.groups import Groups
from linkaudit.output.jsontext import json_text
from linkaudit.output.reading import needed_in_summary, read_report
from linkaudit.output.redirects import RedirectFixes
from linkaudit.output.sitemap import sitemap_section
from linkaudit.output.soft404 import Soft404s
from linkaudit.rules.recheck import RecheckPolicy
from linkaudit.rules.statuses import INTERNAL_ERROR
from linkaudit.rules.urls import is_near
from linkaudit.state.base import AuditState, Entry

__all__ = ["build_report", "dumps_report", "read_report", "needed_in_summary", "write_report"]
REPORT_VERSION = 1
OUTCOMES = ("ok", "redirect", "broken", "blocked", "excluded", "unchecked")

# Why a discovered URL was never checked, by Scrapy close reason.
_NOT_CHECKED = {
    "closespider_pagecount": "Not checked: hit limit reached",
    "closespider_timeout": "Not checked: time limit reached",
    "closespider_itemcount": "Not checked: item limit reached",
    "closespider_errorcount": "Not checked: error limit reached",
    "shutdown": "Not checked: the audit was interrupted",
    "finished": "Not checked: the audit ended first",
}


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def unchecked_error(finish_reason: str, depth: int, max_depth: int | None) -> str:
    if max_depth is not None and depth > max_depth:
        return "Not checked: depth limit reached"
    return _NOT_CHECKED.get(finish_reason, f"Not checked: the audit ended ({finish_reason})")


def build_report(state: AuditState, **facts: Any) -> dict[str, Any]:
    """The whole report in memory (``linkaudit report``, the journal, tests).
    ``facts``: see :func:`report_entries`."""
    report: dict[str, Any] = {}
    urls = list(report_entries(state, report, **facts))
    return {**report, "urls": urls}


def report_entries(
    state: AuditState,
    report: dict[str, Any],
    *,
    start_urls: list[str],
    near_prefixes: Sequence[str],
    started_at: str,
    finished_at: str,
    finish_reason: str,
    pages: int,
    requests: int,
    max_depth: int | None = None,
    policy: RecheckPolicy | None = None,
    now: float = 0.0,
    baseline: frozenset[str] | None = None,
    baseline_source: str | None = None,
    files: Callable[[str], str | None] | None = None,
    fragments: bool = False,
    sitemaps: bool = False,
    templates: int | None = None,
    soft_404: tuple[str, float, bool] | None = None,
) -> Iterator[dict[str, Any]]:
    """Each URL's entry, sorted by URL and built one at a time; once the
    last is out, ``report`` holds the rest of the report (its summary counts
    them).  ``policy`` and
    ``now``: failures in their grace period are shown ok
    (LINKAUDIT_REPORT_AFTER); ``baseline``: new and fixed; ``files``: a
    local build's page URL -> its file, added to each referrer as ``file``;
    ``fragments``: each entry's ``missing_fragments``, and their count;
    ``sitemaps``: the ``sitemap`` section, when a sitemap was read;
    ``templates``: the ``groups`` of broken links, a template block being
    one on at least this many pages; ``soft_404``: (mode, similarity,
    whether probes were sent), soft 404s found."""
    near = tuple(near_prefixes)  # is_near takes a tuple, as str.startswith does
    summary = {"urls": 0, "pages": pages, "requests": requests}
    summary.update({o: 0 for o in OUTCOMES})
    internal = 0
    broken_now = set()
    missing = missing_fragments(state.entries()) if fragments else {}
    read_sitemap = False  # the sitemap section's own pass only when one was read
    redirects = RedirectFixes()
    groups = Groups(templates) if templates else None
    soft = Soft404s(*soft_404) if soft_404 else None
    if soft is not None:
        soft.prepare(state.entries())
        summary["soft_404"] = 0
    if fragments:
        summary["missing_fragments"] = 0
    for entry in sorted(state.entries(), key=_by_url):
        if soft is not None and soft.skip(entry.url):
            continue  # a probe: no link
        item = _entry_item(entry, near, finish_reason, max_depth, policy, now)
        if soft is not None and soft.judge(entry, item):
            summary["soft_404"] += 1
        redirects.see(entry)
        read_sitemap = read_sitemap or (
            entry.result is not None and entry.result.sitemap is not None
        )
        if entry.url in missing:
            item["missing_fragments"] = missing[entry.url]
            for gap in item["missing_fragments"]:
                key = fragment_key(entry.url, gap["fragment"])
                broken_now.add(key)
                if baseline is not None and key not in baseline:
                    gap["new"] = True
            summary["missing_fragments"] += len(item["missing_fragments"])
        if files is not None:
            _add_files(item["referrers"], files)
            for gap in item.get("missing_fragments", ()):
                _add_files(gap["referrers"], files)
        if groups is not None:
            groups.see(item)
        if item.get("links_dropped"):
            summary["links_dropped"] = summary.get("links_dropped", 0) + item["links_dropped"]
        summary["urls"] += 1
        summary[item["outcome"]] += 1
        if item["outcome"] == "unchecked" and is_internal_error(item):
            internal += 1
        if item["outcome"] == "broken":
            broken_now.add(item["url"])
            if baseline is not None and item["url"] not in baseline:
                item["new"] = True
        yield item
    fixes = redirects.fixes(state.entries, files)
    grouped = groups.groups(state.entries) if groups is not None else []
    sitemap = None
    if sitemaps and read_sitemap:
        sitemap = sitemap_section(state.entries(), start_urls, near)
    if internal:  # URLs whose check a bug of ours stopped (all unchecked)
        summary["internal_errors"] = internal
    dropped = state.urls_dropped()  # new URLs past LINKAUDIT_MAX_URLS: never checked
    if dropped:
        summary["urls_dropped"] = dropped
    changes: dict[str, Any] = {}
    if baseline is not None:
        changes = {"baseline": baseline_source, "fixed": sorted(baseline - broken_now)}
    report.update(
        {
            "version": REPORT_VERSION,
            "start_urls": list(start_urls),
            "near_prefixes": list(near_prefixes),
            "started_at": started_at,
            "finished_at": finished_at,
            "finish_reason": finish_reason,
            "complete": finish_reason == "finished"
            and summary["unchecked"] == 0
            and not dropped,
            "summary": summary,
            **changes,
            **({"sitemap": sitemap} if sitemap else {}),
            **({"redirect_fixes": fixes} if fixes else {}),
            **({"groups": grouped} if grouped else {}),
        }
    )


def _add_files(referrers: list[dict[str, Any]], files: Callable[[str], str | None]) -> None:
    for referrer in referrers:
        path = files(referrer["url"])
        if path is not None:
            referrer["file"] = path


def _entry_item(
    entry: Entry,
    near: tuple[str, ...],
    finish_reason: str,
    max_depth: int | None,
    policy: RecheckPolicy | None,
    now: float,
) -> dict[str, Any]:
    result = entry.result
    if result is not None and policy is not None:
        result = policy.present(result, entry.failing_since, now)
    if result is None:
        item: dict[str, Any] = {
            "url": entry.url,
            "near": is_near(entry.url, near),
            "outcome": "unchecked",
            "status": None,
            "error": unchecked_error(finish_reason, entry.depth, max_depth),
            "method": None,
            "content_type": None,
            "location": None,
        }
    else:
        item = result.contract_dict()
    item["depth"] = entry.depth
    item["referrer_count"] = entry.referrer_count
    # sorted: a resumed audit lists them as an uninterrupted one would
    item["referrers"] = [
        {"url": page, "line": line} for page, line in sorted(entry.referrers, key=_by_place)
    ]
    return item


def write_report(path: str, state: AuditState, **facts: Any) -> dict[str, Any]:
    """Write the report to ``path`` an entry at a time (a 150,000-URL
    report is 150 MB of JSON: never in memory as a whole), atomically.

    Returns the report with only the entries :func:`needed_in_summary`,
    so the rest can be freed."""
    kept: list[dict[str, Any]] = []
    report: dict[str, Any] = {}
    with tempfile.TemporaryFile("w+", encoding="utf-8", dir=_directory(path)) as spool:
        first = True
        for part in report_entries(state, report, **facts):
            spool.write(("  " if first else ",\n  ") + json_text(part))
            first = False
            if needed_in_summary(part):
                kept.append(part)
        spool.seek(0)

        def write(fh: Any) -> None:
            head = json_text(report, indent=1)
            if first:  # no entry
                fh.write(f'{head[:-2]},\n "urls": []\n}}\n')
                return
            fh.write(f'{head[:-2]},\n "urls": [\n')
            shutil.copyfileobj(spool, fh, 1 << 20)
            fh.write("\n ]\n}\n")

        write_atomically(path, write)
    return {**report, "urls": kept}


def is_internal_error(entry: dict[str, Any]) -> bool:
    return (entry.get("error") or "").startswith(INTERNAL_ERROR + ":")


def _by_url(entry: Entry) -> str:
    return entry.url


def _by_place(referrer: tuple[str, int | None]) -> tuple[str, int]:
    page, line = referrer
    return page, -1 if line is None else line


def dumps_report(report: dict[str, Any]) -> str:
    """The report as JSON with one URL entry per line.

    ``json.dumps(indent=...)`` runs the pure-Python encoder: on a 150,000-URL
    report that took seconds.  Entries are encoded compactly by the C encoder
    and joined, which also keeps a report greppable (one URL, one line).
    """
    head = {k: v for k, v in report.items() if k != "urls"}
    text = json_text(head, indent=1)
    if "urls" not in report:
        return text
    entries = ",\n  ".join(json_text(e) for e in report["urls"])
    body = f'"urls": [\n  {entries}\n ]' if entries else '"urls": []'
    return f"{text[:-2]},\n {body}\n}}" if head else f"{{\n {body}\n}}"


def write_json_atomic(path: str, data: dict[str, Any]) -> None:
    """Write to a temporary file beside ``path``, then rename: a reader never
    sees half a report, and a failed write leaves the old file alone."""

    def write(fh: Any) -> None:
        fh.write(dumps_report(data))
        fh.write("\n")

    write_atomically(path, write)


def _directory(path: str) -> str:
    return os.path.dirname(os.path.abspath(path))


def write_atomically(path: str, write: Callable[[Any], None]) -> None:
    fd, tmp = tempfile.mkstemp(prefix=".linkaudit-", suffix=".tmp", dir=_directory(path))
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            write(fh)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
