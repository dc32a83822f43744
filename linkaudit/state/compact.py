"""A result in a few bytes, for a state that holds many: the memory state
(the default) and the shared one in Redis.

A result is a JSON array of its common fields by position, then an object
of whatever else differs from the field's default, with one-letter keys:

    [near, outcome, status, method, content_type, checked_at, page, {rest}]

``checked_at`` is epoch seconds (as the spider writes it), ``page`` the
scanned page's statistics as a list, trailing nulls dropped.  An ok page is
about 60 bytes, where the audit database's JSON object is about 110 and a
UrlResult with its strings and page dict about 700 (at 150,000 URLs, 90 MB
of this process or of Redis).
"""

from __future__ import annotations

import json
from datetime import datetime
from string import ascii_letters
from typing import Any

from linkaudit.items import Method, Outcome, PageKey, UrlResult
from linkaudit.rules.recheck import iso
from linkaudit.state.database import STORED_FIELDS

# by position, then the rest by one-letter keys
_POSITIONAL = ("near", "outcome", "status", "method", "content_type", "checked_at", "page")
_PAGE: tuple[PageKey, ...] = ("bytes", "last_modified", "links", "images")  # page_stats()
_REST = tuple(f for f in STORED_FIELDS if f not in _POSITIONAL + ("url", "depth"))
_SHORT = {name: ascii_letters[i] for i, name in enumerate(_REST)}
_LONG = {short: name for name, short in _SHORT.items()}
_OTHER_PAGE = "_"
_FAILING = "~"  # when the current run of failures began (epoch seconds)
_DEFAULTS = {f: UrlResult.__dataclass_fields__[f].default for f in _REST}


def encode_result(result: UrlResult, failing_since: float | None) -> str:
    """The result's stored form (its URL and depth are stored elsewhere)."""
    checked = result.checked_at
    page = result.page
    head: list[Any] = [
        int(result.near),
        result.outcome,
        result.status,
        result.method,
        result.content_type,
        _epoch(checked),
        [page[k] for k in _PAGE] if page is not None and list(page) == list(_PAGE) else None,
    ]
    rest = {_SHORT[k]: getattr(result, k) for k in _REST if getattr(result, k) != _DEFAULTS[k]}
    if page is not None and head[6] is None:  # not page_stats()'s: kept as it is
        rest[_OTHER_PAGE] = page
    if failing_since is not None:
        rest[_FAILING] = failing_since
    if rest:
        head.append(rest)
    while head and head[-1] is None:
        head.pop()
    return json.dumps(head, ensure_ascii=False, separators=(",", ":"))


def decode_result(url: str, depth: int, text: str) -> tuple[UrlResult, float | None]:
    """A stored result and when its failures began."""
    values = json.loads(text)
    rest = values.pop() if values and isinstance(values[-1], dict) else {}
    fields: dict[str, Any] = dict(zip(_POSITIONAL, values, strict=False))
    fields["near"] = bool(fields["near"])
    # the stored words read back as their types (equal to them either way)
    fields["outcome"] = Outcome(fields["outcome"])
    if fields.get("method") is not None:
        fields["method"] = Method(fields["method"])
    if isinstance(fields.get("checked_at"), int):
        fields["checked_at"] = iso(fields["checked_at"])
    if isinstance(fields.get("page"), list):
        fields["page"] = dict(zip(_PAGE, fields["page"], strict=True))
    failing = rest.pop(_FAILING, None)
    if _OTHER_PAGE in rest:
        fields["page"] = rest.pop(_OTHER_PAGE)
    fields.update((_LONG[k], v) for k, v in rest.items())
    return UrlResult(url=url, depth=depth, **fields), failing


def _epoch(checked: str | None) -> int | str | None:
    """``checked_at`` as epoch seconds when that gives it back exactly."""
    try:
        epoch = int(datetime.fromisoformat(checked).timestamp())  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return checked
    return epoch if iso(epoch) == checked else checked
