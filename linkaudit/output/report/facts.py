"""What the report says besides its entries, as one value: the run (its
start URLs, times, reason, counts) and the configuration's findings
switches (fragments, sitemaps, template groups, soft 404s, the grace
period, the baseline).

Built once, by :func:`report_facts`, from the configuration and the run,
wherever a report is written: the report pipeline (a crawl), a local build
read as files (``linkaudit/localbuild/``) and ``linkaudit report`` (a shared
audit's report from Redis, ``linkaudit/command/report.py``).  A journal's
rebuild (``linkaudit/output/journal.py``) has no configuration: it gives the
run alone, and the switches stay off, as the journal never recorded them.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from linkaudit.rules.names import BuildNames
from linkaudit.rules.recheck import RecheckPolicy

if TYPE_CHECKING:
    from linkaudit.config import Config
    from linkaudit.output.report.history import AuditHistory
    from linkaudit.sources import SourcePlaces


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


@dataclass(frozen=True)
class ReportFacts:
    """The report's facts.  The defaults of the switches are "not in this
    report" (a journal's rebuild, tests), not the configuration's defaults:
    those are in ``linkaudit/config/options.py`` alone, read by
    :func:`report_facts`."""

    start_urls: Sequence[str]
    near_prefixes: Sequence[str]
    started_at: str
    finished_at: str
    finish_reason: str
    pages: int
    requests: int
    max_depth: int | None = None
    # failures in their grace period (LINKAUDIT_REPORT_AFTER) are shown ok
    policy: RecheckPolicy | None = None
    now: float = 0.0
    # new and fixed against an earlier report (LINKAUDIT_BASELINE)
    baseline: frozenset[str] | None = None
    baseline_source: str | None = None
    # a local build's page URL -> its file, added to each referrer as ``file``
    files: Callable[[str], str | None] | None = None
    # a build's places of findings -> their source lines (--sources, --changed-since)
    sources: SourcePlaces | None = None
    # a build directory's names: the report names its files and deployed
    # URLs, not the address it was audited at (rules/names.py)
    names: BuildNames | None = None
    fragments: bool = False  # each entry's ``missing_fragments``, and their count
    sitemaps: bool = False  # the ``sitemap`` section, when a sitemap was read
    templates: int | None = None  # ``groups``: a template block is on this many pages
    soft_404: tuple[str, float, bool] | None = None  # (mode, similarity, probes sent)
    # the audit database's history (--db): ``history``, the broken runs
    history: AuditHistory | None = None
    suggest: float | None = None  # broken near links' ``suggestion``: the least score
    archive: bool = False  # --archive: each broken link's ``archived`` copy (linkaudit/memento/)
    # a struggling host slowed down and paused (hosts/backoff.py)
    backoffs: int = 0
    pauses: int = 0
    # requests asked again: a timeout's, a Retry-After's, a throttling or
    # struggling host's (each bounded: docs/politeness.md)
    retries: int = 0
    # a machine that seems offline: its far links unchecked, "no network", when
    # no far host answered and this many registrable domains failed (0: never;
    # LINKAUDIT_OFFLINE_HOSTS, rules/offline.py)
    offline: int = 0
    render: str = "never"  # LINKAUDIT_RENDER: the rendered section and its counts
    # a local build's part of the report: ``build``, orphans, hrefs (localbuild/report.py)
    build: Any = None


def report_facts(
    config: Config,
    *,
    started_at: str,
    finish_reason: str,
    pages: int,
    requests: int,
    baseline: frozenset[str] | None = None,
    baseline_source: str | None = None,
    backoffs: int = 0,
    pauses: int = 0,
    retries: int = 0,
    files: Callable[[str], str | None] | None = None,
    build: Any = None,
) -> ReportFacts:
    """The facts of a report written now, by the audit ``config`` describes,
    of a run that started at ``started_at`` and ended for ``finish_reason``
    after ``pages`` pages and ``requests`` requests.  ``files``: a local
    build's page URL -> its file, for the referrers (``localbuild``);
    ``build``: its pages (``localbuild/inventory.py``), whose part of the
    report is made here, one for each report."""
    soft_404 = config["LINKAUDIT_SOFT_404"]
    places = None
    if files is not None:
        from linkaudit.sources import source_places

        places = source_places(
            # a build's LocalFiles, typed as the callable audit.py knows (its
            # imports leave sources/ out, BuildFiles's home)
            files,  # type: ignore[arg-type]
            config["LINKAUDIT_SOURCES"],
            config["LINKAUDIT_CHANGED_SINCE"],
            config["LINKAUDIT_DETECT_SOURCES"],
        )
    return ReportFacts(
        start_urls=list(config.start_urls),
        near_prefixes=config.near_prefixes,
        started_at=started_at,
        finished_at=now_iso(),
        finish_reason=finish_reason,
        pages=pages,
        requests=requests,
        max_depth=config.max_depth,
        policy=config.policy,
        now=time.time(),
        baseline=baseline,
        baseline_source=baseline_source,
        backoffs=backoffs,
        pauses=pauses,
        retries=retries,
        files=files,
        sources=places,
        names=config.names,
        fragments=config["LINKAUDIT_CHECK_FRAGMENTS"],
        soft_404=(
            (soft_404, config["LINKAUDIT_SOFT_404_SIMILARITY"], config["LINKAUDIT_SOFT_404_PROBES"])
            if soft_404 != "off"
            else None
        ),
        templates=config["LINKAUDIT_TEMPLATE_MIN_PAGES"] if config["LINKAUDIT_TEMPLATES"] else None,
        sitemaps=bool(config["LINKAUDIT_SITEMAPS"] or config["LINKAUDIT_ROBOTS_SITEMAPS"]),
        suggest=config["LINKAUDIT_SUGGEST_MIN_SCORE"] if config["LINKAUDIT_SUGGESTIONS"] else None,
        archive=config["LINKAUDIT_ARCHIVE"],
        render=config["LINKAUDIT_RENDER"],
        offline=config["LINKAUDIT_OFFLINE_HOSTS"],
        build=build.report_part(config, files) if build is not None else None,
    )
