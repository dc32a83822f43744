"""Reading a report file back: whole, or lean (only the entries a summary,
the formats other than JSON, JUnit and HTML, and the exit code look at);
and a report read back made of the types a fresh audit writes
(:func:`conform`), since the file may have been edited by anyone."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from linkaudit.items import Method, Outcome
from linkaudit.output.report.records import Report


def needed_in_summary(entry: Mapping[str, Any]) -> bool:
    """An entry the summary, the formats other than JSON and JUnit, and the
    exit code look at (a build's orphan page is a finding of its own)."""
    return (
        entry["outcome"] != Outcome.OK
        or bool(entry.get("warning"))
        or bool(entry.get("orphan"))
        or bool(entry.get("new"))
        or bool(entry.get("missing_fragments"))
        or bool(entry.get("links_dropped"))
        or bool(entry.get("app_shell"))
    )


def read_report(path: str, lean: bool = False) -> Report:
    """A report file; ``lean``: only the entries :func:`needed_in_summary`
    (a report this module wrote has one entry per line, so the others are
    never decoded: reading a 150 MB report takes a few MB)."""
    with open(path, encoding="utf-8") as fh:
        if not lean:
            return json.load(fh)
        head: list[str] = []
        urls: list[dict[str, Any]] = []
        in_urls = False  # the head may hold lists of objects too (redirect_fixes)
        for line in fh:
            if in_urls and line.startswith("  {"):
                entry = json.loads(line.rstrip().rstrip(","))
                if needed_in_summary(entry):
                    urls.append(entry)
            else:
                in_urls = in_urls or line.startswith(' "urls": [')
                head.append(line)
    if not in_urls:  # not laid out as this module writes it (jq ., json.dump): whole
        return _lean(read_report(path))
    try:
        report = json.loads("".join(head))
    except ValueError:  # not laid out as this module writes it
        return _lean(read_report(path))
    report["urls"] = urls
    return report


def _lean(report: Any) -> Any:
    """A report read whole, its entries filtered as the lean reader does."""
    if isinstance(report, dict) and isinstance(report.get("urls"), list):
        report["urls"] = [u for u in report["urls"] if isinstance(u, dict) and needed_in_summary(u)]
    return report


# -- a report read back, of the types a fresh audit writes ----------------------
# What a fresh audit writes under each key (docs/report.schema.json), by
# JSON type: "count" an integer >= 0, "int" an integer, "num" a number,
# "time" an ISO 8601 timestamp, "none" null; a key a report holds in two
# places with two types (an entry's "new" is a flag, a history record's a
# count) allows both.  Keys not named here (a wall's name) are free.
_COUNT_KEYS = (
    "added_count app_shells audits_broken audits_with_broken_links backoffs blocked bytes "
    "depth dialogs_dismissed excluded get head hops images internal_errors links "
    "links_dropped ok pages pauses redirect referrer_count refused removed_count "
    "render_failures render_requests rendered_pages renders_remembered requests retries "
    "unchecked urls_dropped windows_closed version"
)
_KINDS: dict[str, tuple[str, ...]] = {key: ("count",) for key in _COUNT_KEYS.split()}
_KINDS.update(
    {
        key: ("str",)
        for key in "app_shell baseline block file final_outcome finish_reason "
        "fragment from host kind reason target to url via wall warning why".split()
    }
)
_KINDS.update({key: ("str", "none") for key in ("content_type", "error", "location")})
_KINDS.update(
    {
        key: ("time",)
        for key in "started_at finished_at checked_at broken_since broken_links_since".split()
    }
)
_KINDS.update(
    {key: ("bool",) for key in "complete from_cache loop near settled truncated navigation".split()}
)
_KINDS.update(
    {
        key: ("list",)
        for key in "added blocks get_only_hosts groups history missing "
        "navigations near_prefixes redirect_fixes redirects referrers removed "
        "sitemaps skipped start_urls statuses".split()
    }
)
_KINDS.update({key: ("dict",) for key in "render sitemap suggestion summary walls".split()})
_KINDS["archived"] = ("dict", "none", "count")  # an entry's copy (--archive); the summary's count
_KINDS.update(
    {
        "status": ("int", "none"),
        "final_status": ("int", "none"),
        "line": ("none", "int"),  # a line that is no number: none ("no line"), never 0
        "last_modified": ("time", "none"),
        "score": ("num",),
        "seconds": ("num",),
        "method": ("str", "none"),
        "outcome": ("str",),
        "page": ("dict", "str"),
        "rendered": ("list", "bool"),
        "new": ("bool", "count"),
        "not_modified": ("bool", "count"),
        "soft_404": ("bool", "count"),
        "broken": ("count", "list"),
        "fixed": ("list", "count"),
        "urls": ("list", "count"),
        "missing_fragments": ("list", "count"),
        # the sitemap's orphans (URLs), a build's and its summary's (a count)
        "orphans": ("list", "count"),
    }
)
_NEUTRAL: dict[str, Any] = {
    "count": 0,
    "int": 0,
    "num": 0,
    "str": "",
    "time": "",
    "none": None,
    "bool": False,
    "list": [],
    "dict": {},
}
# values a fresh audit writes from a closed set
_CLOSED = {
    "outcome": frozenset(Outcome),
    "method": frozenset({*Method, None}),
}
_TIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[+-]\d{2}:\d{2}|Z)")
_MAX = 2**53  # every number linkaudit writes: what a float holds exactly


def _is(value: Any, kind: str) -> bool:
    if kind == "count" or kind == "int":
        low = 0 if kind == "count" else -_MAX
        return type(value) is int and low <= value <= _MAX
    if kind == "str":
        return isinstance(value, str)
    if kind == "time":
        return isinstance(value, str) and _TIME.fullmatch(value) is not None
    if kind == "none":
        return value is None
    if kind == "bool":
        return isinstance(value, bool)
    if kind == "num":
        return type(value) in (int, float) and value == value and abs(value) <= _MAX
    return isinstance(value, list if kind == "list" else dict)


def _check(kinds: tuple[str, ...]) -> Any:
    """One test for a key's kinds (the common ones without a call per kind:
    a report of 150,000 entries is read in a second)."""
    if kinds == ("str",):
        return lambda v: type(v) is str
    if kinds == ("str", "none"):
        return lambda v: v is None or type(v) is str
    if kinds == ("bool",):
        return lambda v: v is True or v is False
    if kinds == ("count",):
        return lambda v: type(v) is int and 0 <= v <= _MAX
    if kinds == ("list",):
        return lambda v: type(v) is list
    return lambda v: any(_is(v, kind) for kind in kinds)


_CHECKS = {key: _check(kinds) for key, kinds in _KINDS.items()}
_WALL_COUNT = _check(("count",))


def conform(report: Report) -> list[str]:
    """Make ``report`` (read back from a file anyone may have edited) of the
    types a fresh audit writes, in place: a value of another type (a count
    that is not a number, a time that is not a timestamp, an outcome that is
    none) becomes its type's nothing (0, "", null, false, [], {}), an entry
    without its URL or outcome is left out.  The formats escape every
    string as they do a fresh audit's; this leaves them no number that is
    text.  Returns where the values were (``summary.pages``,
    ``urls[3].status``), in order, for a warning."""
    altered: list[str] = []
    _conform_dict(report, "", altered)
    urls = report.get("urls")
    if isinstance(urls, list):
        kept = []
        for i, entry in enumerate(urls):
            if (
                isinstance(entry, dict)
                and isinstance(entry.get("url"), str)
                and (entry.get("outcome") in _CLOSED["outcome"])
            ):
                kept.append(entry)
            else:
                altered.append(f"urls[{i}]")
        report["urls"] = kept
    return altered


def _conform_dict(data: dict[str, Any], path: str, altered: list[str]) -> None:
    walls = path.endswith("walls")  # a wall's name: its count
    for key, value in data.items():
        check = _WALL_COUNT if walls else _CHECKS.get(key)
        if check is not None and not check(value):
            data[key] = value = _nothing("count" if walls else _kind(key, path))
            altered.append(f"{path}.{key}" if path else key)
        elif key in _CLOSED and value not in _CLOSED[key] and path != "summary":
            data[key] = value = _nothing(_KINDS[key][0])
            altered.append(f"{path}.{key}" if path else key)
        if type(value) is dict:
            _conform_dict(value, f"{path}.{key}" if path else key, altered)
        elif type(value) is list and value:
            _conform_list(value, f"{path}.{key}" if path else key, key, altered)


_COUNTED = re.compile(r"(?:^|\.)summary$|(?:^|\.)history\[\d+\]$")


def _kind(key: str, path: str) -> str:
    """The kind a fresh audit writes under ``key`` at ``path``: a summary's
    and a history record's ``urls``, ``broken``, ``new``... are counts, and
    a sitemap's ``urls``."""
    kinds = _KINDS[key]
    counted = _COUNTED.search(path) or (key == "urls" and path.endswith("sitemap"))
    return "count" if "count" in kinds and counted else kinds[0]


def _nothing(kind: str) -> Any:
    """A kind's nothing, a new list or dict each time."""
    value = _NEUTRAL[kind]
    return type(value)() if isinstance(value, list | dict) else value


def _conform_list(items: list[Any], path: str, key: str, altered: list[str]) -> None:
    for i, item in enumerate(items):
        where = f"{path}[{i}]"
        if isinstance(item, dict):
            _conform_dict(item, where, altered)
        elif isinstance(item, list):
            _conform_list(item, where, key, altered)
        elif key == "statuses" and not _is(item, "count"):
            items[i] = 0
            altered.append(where)
