"""``linkaudit report --redis URL --audit NAME --report PATH``: a shared
audit's report, built from Redis at any time (finished or not) and
anywhere: the report is a function of the shared state."""

from __future__ import annotations

import sys
from dataclasses import replace

from scrapy.settings import Settings

from linkaudit.command.usage import SubcommandParser
from linkaudit.command.views import add_view_options, view_options
from linkaudit.config import Config, ConfigError
from linkaudit.localbuild.directory import local_files
from linkaudit.output.exitstatus import EXIT_USAGE, exit_code
from linkaudit.output.formats import FORMATS
from linkaudit.output.report.atomic import write_json_atomic
from linkaudit.output.report.build import build_report
from linkaudit.output.report.facts import now_iso, report_facts
from linkaudit.output.report.records import Report
from linkaudit.rules.userinfo import masked_service
from linkaudit.state.base import Totals
from linkaudit.state.redis.connection import RedisUnavailable, connect
from linkaudit.state.redis.state import RedisState


def report_main(argv: list[str]) -> int:
    """``linkaudit report``: a shared audit's report, from Redis."""
    p = SubcommandParser(
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
    add_view_options(p)
    ns = p.parse_args(argv)
    # the audit's configuration: its switches are the defaults (the workers'
    # are not in Redis), but probe answers are read whenever a worker sent some
    arguments = {"redis": ns.redis, "audit": ns.audit, "report": ns.report}
    try:
        config = Config.build(Settings(), {**arguments, "soft_404_probes": True}, None, False)
        report = shared_report(config)
        write_json_atomic(ns.report, report)
    except (ConfigError, RedisUnavailable) as exc:
        print(f"linkaudit report: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except OSError as exc:
        print(f"linkaudit report: error: {ns.report}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_USAGE
    print(FORMATS[ns.format](report, view_options(ns)))
    print(f"linkaudit: report written to {ns.report}", file=sys.stderr)
    return exit_code(report, ns.fail_on)


def shared_report(config: Config) -> Report:
    """The report of the shared audit ``config`` names (LINKAUDIT_REDIS,
    LINKAUDIT_AUDIT): its scope and run as Redis has them, its findings
    switches from ``config``."""
    url, audit = config["LINKAUDIT_REDIS"], config["LINKAUDIT_AUDIT"]
    client = connect(url)
    state = RedisState(client, audit, lease=30.0, batch=1)
    try:
        starts, nears, status, reason, depth = state.meta(
            "start", "near", "status", "reason", "depth"
        )
        if starts is None:
            raise RedisUnavailable(f"no audit {audit!r} in the Redis at {masked_service(url)}")
        pages, requests, started_at = state.totals(Totals(0, 0, now_iso()))
        backoffs, pauses = state.backoff_totals() or (0, 0)
        facts = report_facts(
            config,
            started_at=started_at,
            # an audit still running reports what is known so far
            finish_reason=(reason or status) if status in ("finished", "stopping") else "running",
            pages=pages,
            requests=requests,
            backoffs=backoffs,
            pauses=pauses,
            retries=state.retries(0),
            files=local_files(config),
        )
        scope = replace(
            facts,
            start_urls=starts.split("\n"),
            near_prefixes=(nears or starts).split("\n"),
            max_depth=int(depth) if depth else None,
        )
        return build_report(state, scope)
    finally:
        client.close()
