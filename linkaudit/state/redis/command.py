"""The command line of shared audits: checking Redis before the crawl, and
``linkaudit report --redis URL --audit NAME --report PATH``, which builds a
shared audit's report from Redis at any time, on any machine."""

from __future__ import annotations

import argparse
import sys
from typing import NoReturn

from scrapy.settings import Settings

from linkaudit.config import Config, ConfigError
from linkaudit.output.exitstatus import EXIT_USAGE, exit_code
from linkaudit.output.formats import FORMATS
from linkaudit.output.report import write_json_atomic
from linkaudit.state.redis.connection import RedisUnavailable, connect
from linkaudit.state.redis.rebuild import shared_report
from linkaudit.state.redis.state import RedisState


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def check_shared(config: Config, settings: Settings) -> None:
    """Before the crawl: Redis answers, and the audit of that name (if any)
    audits this site (--restart drops it when the crawl starts)."""
    try:
        client = connect(config["LINKAUDIT_REDIS"], settings.getdict("REDIS_PARAMS"))
    except RedisUnavailable as exc:
        raise ConfigError(f"{config.label('LINKAUDIT_REDIS')}: {exc}") from None
    try:
        if not config["LINKAUDIT_REDIS_RESTART"]:
            state = RedisState(client, config["LINKAUDIT_AUDIT"], lease=30.0, batch=1)
            state.check_joinable(config.start_urls, config.near_prefixes)
    finally:
        client.close()


def report_main(argv: list[str]) -> int:
    """``linkaudit report``: a shared audit's report, from Redis."""
    p = _Parser(
        prog="linkaudit report",
        description="Build the report of a shared audit (--redis) from Redis: at any "
        "time, on any machine.",
    )
    p.add_argument("--redis", metavar="URL", required=True, help="the audit's Redis")
    p.add_argument("--audit", metavar="NAME", required=True, help="the audit's name")
    p.add_argument("--report", default="linkaudit-report.json", help="where it is written")
    p.add_argument("--format", choices=sorted(FORMATS), default="text", help="printed on stdout")
    p.add_argument(
        "--fail-on", choices=("broken", "new", "none"), default="broken", help="as for an audit"
    )
    ns = p.parse_args(argv)
    try:
        Config.build(
            Settings(), {"redis": ns.redis, "audit": ns.audit, "report": ns.report}, None, False
        )
        report = shared_report(ns.redis, ns.audit)
        write_json_atomic(ns.report, report)
    except (ConfigError, RedisUnavailable) as exc:
        print(f"linkaudit report: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except OSError as exc:
        print(f"linkaudit report: error: {ns.report}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_USAGE
    print(FORMATS[ns.format](report))
    print(f"linkaudit: report written to {ns.report}", file=sys.stderr)
    return exit_code(report, ns.fail_on)
