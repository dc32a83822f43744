"""``linkaudit report --redis URL --audit NAME --report PATH``: a shared
audit's report, built from Redis at any time (finished or not) and
anywhere: the report is a function of the shared state."""

from __future__ import annotations

from typing import Any

from linkaudit.output.groups import MIN_PAGES
from linkaudit.output.report import build_report, now_iso
from linkaudit.state.base import Totals
from linkaudit.state.redis.connection import RedisUnavailable, connect
from linkaudit.state.redis.state import RedisState


def shared_report(url: str, audit: str) -> dict[str, Any]:
    """The report of the audit ``audit`` in the Redis at ``url``."""
    client = connect(url)
    state = RedisState(client, audit, lease=30.0, batch=1)
    try:
        starts, nears, status, reason, depth = state.meta(
            "start", "near", "status", "reason", "depth"
        )
        if starts is None:
            raise RedisUnavailable(f"no audit {audit!r} in the Redis at {url}")
        pages, requests, started_at = state.totals(Totals(0, 0, now_iso()))
        return build_report(
            state,
            start_urls=starts.split("\n"),
            near_prefixes=(nears or starts).split("\n"),
            started_at=started_at,
            finished_at=now_iso(),
            # an audit still running reports what is known so far
            finish_reason=(reason or status) if status in ("finished", "stopping") else "running",
            pages=pages,
            requests=requests,
            max_depth=int(depth) if depth else None,
            sitemaps=True,  # the section is there when a sitemap was read
            templates=MIN_PAGES,
            # the default mode and similarity; probe answers read if there are any
            soft_404=("warn", 0.9, True),
        )
    finally:
        client.close()
