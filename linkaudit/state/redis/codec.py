"""How the shared state writes a result and a pending URL in Redis.

A result is stored as the audit database stores it (every field but the
ones kept elsewhere, left out where it equals its default, so that it loads
back exactly: ``state.database.dump_result``), with one-letter keys: at
100,000 URLs that is the difference between 200 and 300 bytes a URL.
"""

from __future__ import annotations

import json
from string import ascii_letters
from typing import Any

from linkaudit.items import UrlResult
from linkaudit.state.base import Pending
from linkaudit.state.database import STORED_FIELDS, dump_result

_SHORT = {name: ascii_letters[i] for i, name in enumerate(STORED_FIELDS)}
_LONG = {short: name for name, short in _SHORT.items()}
_FAILING = "~"  # when the current run of failures began (epoch seconds)


def encode_result(result: UrlResult, failing_since: float | None) -> str:
    """``o<depth>|{...}`` for an ok result, ``x<depth>|{...}`` otherwise."""
    data = json.loads(dump_result(result))
    data.pop("url")
    depth = data.pop("depth")
    short: dict[str, Any] = {_SHORT[k]: v for k, v in data.items()}
    if failing_since is not None:
        short[_FAILING] = failing_since
    kind = "o" if result.outcome == "ok" else "x"
    return f"{kind}{depth}|{json.dumps(short, ensure_ascii=False, separators=(',', ':'))}"


def decode_value(url: str, value: str) -> tuple[int, UrlResult | None, float | None]:
    """A URL's stored state: its depth, its result (None: not checked) and
    when its failures began."""
    head, _, body = value.partition("|")
    depth = int(head[1:])
    if head[0] not in "ox":
        return depth, None, None
    data = json.loads(body)
    failing = data.pop(_FAILING, None)
    fields = {_LONG[k]: v for k, v in data.items()}
    return depth, UrlResult(url=url, depth=depth, **fields), failing


def decode_pending(record: str) -> Pending:
    data = json.loads(record)
    return Pending(data["u"], int(data["d"]), data.get("r"), data.get("p"))
