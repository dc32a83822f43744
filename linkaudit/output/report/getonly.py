"""The report's ``summary.get_only_hosts``: the hosts whose GET answers
contradicted their HEAD answers, so that their URLs were checked with one
GET each (``rules/decisions.py``: ``contradicts``, ``first_phase``), and
what showed it."""

from __future__ import annotations

from typing import Any, cast

from linkaudit.output.report.records import (
    GetOnlyHost,
)
from linkaudit.state.base import AuditState

_FIELDS = (("url", str), ("head", int), ("get", int), ("reason", str))


def get_only_hosts(state: AuditState) -> list[GetOnlyHost]:
    """``[{host, url, head, get, reason}]``, sorted by host; a record's
    field that is not of its type (an altered database or Redis) is left
    out."""
    hosts = []
    for host, record in sorted(state.get_only_hosts().items()):
        item: dict[str, Any] = {"host": host}
        for name, kind in _FIELDS:
            value = record.get(name)
            if type(value) is kind:
                item[name] = value
        hosts.append(cast(GetOnlyHost, item))  # (its fields of their types only)
    return hosts
