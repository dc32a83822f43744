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
import contextlib
import gc
import logging
import os
import sys
import textwrap
from typing import Any, NoReturn

from scrapy import signals
from scrapy.crawler import CrawlerProcess
from scrapy.settings import Settings

from linkaudit import __version__
from linkaudit.config import OPTIONS, Config, ConfigError
from linkaudit.demo import DemoSite
from linkaudit.output.exitstatus import EXIT_INCOMPLETE, EXIT_USAGE, exit_code
from linkaudit.output.formats import FORMATS
from linkaudit.output.show import show_report

FAIL_ON = ("broken", "new", "none")


class _HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Defaults shown where there is one; file names never hyphen-broken."""

    def _get_help_string(self, action: argparse.Action) -> str:
        if (
            action.default is None
            or action.default is argparse.SUPPRESS
            or action.default in ([], 0, False)
        ):
            return action.help or ""
        return super()._get_help_string(action) or ""

    def _split_lines(self, text: str, width: int) -> list[str]:
        return textwrap.wrap(" ".join(text.split()), width, break_on_hyphens=False)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        # one line, as for every other bad input; --help shows the usage
        self.exit(EXIT_USAGE, f"linkaudit: error: {message}\n")


def _setting(text: str) -> tuple[str, str]:
    name, sep, value = text.partition("=")
    if not sep or not name:
        raise argparse.ArgumentTypeError(f"{text!r} is not NAME=VALUE")
    return name, value


# options naming a file or folder: (flag, metavar, help)
_FILE_OPTIONS = (
    ("--jsonl", "PATH", "also export every checked URL as JSON lines (a Scrapy feed)"),
    ("--journal", "PATH", "journal of results; default: beside the report"),
    (
        "--redis",
        "URL",
        "one audit over many workers: the Redis (redis://HOST:PORT/DB) that holds it; "
        "start the same command on every worker",
    ),
    ("--audit", "NAME", "with --redis: the audit's name (the first worker creates it)"),
    (
        "--pagedir",
        "DIR",
        "save every site page fetched in DIR as files 0, 1, 2... "
        "(URL, depth, then the HTML); DIR must exist",
    ),
    (
        "--db",
        "PATH",
        "audit database (SQLite): resume an interrupted audit, recheck incrementally, "
        "compare with the previous audit; created if missing",
    ),
    (
        "--baseline",
        "REPORT",
        "an earlier report: mark new broken links and list fixed ones "
        "(default with --db: the previous finished audit)",
    ),
)


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="linkaudit",
        description="Audit the links of a website: every broken link, with the pages "
        "and lines that carry it.",
        epilog="Exit codes: 0 nothing broken, 1 something broken, 2 usage or configuration "
        "error, 3 incomplete audit with nothing broken found, 4 internal error (a bug in "
        "linkaudit: please report it with the log).",
        formatter_class=_HelpFormatter,
    )
    p.add_argument(
        "urls", nargs="*", metavar="URL", help="start URL(s); the site is what starts with them"
    )
    p.add_argument(
        "--demo",
        action="store_true",
        help="serve a small bundled example site on 127.0.0.1 and audit it (offline)",
    )
    p.add_argument(
        "--report", default="linkaudit-report.json", help="where the JSON report is written"
    )
    p.add_argument(
        "--near",
        metavar="PREFIX",
        action="append",
        help="what counts as in the site (repeatable); default: the start URLs",
    )
    p.add_argument("--depth", help="link hops from the start URLs; default: no limit")
    p.add_argument(
        "--delay", help="seconds between requests to one host; default: 1.0 (0.1 with --demo)"
    )
    p.add_argument(
        "--max-requests",
        help="stop after this many responses (CLOSESPIDER_PAGECOUNT); default: no limit",
    )
    p.add_argument(
        "--max-time", help="stop after this many seconds (CLOSESPIDER_TIMEOUT); default: no limit"
    )
    p.add_argument("--contact", metavar="EMAIL", help="sent as the From header")
    p.add_argument(
        "--exclude",
        metavar="REGEX",
        action="append",
        help="URLs matching it are reported excluded, never requested (repeatable)",
    )
    p.add_argument(
        "--include",
        metavar="REGEX",
        action="append",
        help="check only URLs matching it (repeatable); it wins over --exclude",
    )
    p.add_argument("--skip-far", action="store_true", help="report links outside the site excluded")
    p.add_argument("--accept", metavar="STATUSES", help="statuses counted ok, e.g. 403,429")
    for flag, metavar, text in _FILE_OPTIONS:
        p.add_argument(flag, metavar=metavar, help=text)
    p.add_argument(
        "--restart",
        action="store_true",
        help="with --redis: drop what Redis holds of the audit NAME and start it again",
    )
    p.add_argument(
        "--fail-on",
        choices=FAIL_ON,
        default="broken",
        help="exit 1 when anything is broken, only for new breakage since the baseline, or never",
    )
    p.add_argument(
        "--format",
        choices=sorted(FORMATS),
        default="text",
        help="what is printed on stdout at the end",
    )
    p.add_argument(
        "-s",
        "--set",
        dest="settings",
        metavar="NAME=VALUE",
        type=_setting,
        action="append",
        default=[],
        help="any Scrapy or linkaudit setting (repeatable)",
    )
    noise = p.add_mutually_exclusive_group()
    noise.add_argument(
        "-q", "--quiet", action="store_true", help="errors only on stderr, no progress line"
    )
    noise.add_argument(
        "-v",
        "--verbose",
        action="count",
        default=0,
        help="log each response (-vv: the reasoning too)",
    )
    p.add_argument("--version", action="version", version=f"linkaudit {__version__}")
    return p


def _settings(ns: argparse.Namespace) -> Settings:
    settings = Settings()
    settings.setmodule("linkaudit.settings", priority="project")
    level = "ERROR" if ns.quiet else ("WARNING", "INFO", "DEBUG")[min(ns.verbose, 2)]
    chosen: dict[str, Any] = {
        "LOG_LEVEL": level,
        "DOWNLOAD_DELAY": ns.delay if ns.delay is not None else ("0.1" if ns.demo else "1.0"),
        # a status line only where a person watches
        "LINKAUDIT_PROGRESS": sys.stdout.isatty() and not ns.quiet,
    }
    if ns.max_requests is not None:
        chosen["CLOSESPIDER_PAGECOUNT"] = ns.max_requests
    if ns.max_time is not None:
        chosen["CLOSESPIDER_TIMEOUT"] = ns.max_time
    if ns.jsonl:
        chosen["FEEDS"] = {os.path.abspath(ns.jsonl): {"format": "jsonlines", "overwrite": True}}
    settings.setdict(chosen, priority="cmdline")
    for name, value in ns.settings:  # -s wins over the options, as in Scrapy
        try:
            settings.set(name, value, priority="cmdline")
        except ValueError:  # a dict setting parses its JSON here
            raise ConfigError(f"{name}: {value!r} is not a JSON object") from None
    return settings


def _arguments(ns: argparse.Namespace) -> dict[str, Any]:
    """The options that are spider arguments (errors name them so)."""
    arguments: dict[str, Any] = {"start": " ".join(ns.urls), "report": os.path.abspath(ns.report)}
    for name in ("depth", "contact", "pagedir", "db", "baseline", "journal", "redis", "audit"):
        value = getattr(ns, name)
        if value is not None:
            arguments[name] = value
    if ns.near:
        arguments["near"] = ",".join(ns.near)
    if ns.restart:
        arguments["restart"] = "true"
    if ns.skip_far:
        arguments["skip_far"] = "true"
    for name in ("exclude", "include"):  # lists: a regex may hold a comma
        if getattr(ns, name):
            arguments[name] = getattr(ns, name)
    if ns.accept is not None:
        arguments["accept"] = ns.accept
    return arguments


def _names(ns: argparse.Namespace) -> dict[str, str]:
    """Settings the user set with an option (not overridden by -s): errors
    name the option."""
    overridden = {name for name, _ in ns.settings}
    return {
        option.setting: option.flag
        for option in OPTIONS
        if option.flag
        and getattr(ns, option.flag[2:].replace("-", "_"), None) is not None
        and option.setting not in overridden
    }


def _crawl(settings: Settings, config: Config) -> Any:
    from linkaudit.spiders.linkaudit import LinkAuditSpider  # imports the reactor

    process = CrawlerProcess(settings)
    crawler = process.create_crawler(LinkAuditSpider)
    # Scrapy leaves the root logger at DEBUG and filters in its handler, so
    # every debug line is still built; this process logs nothing below
    # LOG_LEVEL.  (Scrapy installs its handler when the crawl starts.)
    level = settings.get("LOG_LEVEL")
    crawler.signals.connect(
        lambda: logging.getLogger().setLevel(level), signal=signals.engine_started, weak=False
    )
    process.crawl(crawler, _config=config)  # checked already: the spider takes it
    process.start()
    return crawler


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["report"]:
        from linkaudit.state.redis.command import report_main

        return report_main(argv[1:])
    parser = build_parser()
    ns = parser.parse_args(argv)
    if ns.demo and ns.urls:
        parser.error("--demo audits the bundled site: give no URL with it")
    if not ns.demo and not ns.urls:
        parser.error("the following arguments are required: URL")
    with DemoSite() if ns.demo else contextlib.nullcontext() as demo:
        if demo is not None:
            ns.urls = [demo.url]
            print(f"linkaudit: demo site at {demo.url}", file=sys.stderr)
        try:
            settings = _settings(ns)
            config = Config.build(settings, _arguments(ns), _names(ns))
            if config["LINKAUDIT_REDIS"]:
                from linkaudit.state.redis.command import check_shared

                check_shared(config, settings)
        except ConfigError as exc:
            print(f"linkaudit: error: {exc}", file=sys.stderr)
            return EXIT_USAGE
        crawler = _crawl(settings, config)
    state = getattr(crawler.spider, "state", None)
    if state is not None and state.note:  # a shared audit: no report from this worker
        print(f"linkaudit: {state.note}", file=sys.stderr)
        return exit_code(state.verdict, ns.fail_on) if state.verdict else EXIT_INCOMPLETE
    # the crawl's memory is freed before the report is read back
    del crawler, state
    gc.collect()
    return show_report(config, ns.format, ns.fail_on)


if __name__ == "__main__":
    sys.exit(main())
