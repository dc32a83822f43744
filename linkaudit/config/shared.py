"""The settings of a shared audit (``--redis URL --audit NAME``): what a
Redis URL and an audit's name look like.  The state that connects
(``linkaudit/state/redis/``) uses the same constants; whether Redis
answers is checked before the crawl (``linkaudit/command/shared.py``)."""

from __future__ import annotations

import re
from typing import Any

from linkaudit.config.urls import masked

SCHEMES = ("redis://", "rediss://", "unix://")
# an audit's name is part of every key: letters, digits and . _ : -
AUDIT_NAME = re.compile(r"[A-Za-z0-9._:-]{1,200}")


def redis_url(settings: Any, name: str) -> str | None:
    """A Redis URL (redis://, rediss:// or unix://); the connection is
    checked by the state, before the crawl."""
    value = _text(settings, name)
    if not value:
        return None
    if not value.startswith(SCHEMES):
        shown = masked(value)
        raise ValueError(f"{shown!r} is not a Redis URL (redis://HOST:PORT/DB, rediss://, unix://)")
    return value


def audit_name(settings: Any, name: str) -> str | None:
    """The name of a shared audit: part of its Redis keys."""
    value = _text(settings, name)
    if not value:
        return None
    if not AUDIT_NAME.fullmatch(value):
        raise ValueError(f"{value!r}: use letters, digits and . _ : - (at most 200)")
    return value


def _text(settings: Any, name: str) -> str:
    value = settings.get(name)  # as checks.text reads it (checks imports this module)
    return "" if value is None else str(value)
