"""Before a shared audit's crawl (``--redis``): Redis answers, and the
audit of that name (if any) audits this site, or the command stops with one
line before anything is requested."""

from __future__ import annotations

from scrapy.settings import Settings

from linkaudit.config import Config, ConfigError
from linkaudit.state.redis.connection import RedisUnavailable, connect
from linkaudit.state.redis.state import RedisState


def check_shared(config: Config, settings: Settings) -> None:
    """Redis answers, and the audit of that name (if any) audits this site
    (--restart drops it when the crawl starts)."""
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
