"""The audit of one crawl: what its components share, reached from the
crawler with :func:`audit_of` (as Scrapy's own components reach
``crawler.stats``), never through the spider object.

An :class:`Audit` is made once per crawler, when the spider's arguments are
known (``LinkAuditSpider.from_crawler``): the configuration (``Config``,
also what :func:`linkaudit.config.config_of` answers), the link rules, the
audit's state, the run the state opened, the baseline a new breakage is
compared with, and the walk of a local build handed over by the command.
The scheduler, the readers, the pipelines, the journal, the recheck
middleware and the progress line all read these here.

Scrapy-free at import: the command's walk of a build never imports Scrapy.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any
from weakref import WeakKeyDictionary, ref

from linkaudit.config import Config, ConfigError, bind_config
from linkaudit.items import Outcome, UrlResult
from linkaudit.meta import CHECK_URL, DEPTH
from linkaudit.rules.judge import LinkRules
from linkaudit.rules.statuses import internal_error
from linkaudit.state.base import NEW_RUN, AuditState, Run
from linkaudit.state.memory import MemoryState

logger = logging.getLogger(__name__)
_AUDITS: WeakKeyDictionary[Any, Audit] = WeakKeyDictionary()


@dataclass
class Walked:
    """What the walk of a build (``linkaudit/localbuild/``) leaves: the state, the
    results (items) in the order found, the build's requests and pages, and
    whether the crawl still has URLs to check (far links)."""

    state: MemoryState
    items: list[UrlResult]
    requests: int
    pages: int
    started_at: str
    link_faults: set[str] = field(default_factory=set)
    stopped: str = ""  # why the walk stopped early ("shutdown", a limit's reason)
    build: Any = None  # the build's pages, read or not (localbuild/inventory.py)

    @property
    def done(self) -> bool:
        return bool(self.stopped) or not self.state.waiting()


@dataclass(eq=False)
class Audit:
    """What every component of one crawl shares (see the module's doc)."""

    config: Config
    rules: LinkRules
    state: AuditState
    baseline: frozenset[str] | None  # a report's broken URLs (None: no baseline)
    baseline_source: str | None
    walked: Walked | None = None  # a local build, walked before the crawl
    run: Run = NEW_RUN  # until the scheduler opens the audit
    link_faults: set[str] = field(default_factory=set)  # links an exception of ours hit
    # a local build's page URL -> its file, for the report (localbuild/directory.py)
    files: Callable[[str], str | None] | None = None
    # the crawler, weakly: its statistics exist only once the spider does,
    # and the crawler's entry in the registry must not keep itself alive
    crawler: Callable[[], Any] = lambda: None
    # a local build's pages, linked or not (localbuild/inventory.py): the
    # scheduler has its unread pages queued when no link is left
    build: Any = None
    # the walk of a build counts its own statistics (no crawler)
    counter: Callable[[str, int], None] | None = None

    # the spider's callback and errback, which every check's requests name
    # (``components/requests.py``): the scheduler's requests too
    callbacks: tuple[Callable[..., Any], Callable[..., Any]] | None = None

    def is_near(self, url: str) -> bool:
        return self.rules.is_near(url)

    @cached_property
    def html_types(self) -> frozenset[str]:
        """What an HTML page is served as (LINKAUDIT_HTML_TYPES)."""
        return frozenset(t.lower() for t in self.config["LINKAUDIT_HTML_TYPES"])

    @cached_property
    def css_types(self) -> frozenset[str]:
        """What a stylesheet is served as, when stylesheets are read (LINKAUDIT_CSS)."""
        css = self.config["LINKAUDIT_CSS"]
        return frozenset(t.lower() for t in self.config["LINKAUDIT_CSS_TYPES"] if css)

    @cached_property
    def scan_types(self) -> frozenset[str]:
        """A near URL served as one of these is scanned for links."""
        return self.html_types | self.css_types

    def open(self) -> Run:
        """Open (or resume) the audit in its state; a database's baseline
        serves when no report file was given."""
        config = self.config
        self.run = run = self.state.open_run(list(config.start_urls), config.near_prefixes)
        if self.baseline is None and run.baseline is not None:
            self.baseline, self.baseline_source = run.baseline, run.baseline_source
            if config.names is not None:  # a build's keys compare as its report names them
                self.baseline = config.names.keys(run.baseline)
        return run

    def count(self, name: str, count: int = 1) -> None:
        """A statistic of the crawl (``crawler.stats``), or of the walk of a
        build (its ``counter``)."""
        if self.counter is not None:
            self.counter(name, count)
        else:
            self.crawler().stats.inc_value(name, count)

    def internal_error(self, request: Any, exc_info: Any) -> UrlResult:
        """The check of ``request``'s URL was stopped by an exception of ours
        (``exc_info``, as ``sys.exc_info()`` gives it): an ERROR with the
        traceback in the log, and the URL ``unchecked``, never ``broken``."""
        meta = request.meta
        url = meta[CHECK_URL]
        logger.error(
            "Internal error while checking %s %s (a bug in linkaudit: please report it "
            "with this log)",
            request.method,
            url,
            exc_info=exc_info,
        )
        self.count("linkaudit/internal_errors")
        return UrlResult(
            url=url,
            near=self.is_near(url),
            outcome=Outcome.UNCHECKED,
            depth=meta[DEPTH],
            error=internal_error(exc_info[1]),
        )

    def unchecked(self, url: str, depth: int, error: str) -> UrlResult:
        """A URL whose check our own code stopped (an internal error, its
        words ``error``): ``unchecked``, never ``broken``."""
        return UrlResult(
            url=url, near=self.is_near(url), outcome=Outcome.UNCHECKED, depth=depth, error=error
        )

    def result(self, reply: Any, outcome: Outcome, **fields: Any) -> UrlResult:
        """The result of the check a reply answered (``components/answers.py``)."""
        return UrlResult(
            url=reply.url,
            near=self.is_near(reply.url),
            outcome=outcome,
            depth=reply.depth,
            status=reply.status,
            method=reply.method,
            content_type=reply.kind,
            **fields,
        )


def link_rules(config: Config) -> LinkRules:
    """The audit's link rules, as its configuration says."""
    return LinkRules(
        config.near_prefixes, config.guards, config["URLLENGTH_LIMIT"], config.root_mapping
    )


def start_audit(
    crawler: Any,
    arguments: dict[str, Any],
    config: Config | None = None,
    walked: Walked | None = None,
) -> Audit:
    """The crawler's audit, made once: the configuration (the command's,
    or read from the settings and the spider's arguments), then the state
    (its class may read the configuration with ``config_of``).  A bad
    configuration is one line on stderr and exit code 2, before the engine
    exists: no request, no report, no traceback."""
    from scrapy.utils.misc import build_from_crawler, load_object

    from linkaudit.rules.html.selfcheck import scanner_fault

    if fault := scanner_fault():  # scrapy crawl and Scrapyd too
        print(f"linkaudit: error: {fault}", file=sys.stderr)
        raise SystemExit(2)
    try:
        config = config or Config.build(crawler.settings, arguments)
        bind_config(crawler, config)
        state = walked.state if walked else build_from_crawler(load_object(config.state), crawler)
    except ConfigError as exc:
        print(f"linkaudit: error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    state.max_urls = config["LINKAUDIT_MAX_URLS"]
    audit = Audit(
        config, link_rules(config), state, config.baseline, config.baseline_source, walked
    )
    audit.crawler = ref(crawler)
    _AUDITS[crawler] = audit
    return audit


def audit_of(crawler: Any) -> Audit | None:
    """The crawler's audit; None for a crawl of another spider (a component
    of ours in someone else's project)."""
    return _AUDITS.get(crawler)
