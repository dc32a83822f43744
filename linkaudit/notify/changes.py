"""What changed, read from the final JSON report (the contract: every
route writes the same one, so every route tells the same).

- **new**: the broken entries marked ``new`` against the baseline (the
  previous finished audit of ``--db``, or ``--baseline``); with no
  baseline at all (a first audit), every broken link is new, as
  ``--fail-on new`` counts it;
- **fixed**: the report's ``fixed`` (broken then, not now, or no longer
  linked), less any URL this audit could not check (``unchecked``: a
  machine without a network, a host given up, a limit): unknown is not
  fixed;
- **still broken**: the other broken entries, with how long they have been
  (``broken_since``, with ``--db``).

Each new link keeps its places: a link the site template repeats is one
line (the report's template ``groups``), the others a line a page with
its line numbers.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from urllib.parse import urlsplit

from linkaudit.items import GroupKind, Outcome
from linkaudit.output.report.records import ArchivedCopy, Report, ReportEntry, TemplateGroup
from linkaudit.output.report.records import Place as PlaceRecord
from linkaudit.output.words import age, group_text


@dataclass(frozen=True)
class Place:
    """Where a new broken link is: a page and its lines, or a template
    group in words (``in the site template (footer), on 487 pages ...``)."""

    page: str
    lines: tuple[int, ...] = ()
    template: str = ""  # the group's words: one line for every page
    pages: int = 1  # the template's pages

    def words(self) -> str:
        if self.template:
            return self.template
        if not self.lines:
            return self.page
        label = "line" if len(self.lines) == 1 else "lines"
        return f"{self.page} {label} {', '.join(str(n) for n in self.lines)}"


@dataclass(frozen=True)
class Link:
    url: str
    status: int | None
    error: str
    places: tuple[Place, ...]
    since: str | None = None  # broken_since (still broken ones)
    audits: int | None = None
    archived: ArchivedCopy | None = None  # the archived copy, when the report has one

    def what(self) -> str:
        """``404 Not Found``, ``DNS lookup failed for x``."""
        return self.error or (str(self.status) if self.status else "broken")


@dataclass(frozen=True)
class Changes:
    site: str  # the first start URL's host (or the build's directory)
    started_at: str
    new: tuple[Link, ...]
    fixed: tuple[str, ...]
    still: tuple[Link, ...]
    report: str  # where the report is, in words (a URL or a path)
    compared: bool  # a baseline was there
    complete: bool = True
    notes: tuple[str, ...] = field(default=())  # the audit's own caveats (offline, stopped)

    @property
    def changed(self) -> bool:
        return bool(self.new or self.fixed)

    def longest(self) -> str | None:
        """How long the longest-broken of the rest has been: ``12 days``."""
        since = sorted(link.since for link in self.still if link.since)
        return age(since[0], self.started_at) if since else None

    def title(self) -> str:
        """``3 new broken links on example.org, 1 fixed``."""
        parts = [f"{len(self.new)} new broken link{'s' * (len(self.new) != 1)}"]
        if not self.changed:
            parts = ["no change"]
        text = f"{parts[0]} on {self.site}"
        if self.fixed:
            text += f", {len(self.fixed)} fixed"
        return text

    def still_text(self) -> str:
        """``3 still broken (the longest for 12 days)``, or ""."""
        if not self.still:
            return ""
        longest = self.longest()
        return f"{len(self.still)} still broken" + (
            f" (the longest for {longest})" if longest else ""
        )


def changes(report: Report, path: str | None, report_url: str = "") -> Changes:
    """The changes ``report`` holds; ``path``: where it was written (None:
    it could not be); ``report_url``: where readers find it, if given."""
    entries = report.get("urls") or []
    compared = "baseline" in report
    groups: dict[str, list[TemplateGroup]] = {}
    for group in report.get("groups") or ():
        groups.setdefault(group.get("target", ""), []).append(group)
    new: list[Link] = []
    still: list[Link] = []
    unchecked = set()
    for entry in entries:
        if entry.get("outcome") == Outcome.UNCHECKED:
            unchecked.add(entry.get("url"))
        if entry.get("outcome") != Outcome.BROKEN:
            continue
        link = _link(entry, groups.get(entry.get("url", ""), []))
        (new if entry.get("new") or not compared else still).append(link)
    fixed = tuple(u for u in report.get("fixed") or () if u not in unchecked)
    notes = []
    if not report.get("complete", True):
        notes.append(f"the audit did not finish ({report.get('finish_reason', 'stopped')})")
    if report.get("offline"):
        notes.append("the machine seemed offline: far links were not checked")
    return Changes(
        site=_site(report),
        started_at=str(report.get("started_at") or datetime.now().astimezone().isoformat()),
        new=tuple(new),
        fixed=fixed,
        still=tuple(still),
        report=where(path, report_url),
        compared=compared,
        complete=bool(report.get("complete", True)),
        notes=tuple(notes),
    )


def _link(entry: ReportEntry, groups: list[TemplateGroup]) -> Link:
    places: list[Place] = []
    own: dict[str, list[int]] = {}
    referrers: list[PlaceRecord] = []
    if groups:
        for group in groups:
            if group.get("kind") == GroupKind.TEMPLATE:
                places.append(Place("", template=group_text(group), pages=group.get("pages", 0)))
            else:
                referrers.extend(group.get("referrers") or ())
    else:
        referrers = entry.get("referrers") or []
    for referrer in referrers:
        page = referrer.get("file") or referrer.get("url") or ""
        lines = own.setdefault(page, [])
        line = referrer.get("line")
        if isinstance(line, int) and line not in lines:
            lines.append(line)
    places += [Place(page, tuple(sorted(lines))) for page, lines in own.items()]
    return Link(
        url=entry.get("url", ""),
        status=entry.get("status"),
        error=entry.get("error") or "",
        places=tuple(places),
        since=entry.get("broken_since"),
        audits=entry.get("audits_broken"),
        archived=entry.get("archived") if isinstance(entry.get("archived"), dict) else None,
    )


def _site(report: Report) -> str:
    build = report.get("build")
    if isinstance(build, dict) and build.get("directory"):
        return str(build.get("root_url") or build["directory"])
    starts = report.get("start_urls") or [""]
    return urlsplit(str(starts[0])).netloc or str(starts[0])


def where(path: str | None, report_url: str = "") -> str:
    """Where the report is: the URL the user gave, else a GitHub Actions
    run's page (its variables set), else the report's absolute path."""
    if report_url:
        return report_url
    env = os.environ
    if all(env.get(k) for k in ("GITHUB_SERVER_URL", "GITHUB_REPOSITORY", "GITHUB_RUN_ID")):
        return (
            f"{env['GITHUB_SERVER_URL']}/{env['GITHUB_REPOSITORY']}/actions/runs/"
            f"{env['GITHUB_RUN_ID']}"
        )
    if path is None:
        return "the report could not be written (see the audit's log)"
    return str(Path(path).resolve())
