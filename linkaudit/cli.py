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
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from linkaudit.command.parser import blame_file, build_parser, spider_arguments
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
    from linkaudit.walk.audit import Walked

__all__ = ["build_parser", "main"]


def _chosen(ns: argparse.Namespace) -> dict[str, Any]:
    """The settings the command's options choose (``-s`` comes on top)."""
    from linkaudit.config import ConfigError
    from linkaudit.config.checks import writable_file
    from linkaudit.config.inputs import check_feed

    level = "ERROR" if ns.quiet else ("WARNING", "INFO", "DEBUG")[min(ns.verbose, 2)]
    chosen: dict[str, Any] = {
        "LOG_LEVEL": level,
        "DOWNLOAD_DELAY": ns.delay if ns.delay is not None else ("0.1" if ns.demo else "1.0"),
        # a status line only where a person watches
        "LINKAUDIT_PROGRESS": sys.stdout.isatty() and not ns.quiet,
        # "--delay 0 is faster" only when the delay is the default, on a live site
        "LINKAUDIT_PACE_HINT": ns.delay is None
        and not ns.demo
        and ns.local_dir is None
        and all(name != "DOWNLOAD_DELAY" for name, _ in ns.settings),
    }
    if ns.local_dir is not None:
        # its files are read for its origin, no socket (linkaudit/network/localbuild.py);
        # one GET a URL: a file that is no page is stopped at its headers, unread
        chosen["LINKAUDIT_LOCAL_READ"] = True
        chosen["LINKAUDIT_HEAD_FIRST"] = False
    if ns.local_dir is not None and not ns.demo:
        from linkaudit.demo.directory import url_bound

        # a bound the build's own size sets (--max-urls, -s, the file win):
        # links that make URLs without end (links to directories) stop there
        chosen["LINKAUDIT_MAX_URLS"] = url_bound(ns.local_dir)
    if ns.local_dir is not None and ns.delay is None:
        # the build's own origin is ours: no delay, more at once (far hosts keep theirs)
        chosen["DOWNLOAD_SLOTS"] = {"127.0.0.1": {"delay": 0, "concurrency": 8}}
    for dest, setting in (
        ("timeout", "DOWNLOAD_TIMEOUT"),
        ("user_agent", "USER_AGENT"),
        ("concurrency", "CONCURRENT_REQUESTS"),
    ):
        if getattr(ns, dest) is not None:
            chosen[setting] = getattr(ns, dest)
    if ns.insecure:
        chosen["DOWNLOAD_VERIFY_CERTIFICATES"] = False
    if ns.max_requests is not None:
        chosen["CLOSESPIDER_PAGECOUNT"] = ns.max_requests
    if ns.max_time is not None:
        chosen["CLOSESPIDER_TIMEOUT"] = ns.max_time
    if ns.jsonl:  # checked as the report is (Scrapy would create a missing directory)
        try:
            jsonl = writable_file(ns.jsonl, regular=False)
            check_feed(jsonl)  # a pipe nobody reads: Scrapy's open would wait for ever
        except ValueError as exc:
            raise ConfigError(f"--jsonl: {exc}") from None
        chosen["FEEDS"] = {jsonl: {"format": "jsonlines", "overwrite": True}}
    return chosen


def _settings(ns: argparse.Namespace) -> Settings:
    from scrapy.settings import Settings

    from linkaudit.config import ConfigError

    settings = Settings()
    settings.setmodule("linkaudit.settings", priority="project")
    settings.setdict(_chosen(ns), priority="cmdline")
    for name, value in ns.settings:  # -s wins over the options, as in Scrapy
        try:
            settings.set(name, value, priority="cmdline")
        except ValueError:  # a dict setting parses its JSON here
            raise ConfigError(f"{name}: {value!r} is not a JSON object") from None
    return settings


def _arguments(ns: argparse.Namespace) -> dict[str, Any]:
    """The options that are spider arguments (errors name them so)."""
    # a list: each URL whole (a comma or a space inside one is not a separator)
    arguments: dict[str, Any] = {"start": list(ns.urls), "report": os.path.abspath(ns.report)}
    arguments.update(spider_arguments(ns))
    return arguments


def _names(ns: argparse.Namespace) -> dict[str, str]:
    """Settings the user set with an option (not overridden by -s): errors
    name the option."""
    from linkaudit.config import OPTIONS

    overridden = {name for name, _ in ns.settings}
    return {
        option.setting: option.flag
        for option in OPTIONS
        if option.flag
        and getattr(ns, option.flag[2:].replace("-", "_"), None) is not None
        and option.setting not in overridden
    }


def _walked(ns: argparse.Namespace) -> tuple[Config, Walked] | None:
    """A build directory walked as files (``linkaudit/walk/``), when the
    audit asks nothing else of the crawl for it; None: the crawl reads it."""
    from linkaudit.config import Config
    from linkaudit.walk.audit import log_to_stderr, plain_settings, walk, walkable_settings, walks

    if (
        ns.local_dir is None
        or ns.demo
        or ns.jsonl
        or not walkable_settings([name for name, _ in ns.settings])
    ):
        return None
    settings = plain_settings(_chosen(ns), ns.settings)
    config = Config.build(settings, _arguments(ns), _names(ns))
    if not walks(config):
        return None
    handler = log_to_stderr(settings.get("LOG_LEVEL"))
    walked = walk(config)
    if not walked.done:  # the crawl goes on, with its own log handler
        logging.getLogger().removeHandler(handler)
    return config, walked


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
    from linkaudit.rules.html.selfcheck import scanner_fault

    if fault := scanner_fault():  # a Python whose re would find no link: not a clean audit
        print(f"linkaudit: error: {fault}", file=sys.stderr)
        return EXIT_USAGE
    if ns.print_config:
        print(render_config(parser, ns), end="")
        return 0
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
            # a build read from its files has an address, and no server
            served = "served at" if site.served else "read as"
            what = "demo site at" if ns.demo else f"{ns.local_dir} {served}"
            if not ns.quiet:  # -q: a clean audit says nothing
                print(f"linkaudit: {what} {site.url}", file=sys.stderr)
        from linkaudit.config import Config, ConfigError

        try:
            started = time.monotonic()
            walked = _walked(ns)
            if walked is not None and walked[1].done:  # nothing left for a crawl
                from linkaudit.walk.audit import finish

                config = walked[0]
                finish(config, walked[1])
                del walked
                return _shown(config, ns)
            settings = _settings(ns)
            if walked is not None and settings.getfloat("CLOSESPIDER_TIMEOUT"):
                # --max-time counts the walk: the crawl of far links has the rest
                left = settings.getfloat("CLOSESPIDER_TIMEOUT") - (time.monotonic() - started)
                settings.set("CLOSESPIDER_TIMEOUT", max(left, 0.001), priority="cmdline")
            config = Config.build(settings, _arguments(ns), _names(ns))
            if config["LINKAUDIT_REDIS"]:
                from linkaudit.command.shared import check_shared

                check_shared(config, settings)
        except ConfigError as exc:
            print(f"linkaudit: error: {blame_file(str(exc), from_file, source)}", file=sys.stderr)
            return EXIT_USAGE
        crawler = _crawl(settings, config, walked[1] if walked else None)
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
