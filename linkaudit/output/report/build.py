"""The JSON report (its contract: ``docs/report.md``): built from the audit's
state, written atomically, and summarised for a person."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Iterator
from datetime import datetime
from typing import Any, cast

from linkaudit.items import OUTCOMES, Outcome
from linkaudit.output.jsontext import json_text
from linkaudit.output.reading import needed_in_summary, read_report
from linkaudit.output.report.archived import archived
from linkaudit.output.report.atomic import directory_of, dumps_report, write_atomically, write_head
from linkaudit.output.report.facts import ReportFacts, now_iso
from linkaudit.output.report.getonly import get_only_hosts
from linkaudit.output.report.naming import in_shown_order, named_entry, named_head
from linkaudit.output.report.records import Place, Report, ReportEntry, Summary
from linkaudit.output.report.rendered import RenderedPages
from linkaudit.output.report.sections import Sections, shown
from linkaudit.output.words import is_internal_error
from linkaudit.rules.baseline import fragment_key
from linkaudit.rules.recheck import RecheckPolicy
from linkaudit.rules.rendered import referrer_fields
from linkaudit.rules.urls import is_near
from linkaudit.state.base import AuditState, Entry

__all__ = [
    "ReportFacts",
    "build_report",
    "dumps_report",
    "needed_in_summary",
    "now_iso",
    "read_report",
    "write_report",
]
REPORT_VERSION = 1

# Why a discovered URL was never checked, by Scrapy close reason.
_NOT_CHECKED = {
    "closespider_pagecount": "Not checked: hit limit reached",
    "closespider_timeout": "Not checked: time limit reached",
    "closespider_itemcount": "Not checked: item limit reached",
    "closespider_errorcount": "Not checked: error limit reached",
    "shutdown": "Not checked: the audit was interrupted",
    "finished": "Not checked: the audit ended first",
}


def unchecked_error(finish_reason: str, depth: int, max_depth: int | None) -> str:
    if max_depth is not None and depth > max_depth:
        return "Not checked: depth limit reached"
    return _NOT_CHECKED.get(finish_reason, f"Not checked: the audit ended ({finish_reason})")


def build_report(state: AuditState, facts: ReportFacts) -> Report:
    """The whole report in memory (``linkaudit report``, the journal, tests)."""
    report: Report = {}
    urls = list(report_entries(state, report, facts))
    return {**report, "urls": urls}


def report_entries(
    state: AuditState,
    report: Report,
    facts: ReportFacts,
    late: set[str] | None = None,
) -> Iterator[ReportEntry]:
    """:func:`entries_of`, a build's in the order of its names."""
    entries = entries_of(state, report, facts, late)
    return entries if facts.names is None else in_shown_order(entries, facts.names)


def entries_of(
    state: AuditState,
    report: Report,
    facts: ReportFacts,
    late: set[str] | None = None,
) -> Iterator[ReportEntry]:
    """Each URL's entry, sorted by URL and built one at a time; once the
    last is out, ``report`` holds the rest of the report (its summary counts
    them).  The state's entries are read once (``sections.Sections``).

    ``late``: only the entries whose verdict the report decides, not
    their check (a redirect loop, a soft 404 found by a probe, a failure
    whose grace period ended as the audit ran) are wanted: the URL of each
    is added to ``late`` before it is yielded, entries that cannot be one
    are skipped, and ``report`` is not to be read (``revisions.py``).

    A build's entries and report name its files and deployed URLs, never
    its internal address (``facts.names``, ``naming.py``): what is compared
    with the baseline is compared as shown."""
    near = tuple(facts.near_prefixes)  # is_near takes a tuple, as str.startswith does
    finish_reason, max_depth, baseline = facts.finish_reason, facts.max_depth, facts.baseline
    names = facts.names
    named = names.shown if names is not None else str  # (str: the URL as it is)
    baseline = names.keys(baseline) if names and baseline is not None else baseline
    policy, now, files = facts.policy, facts.now, facts.files
    places = facts.sources if late is None else None
    summary = cast(Summary, {"urls": 0, "pages": facts.pages, "requests": facts.requests})
    tally = cast(dict[str, int], summary)  # (the outcomes' counts: keys that are Outcome's words)
    tally.update({o: 0 for o in OUTCOMES})
    summary["backoffs"] = facts.backoffs
    summary["pauses"] = facts.pauses
    summary["retries"] = facts.retries
    internal = 0
    walls: dict[str, int] = {}  # unchecked behind a bot wall, by wall (rules/walls.py)
    broken_now = set()
    sections = Sections(facts, near)
    renders = RenderedPages(facts.render)
    entries = sections.read(state)
    missing = sections.missing_fragments()
    build = facts.build  # a local build's part: orphans, hrefs... (localbuild/report.py)
    if build is not None:
        build.prepare(entries, missing, stopped=finish_reason != "finished")
    history = facts.history
    suggested = sections.suggestions()
    soft, groups = sections.soft, sections.groups
    if soft is not None:
        summary["soft_404"] = 0
    if facts.fragments:
        summary["missing_fragments"] = 0
    copies = state.archived_copies() if facts.archive and late is None else None
    if copies is not None:
        summary["archived"] = 0
    since = _epoch(facts.started_at, now)
    unreached = sections.unreached  # offline: far links unchecked, "no network"
    for entry in entries:
        if soft is not None and soft.skip(entry.url):
            continue  # a probe: no link
        if build is not None and build.skip(entry):
            continue  # a build's file that is no page, which no link leads to
        expired = late is not None and _expired(entry, policy, since, now)
        decided = entry.url in sections.looped or entry.url in unreached  # (at the end)
        if late is not None and not (
            expired or decided or _probed(entry) or _through(entry, sections)
        ):
            continue  # only the late verdicts are asked for: this one was its check's
        item = _entry_item(entry, near, finish_reason, max_depth, policy, now)
        said = item.get("soft_404")  # (a title that says not found: said as checked)
        if soft is not None and soft.judge(entry, item):
            summary["soft_404"] += 1
        if late is not None and (expired or decided or (item.get("soft_404") and not said)):
            late.add(named(entry.url))
        if item["outcome"] not in (Outcome.OK, Outcome.REDIRECT) or item.get("soft_404"):
            # a finding names the pages that link to it through redirects too
            through = sections.redirects.through(entry.url)
            item["referrers"] += through
            if late is not None and through:  # places its check did not know
                late.add(named(entry.url))
        if entry.url in missing:
            item["missing_fragments"] = missing[entry.url]
            for gap in item["missing_fragments"]:
                key = named(fragment_key(entry.url, gap["fragment"]))
                broken_now.add(key)
                if baseline is not None and key not in baseline:
                    gap["new"] = True
            summary["missing_fragments"] += len(item["missing_fragments"])
        if files is not None:
            _add_files(item["referrers"], files)
            for gap in item.get("missing_fragments", ()):
                _add_files(gap["referrers"], files)
        if build is not None:
            build.see(item)
        if places is not None:  # a build's places -> its source lines
            places.entry(cast(dict[str, Any], item))  # (sources/ reads it as JSON)
        if groups is not None:
            groups.see(item)
        if item.get("app_shell"):  # its links exist only once scripts run: unchecked
            summary["app_shells"] = summary.get("app_shells", 0) + 1
        if item.get("render"):  # --render: a page rendered in Chromium, or its render failed
            renders.see(item)
        if item.get("links_dropped"):
            summary["links_dropped"] = summary.get("links_dropped", 0) + item["links_dropped"]
        if item.get("not_modified") and item.get("page") is not None:
            # a page the database vouches for: not scanned again, not to be missed
            summary["not_modified"] = summary.get("not_modified", 0) + 1
        summary["urls"] += 1
        tally[item["outcome"]] += 1
        if item["outcome"] == Outcome.UNCHECKED:
            internal += is_internal_error(item)
            wall = item.get("wall")
            if wall:
                walls[wall] = walls.get(wall, 0) + 1
        if item["outcome"] == Outcome.BROKEN:
            if entry.url in suggested:
                item["suggestion"] = suggested[entry.url]
            if copies is not None:
                summary["archived"] += archived(item, copies.get(entry.url))
            broken_now.add(named(item["url"]))
            if baseline is not None and named(item["url"]) not in baseline:
                item["new"] = True
        if history is not None:
            history.mark(item)
        yield item if names is None else named_entry(item, names, files)
    if internal:  # URLs whose check a bug of ours stopped (all unchecked)
        summary["internal_errors"] = internal
    if walls:  # URLs a bot wall kept us from (all unchecked), by wall
        summary["walls"] = dict(sorted(walls.items()))
    dropped = state.urls_dropped()  # new URLs past LINKAUDIT_MAX_URLS: never checked
    if dropped:
        summary["urls_dropped"] = dropped
    renders.counts(summary)
    get_only = get_only_hosts(state)  # hosts whose HEAD answers proved no hint
    if get_only:
        summary["get_only_hosts"] = get_only
    closing = sections.closing()
    if places is not None:
        for fix in closing.get("redirect_fixes", ()):
            places.fix(cast(dict[str, Any], fix))  # (as an entry: read as JSON there)
        if places.change is not None:
            summary["outside_change"] = places.outside
    changes: dict[str, Any] = {}
    # a link left unchecked for want of a network is not fixed: its state is unknown
    unknown = {named(url) for url in unreached}
    if baseline is not None:
        changes = {
            "baseline": facts.baseline_source,
            "fixed": sorted(baseline - broken_now - unknown),
        }
    offline = sections.offline.section() if sections.offline is not None else None
    if offline is not None:
        summary["offline"] = True
    report.update(
        {
            "version": REPORT_VERSION,
            "start_urls": list(facts.start_urls),
            "near_prefixes": list(facts.near_prefixes),
            **({"build": build.section(summary)} if build is not None else {}),
            "started_at": facts.started_at,
            "finished_at": facts.finished_at,
            "finish_reason": finish_reason,
            "complete": finish_reason == "finished" and summary["unchecked"] == 0 and not dropped,
            "summary": summary,
            **({"offline": offline} if offline is not None else {}),
            **changes,
            **closing,
            **renders.section(),
        }
    )
    if places is not None:  # what the mapping says, after the summary
        report.setdefault("build", {})["sources"] = places.section()
        if places.change is not None:
            report["changed_since"] = places.change.section()
    if history is not None:  # new and fixed since the last finished audit (all new: none)
        earlier = baseline or frozenset()
        new, fixed = len(broken_now - earlier), len(earlier - broken_now - unknown)
        report["history"] = history.section(report, fixed=fixed, new=new)
    if names is not None:
        report.update(named_head(report, names))


def _through(entry: Entry, sections: Sections) -> bool:
    """A finding the pages reach through redirects (places its check did
    not know: they are known once every redirect is)."""
    result = entry.result
    if result is None or result.outcome in (Outcome.OK, Outcome.REDIRECT):
        return False
    return bool(sections.redirects.through(entry.url))


def _probed(entry: Entry) -> bool:
    """A page the soft-404 probes may find to be one (its fingerprint kept)."""
    result = entry.result
    return result is not None and result.fingerprint is not None and not result.soft_404


def _expired(entry: Entry, policy: RecheckPolicy | None, since: float, now: float) -> bool:
    """A failure whose grace period (LINKAUDIT_REPORT_AFTER) ended while
    the audit ran: its check may have shown it ok, the report shows it broken."""
    result = entry.result
    if policy is None or result is None or result.outcome != Outcome.BROKEN:
        return False
    before = policy.present(result, entry.failing_since, since)
    return before.outcome != policy.present(result, entry.failing_since, now).outcome


def _epoch(stamp: str, default: float) -> float:
    try:
        return datetime.fromisoformat(stamp).timestamp()
    except (TypeError, ValueError):  # a run's start as a journal or a test gives it
        return default


def _add_files(referrers: list[Place], files: Callable[[str], str | None]) -> None:
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
) -> ReportEntry:
    result = shown(entry, policy, now)
    item: ReportEntry
    if result is None:
        item = cast(  # (its depth and places follow)
            ReportEntry,
            {
                "url": entry.url,
                "near": is_near(entry.url, near),
                "outcome": Outcome.UNCHECKED,
                "status": None,
                "error": unchecked_error(finish_reason, entry.depth, max_depth),
                "method": None,
                "content_type": None,
                "location": None,
            },
        )
    else:
        item = cast(ReportEntry, result.contract_dict())  # (UrlResult's contract fields)
    item["depth"] = entry.depth
    item["referrer_count"] = entry.referrer_count
    # sorted: a resumed audit lists them as an uninterrupted one would
    item["referrers"] = [
        referrer_fields(page, line) for page, line in sorted(entry.referrers, key=_by_place)
    ]
    return item


def write_report(path: str, state: AuditState, facts: ReportFacts) -> Report:
    """Write the report to ``path`` an entry at a time (a 150,000-URL
    report is 150 MB of JSON: never in memory as a whole), atomically.

    Returns the report with only the entries :func:`needed_in_summary`,
    so the rest can be freed."""
    kept: list[ReportEntry] = []
    report: Report = {}
    with tempfile.TemporaryFile("w+", encoding="utf-8", dir=directory_of(path)) as spool:
        first = True
        for part in report_entries(state, report, facts):
            spool.write(("  " if first else ",\n  ") + json_text(part))
            first = False
            if needed_in_summary(part):
                kept.append(part)
        spool.seek(0)

        def write(fh: Any) -> None:
            write_head(fh, report)
            if first:  # no entry
                fh.write(',\n "urls": []\n}\n')
                return
            fh.write(',\n "urls": [\n')
            shutil.copyfileobj(spool, fh, 1 << 20)
            fh.write("\n ]\n}\n")

        write_atomically(path, write)
    return {**report, "urls": kept}


def _by_place(referrer: tuple[str, int | None]) -> tuple[str, int]:
    page, line = referrer
    return page, -1 if line is None else line
