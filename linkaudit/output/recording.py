"""Recording results and writing the report: what the report pipeline
does, as functions of the configuration and the state, so that an audit
without a crawl (a local build read as files, ``linkaudit/localbuild/``)
records and reports exactly as the crawl does.  No Scrapy here."""

from __future__ import annotations

import gc
import logging
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from linkaudit.items import Outcome, UrlResult
from linkaudit.output.exitstatus import EXIT_INTERNAL, fail_at_exit
from linkaudit.output.formats.text import summary_text
from linkaudit.output.report.build import build_report, write_report
from linkaudit.output.report.facts import ReportFacts
from linkaudit.output.report.history import AuditHistory
from linkaudit.output.report.offline import carried_keys
from linkaudit.rules.baseline import broken_keys
from linkaudit.rules.recheck import iso
from linkaudit.state.base import AuditState

if TYPE_CHECKING:
    from linkaudit.config import Config

logger = logging.getLogger(__name__)


def record(
    state: AuditState, item: UrlResult, config: Config, baseline: frozenset[str] | None
) -> UrlResult:
    """Record ``item`` (its outcome, its links as referrers) and return it as
    the user is shown it (the feeds), as the report will show it: a failure
    in its grace period as ok with a warning, a page whose title says not
    found broken when soft 404s are errors (``LINKAUDIT_SOFT_404``), new
    breakage against a baseline marked ``new``.  What only the whole audit
    tells is sent again when it ends (``report/revisions.py``)."""
    now = time.time()
    if not item.from_cache:  # a cached outcome keeps the time it was checked
        item.checked_at = iso(now)
    state.add_referrers(item.url, item.links)
    failing_since = state.record(item, now)
    shown = config.policy.present(item, failing_since, now)
    if shown.soft_404 and shown.outcome == Outcome.OK and config["LINKAUDIT_SOFT_404"] == "error":
        shown = replace(shown, outcome=Outcome.BROKEN, error=shown.warning)  # as report/soft404.py
    names = config.names  # a build's URLs compare with the baseline as its report names them
    key = item.url if names is None else names.shown(item.url)
    if baseline is not None and shown.outcome == Outcome.BROKEN and key not in baseline:
        shown = replace(shown, new=True)
    return shown


def write_final_report(
    config: Config,
    state: AuditState,
    facts: ReportFacts,
    written: Callable[[str], None],
    failed: Callable[[OSError], None] = lambda exc: None,
) -> dict[str, Any]:
    """Write the report (however the audit ended), close the run in the
    state, call ``written`` with its path (the views, the journal's end), and
    return it.  A report that cannot be written is one ERROR line, exit 1,
    and the journal still holds every result."""
    path = config.report
    ok = False
    past = state.past()  # the audit database's earlier audits (--db)
    if past is not None:
        facts = replace(facts, history=AuditHistory(past, facts.started_at))
    try:
        with _audit_set_aside():
            report = write_report(path, state, facts)
        ok = True
    except OSError as exc:
        journal = config.journal
        logger.error(
            "linkaudit: cannot write the report %s: %s%s",
            path,
            exc.strerror or exc,
            f"; the results are in the journal {journal}" if journal else "",
        )
        failed(exc)
        fail_at_exit(1)
        report = build_report(state, facts)
    # (offline: the baseline's broken links left unchecked stay broken for the next audit)
    carried = carried_keys(report, facts.baseline)
    state.finish_run(facts.finish_reason, broken_keys(report) + carried)
    if facts.history is not None:
        state.keep_audit(*facts.history.kept())
    if ok:
        logger.info("Report written to %s", path)
        state.report_written(path, report)
        written(path)
    if report["summary"].get("internal_errors"):
        # scrapy crawl too: a run that hit a bug of ours does not exit 0
        fail_at_exit(EXIT_INTERNAL)
    logger.info("%s", summary_text(report))
    return report


@contextmanager
def _audit_set_aside() -> Iterator[None]:
    """What is alive when the report is written (the audit's state: every
    URL, result and referrer) set aside from the garbage collector's passes
    while it is written (``gc.freeze()``), then given back (``gc.unfreeze()``).

    Why: writing the report, and mapping its places to their sources
    (``--sources``), allocates as it goes, so the collector runs full
    passes over the whole audit's objects, which the report only reads:
    on Debian's Python docs (527 pages, 30,000 URLs) about 0.2 s of the
    report's 0.8-1.0 s, with and without ``--sources``.  Objects made while
    the report is written are collected as ever; the audit's own are
    freed when their last reference goes (the command's ``gc.collect()``
    after the report catches any cycle).  A collector turned off by the
    caller is left so."""
    if not gc.isenabled():
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
