"""``linkaudit DIR`` as a walk of the files (``files.py``), when the audit
asks nothing of the crawl that the walk does not do.

Three ends:

- nothing but the build to check (its far links excluded, or none): the
  report is written here, by the report pipeline's own functions
  (``linkaudit/output/recording.py``), and Scrapy is never imported;
- far links left: the crawl continues with the walk's state and results
  (the spider yields them first: every door sees the same items), and
  checks only those links;
- the audit needs the crawl for the build itself (an audit database, Redis,
  soft-404 probes, sitemaps, the build's own robots.txt, feeds, the page
  archive, a component or Scrapy setting of the user's, a request limit):
  no walk, the download handler reads the files instead
  (``linkaudit/localbuild/handler.py``).  docs/guide/local-build.md lists these.
"""

from __future__ import annotations

import gc
import logging
import signal
import sys
import threading
import time
from typing import Any

from linkaudit.audit import Walked
from linkaudit.config import BY_SETTING, Config
from linkaudit.config.plain import PlainSettings
from linkaudit.items import Outcome
from linkaudit.localbuild.directory import local_files
from linkaudit.localbuild.files import BuildWalk
from linkaudit.localbuild.static import answer, served_path
from linkaudit.output.recording import record, write_final_report
from linkaudit.output.report.build import now_iso
from linkaudit.output.report.facts import report_facts
from linkaudit.output.status import TerminalLine, status_line
from linkaudit.state.memory import MemoryState

logger = logging.getLogger(__name__)

MEMORY_STATE = "linkaudit.state.memory.MemoryState"
# Settings that are linkaudit's options but put a component of the user's
# (or one the walk does not run) in the path, or that Scrapy merges into
# its own dict defaults: with them, the crawl
CRAWL_ONLY = frozenset(
    {
        "DEFAULT_REQUEST_HEADERS",
        "DOWNLOADER_MIDDLEWARES",
        "SPIDER_MIDDLEWARES",
        "ITEM_PIPELINES",
        "EXTENSIONS",
        "DOWNLOAD_HANDLERS",
        "FEED_EXPORTERS",
        "TWISTED_DNS_RESOLVER",
        "LOG_FORMATTER",
        "LINKAUDIT_STATE",
    }
)
# Scrapy's own settings that only shape requests to other hosts (the far
# links the crawl checks after the walk) or the log (the size limits are
# none for the build's files: linkaudit/localbuild/handler.py)
NETWORK_ONLY = frozenset(
    {
        "DOWNLOAD_MAXSIZE",
        "DOWNLOAD_WARNSIZE",
        "CONCURRENT_REQUESTS",
        "CONCURRENT_REQUESTS_PER_DOMAIN",
        "DOWNLOAD_SLOTS",
        "RANDOMIZE_DOWNLOAD_DELAY",
        "DNS_TIMEOUT",
        "LOG_LEVEL",
    }
)


def walkable_settings(names: list[str]) -> bool:
    """The ``-s`` settings given leave the audit to the walk."""
    return all(
        (name in BY_SETTING and name not in CRAWL_ONLY) or name in NETWORK_ONLY for name in names
    )


def plain_settings(chosen: dict[str, Any], given: list[tuple[str, str]]) -> PlainSettings:
    """The command's settings without Scrapy: its choices, then ``-s``."""
    settings = PlainSettings(chosen, priority="cmdline")
    for name, value in given:
        settings.set(name, value, priority="cmdline")
    return settings


def walks(config: Config) -> bool:
    """The audit needs nothing of the crawl for the build itself."""
    root = config["LINKAUDIT_LOCAL_DIR"]
    if not (root and config["LINKAUDIT_LOCAL_READ"]) or config["LINKAUDIT_HEAD_FIRST"]:
        return False
    if config.state != MEMORY_STATE or config.keep_journal:
        return False
    if config["LINKAUDIT_SOFT_404"] != "off" and config["LINKAUDIT_SOFT_404_PROBES"]:
        return False
    if config["LINKAUDIT_SITEMAPS"] or config["LINKAUDIT_PAGEDIR"]:
        return False
    if config["LINKAUDIT_RENDER"] != "never":  # a browser renders pages: the crawl's
        return False
    if config["CLOSESPIDER_PAGECOUNT"]:  # (--max-time: the walk keeps its own clock)
        return False
    if tuple(config.near_prefixes) != (config.build_url,) or len(config.start_urls) != 1:
        return False  # (--near: the crawl)
    if config["ROBOTSTXT_OBEY"]:  # the build's own robots.txt: the crawl obeys it
        if answer(root, served_path(config.build_url), "/robots.txt").status == 200:
            return False
    return True


def walk(config: Config) -> Walked:
    """Walk the build; an interruption (Ctrl-C, SIGTERM) or ``--max-time``
    stops the walk where it is, before the next URL, and the report says
    so, as the crawl's does."""
    state = MemoryState()
    state.max_urls = config["LINKAUDIT_MAX_URLS"]
    started_at = now_iso()
    walker = BuildWalk(config, state)
    stop: list[str] = []  # the signals received
    limit = config["CLOSESPIDER_TIMEOUT"]
    deadline = time.monotonic() + limit if limit else None
    late: list[str] = []

    def interrupted(signum: int, _frame: Any) -> None:
        stop.append(signal.Signals(signum).name)

    def stopped() -> bool:
        if deadline is not None and not late and time.monotonic() >= deadline:
            late.append("closespider_timeout")  # Scrapy's reason for the same limit
        return bool(stop or late)

    # signals reach the main thread only (main() called from another: none)
    main = threading.current_thread() is threading.main_thread()
    numbers = (signal.SIGINT, signal.SIGTERM) if main else ()
    previous = {s: signal.signal(s, interrupted) for s in numbers}
    collecting = gc.get_threshold()
    threshold = config["LINKAUDIT_GC_THRESHOLD"]
    if threshold:  # paced as a crawl is (extensions/collector.py): 5 % of a walk
        if not gc.get_freeze_count():
            gc.freeze()
        gc.set_threshold(threshold, *collecting[1:])
    status = StatusLine(config["LINKAUDIT_PROGRESS_INTERVAL"])
    try:
        if config["LINKAUDIT_PROGRESS"]:
            walker.run(stopped=stopped, progress=status)
        else:
            walker.run(stopped=stopped)
    finally:
        walker.close()  # the processes that read the pages, if any, end first
        gc.set_threshold(*collecting)
        for number, handler in previous.items():
            signal.signal(number, handler)
        if config["LINKAUDIT_PROGRESS"]:
            status.line.close()
    if stop:
        logger.warning("Received %s, the walk stops: the report will be incomplete", stop[0])
    elif late:
        logger.info("Walked for %s s (--max-time): the report will be incomplete", limit)
    return Walked(
        state=state,
        items=walker.items,
        requests=walker.requests,
        pages=walker.stats["linkaudit/pages"],
        started_at=started_at,
        link_faults=walker.link_faults,
        stopped="shutdown" if stop else (late[0] if late else ""),
        build=walker.pages,
    )


class StatusLine:
    """The crawl's status line (``LINKAUDIT_PROGRESS``), redrawn on stdout
    at most every ``interval`` seconds as the walk goes."""

    def __init__(self, interval: float):
        self.interval = interval
        self.line = TerminalLine(sys.stdout)  # a log line erases it first
        self.started = self.drawn = time.monotonic()
        self.counted = self.broken = 0  # the items looked at so far, the broken among them

    def __call__(self, walk: BuildWalk) -> None:
        now = time.monotonic()
        if now - self.drawn < self.interval:
            return
        self.drawn = now
        items = walk.items
        self.broken += sum(
            items[i].outcome == Outcome.BROKEN for i in range(self.counted, len(items))
        )
        self.counted = len(items)
        queued = walk.state.waiting()
        self.line.draw(
            status_line(len(items), queued, self.broken, walk.requests, now - self.started)
        )


def finish(config: Config, walked: Walked) -> None:
    """Record every result and write the report and its views, as the
    report pipeline and the views extension do at the end of a crawl."""
    state = walked.state
    baseline = config.baseline
    for item in walked.items:
        record(state, item, config, baseline)
    facts = report_facts(
        config,
        started_at=walked.started_at,
        finish_reason=walked.stopped or "finished",
        pages=walked.pages,
        requests=walked.requests,
        baseline=baseline,
        baseline_source=config.baseline_source,
        files=local_files(config),
        build=walked.build,
    )

    paths: list[str] = []

    def views(path: str) -> None:
        from linkaudit.output.exports import write_views

        paths.append(path)
        write_views(path, config["LINKAUDIT_HTML"], config["LINKAUDIT_REDIRECT_FIXES"])

    report = write_final_report(config, state, facts, written=views)
    state.close()
    if config["LINKAUDIT_NOTIFY"]:  # as the notify extension does at the end of a crawl
        from linkaudit.notify.notifier import notify

        notify(config.values, report, paths[0] if paths else None)


def log_to_stderr(level: str) -> logging.Handler:
    """The crawl's log lines (Scrapy's format) for what the walk logs; the
    handler is removed before a crawl, which installs its own."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(
        logging.Formatter("%(asctime)s [%(name)s] %(levelname)s: %(message)s", "%Y-%m-%d %H:%M:%S")
    )
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(level)
    return handler
