"""``linkaudit URL...``: the same spider and settings as ``scrapy crawl
linkaudit``, run in-process, with a summary on stdout and an exit code a CI
job can rely on:

- 0: nothing broken, and the audit was complete;
- 1: something is broken (with ``--fail-on new``: something broke since the
  baseline);
- 2: a usage or configuration error (nothing was requested);
- 3: nothing broken was found, but the audit was incomplete (a limit or an
  interruption stopped it, or a URL could not be verified);
- 4: an internal error (a bug in linkaudit) stopped the check of at least
  one URL: the report is written, those URLs are ``unchecked`` with an
  ``Internal error:`` error, and the log has the traceback to report.  It
  wins over 1 and 3: the report cannot be trusted to be whole.
"""

from __future__ import annotations

import argparse
import gc
import logging
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from linkaudit.command import choices
from linkaudit.command.parser import blame_file, build_parser
from linkaudit.command.sites import local_site
from linkaudit.config.file import (
    ConfigFileError,
    apply_config,
    describe,
    find_config,
    prepare,
    render_config,
)
from linkaudit.output.exitstatus import EXIT_INCOMPLETE, EXIT_USAGE, exit_code

# Scrapy, the configuration checks, the servers and the report are imported
# where they are used: ``linkaudit --version``, ``--help`` and a usage error
# answer without them (about a second less on a small machine).
if TYPE_CHECKING:
    from scrapy.settings import Settings

    from linkaudit.config import Config
    from linkaudit.localbuild.walk import Walked

__all__ = ["build_parser", "main"]


def _walk_config(ns: argparse.Namespace) -> tuple[Config, str] | None:
    """The configuration of a build directory walked as files
    (``linkaudit/localbuild/``), when the audit asks nothing else of the
    crawl for it, and its log's level; None: the crawl reads it."""
    from linkaudit.config import Config
    from linkaudit.localbuild.walk import plain_settings, walkable_settings, walks

    if (
        ns.local_dir is None
        or ns.demo
        or ns.jsonl
        or not walkable_settings([name for name, _ in ns.settings])
    ):
        return None
    settings = plain_settings(choices.chosen(ns), ns.settings)
    config = Config.build(settings, choices.arguments(ns), choices.names(ns))
    return (config, settings.get("LOG_LEVEL")) if walks(config) else None


def _walk(config: Config, level: str) -> Walked:
    """The walk of the build (its log on stderr until the crawl, if one
    follows, installs its own)."""
    from linkaudit.localbuild.walk import log_to_stderr, walk

    handler = log_to_stderr(level)
    walked = walk(config)
    if not walked.done:  # the crawl goes on, with its own log handler
        logging.getLogger().removeHandler(handler)
    return walked


def _crawl_config(ns: argparse.Namespace, walked_for: float = 0.0) -> tuple[Settings, Config]:
    """The crawl's settings and configuration, checked (a shared audit's
    Redis too); ``walked_for``: the seconds a walk of the build took."""
    from linkaudit.config import Config

    settings = choices.settings(ns)
    if walked_for and settings.getfloat("CLOSESPIDER_TIMEOUT"):
        # --max-time counts the walk: the crawl of far links has the rest
        left = settings.getfloat("CLOSESPIDER_TIMEOUT") - walked_for
        settings.set("CLOSESPIDER_TIMEOUT", max(left, 0.001), priority="cmdline")
    config = Config.build(settings, choices.arguments(ns), choices.names(ns))
    if config["LINKAUDIT_REDIS"]:
        from linkaudit.command.shared import check_shared

        check_shared(config, settings)
    return settings, config


def _crawl(settings: Settings, config: Config, walked: Walked | None = None) -> Any:
    from scrapy.crawler import CrawlerProcess

    from linkaudit.spiders.linkaudit import LinkAuditSpider  # imports the reactor

    process = CrawlerProcess(settings)
    crawler = process.create_crawler(LinkAuditSpider)
    # (the log's level: the LogLevel extension, for scrapy crawl too)
    # checked already: the spider takes it (and what a walk of the build found)
    process.crawl(crawler, _config=config, _walked=walked)
    process.start()
    return crawler


def main(argv: list[str] | None = None) -> int:
    try:
        return _main(sys.argv[1:] if argv is None else argv)
    except BrokenPipeError:  # `linkaudit --help | head`; an audit's own output: show_report
        from linkaudit.output.show import reader_left

        reader_left()
        return 0


def _main(argv: list[str]) -> int:
    from linkaudit.output.logrecords import escape_log_records

    escape_log_records()  # a URL's ESC or bidi override never raw in the log
    if argv[:1] == ["report"]:
        from linkaudit.command.report import report_main

        return report_main(argv[1:])
    if argv[:1] == ["show"]:
        from linkaudit.command.show import show_main

        return show_main(argv[1:])
    if argv[:1] == ["keygen"]:
        from linkaudit.command.keygen import keygen_main

        return keygen_main(argv[1:])
    if argv[:1] == ["history"]:
        from linkaudit.command.history import history_main

        return history_main(argv[1:])
    parser = build_parser()
    prepare(parser)  # the command line replaces the file's lists
    first, _ = parser.parse_known_args(argv)  # --config, before the file is read
    from_file: dict[str, Any] = {}
    source = ""
    try:
        found = find_config(first.config, Path.cwd())
        if found is not None:
            path, table = found
            source = describe(path)
            from_file = apply_config(parser, table, source)
            parser.set_defaults(**from_file)
    except ConfigFileError as exc:
        print(f"linkaudit: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    ns = parser.parse_args(argv)  # the command line wins
    if ns.print_config:
        print(render_config(parser, ns), end="")
        return 0
    from linkaudit.rules.html.selfcheck import scanner_fault

    if fault := scanner_fault():  # a Python whose re would find no link: not a clean audit
        print(f"linkaudit: error: {fault}", file=sys.stderr)
        return EXIT_USAGE
    # the values the command line did not replace: their errors name the file
    from_file = {d: v for d, v in from_file.items() if getattr(ns, d, None) == v}
    if ns.demo and ns.urls:
        parser.error("--demo audits the bundled site: give no URL with it")
    if not ns.demo and not ns.urls:
        parser.error("the following arguments are required: URL")
    site_of = local_site(parser, ns)
    with site_of as site:
        if site is not None:
            ns.urls = [site.url]
        from linkaudit.config import ConfigError

        walked = None
        try:  # every setting checked before the command says anything else
            started = time.monotonic()
            walking = _walk_config(ns)
            if walking is None:
                settings, config = _crawl_config(ns)
            else:
                config, level = walking
        except ConfigError as exc:
            print(f"linkaudit: error: {blame_file(str(exc), from_file, source)}", file=sys.stderr)
            return EXIT_USAGE
        from linkaudit.output.logrecords import name_build_in_log

        name_build_in_log(config.names)  # a build's log names its files, as its report does
        if site is not None and not ns.quiet:  # -q: a clean audit says nothing
            # a build read from its files has an address, and no server
            served = "served on 127.0.0.1, read as" if site.served else "read as"
            what = "demo site at" if ns.demo else f"{ns.local_dir} {served}"
            # a build as its outputs name it (its files, or --root-url's
            # address), never its internal address (rules/names.py)
            named = config.names.url if config.names is not None and not ns.demo else site.url
            print(f"linkaudit: {what} {named}", file=sys.stderr)
        if walking is not None:
            walked = _walk(config, level)
            if walked.done:  # nothing left for a crawl
                from linkaudit.localbuild.walk import finish

                finish(config, walked)
                del walked
                return _shown(config, ns)
            try:  # the far links left: the crawl checks them
                settings, config = _crawl_config(ns, time.monotonic() - started)
            except ConfigError as exc:  # (the walk's settings were the same)
                print(f"linkaudit: error: {exc}", file=sys.stderr)
                return EXIT_USAGE
        crawler = _crawl(settings, config, walked)
    from linkaudit.audit import audit_of

    audit = audit_of(crawler)
    state = audit.state if audit is not None else None
    if state is not None and state.note:  # a shared audit: no report from this worker
        from linkaudit.output.formats.common import shown

        # the note names what Redis holds (the winner, the report's path): shown
        # as every value from elsewhere is, escapes and bidi controls visible
        print(f"linkaudit: {shown(state.note)}", file=sys.stderr)
        try:
            return exit_code(state.verdict, ns.fail_on) if state.verdict else EXIT_INCOMPLETE
        except (KeyError, TypeError, AttributeError):  # a verdict altered in Redis
            print("linkaudit: the verdict in Redis is not one linkaudit wrote", file=sys.stderr)
            return EXIT_INCOMPLETE
    # the crawl's memory is freed before the report is read back
    del crawler, audit, state, walked
    gc.collect()
    return _shown(config, ns)


def _shown(config: Config, ns: argparse.Namespace) -> int:
    from linkaudit.command.views import view_options
    from linkaudit.output.show import show_report

    return show_report(config, ns.format, ns.fail_on, view_options(ns), quiet=ns.quiet)


if __name__ == "__main__":
    sys.exit(main())
