"""Spider arguments (``-a name=value``): parsed and validated before the crawl.

Every problem is an :class:`ArgumentError` with one line naming the argument;
the spider turns it into a clean exit before any request is sent.
"""

from __future__ import annotations

import os
import re

from linkaudit.urls import HTTP_SCHEMES, InvalidURL, canonicalize, scheme_of

_SPLIT = re.compile(r"[\s,]+")
_EMAIL = re.compile(r"^[^@\s<>]+@[^@\s<>]+\.[^@\s<>]+$")


class ArgumentError(ValueError):
    """A bad spider argument or setting; its message is shown as is."""


def split_list(value: str) -> list[str]:
    """``"a b,c"`` -> ``["a", "b", "c"]``: whitespace or commas separate."""
    return [v for v in _SPLIT.split(value.strip()) if v]


def parse_start(value: str | None) -> list[str]:
    if not value or not value.strip():
        raise ArgumentError("start: give at least one URL, e.g. -a start=https://example.com/")
    urls = []
    for raw in split_list(value):
        if scheme_of(raw) not in HTTP_SCHEMES:
            raise ArgumentError(f"start: {raw!r} is not an http(s) URL")
        try:
            url = canonicalize(raw)
        except InvalidURL as exc:
            raise ArgumentError(f"start: {raw!r} is not a valid URL ({exc})") from None
        if url not in urls:
            urls.append(url)
    return urls


def parse_near(value: str) -> list[str]:
    prefixes = []
    for raw in split_list(value):
        if scheme_of(raw) not in HTTP_SCHEMES:
            raise ArgumentError(f"near: {raw!r} is not an http(s) URL prefix")
        try:
            prefixes.append(canonicalize(raw))
        except InvalidURL as exc:
            raise ArgumentError(f"near: {raw!r} is not a valid URL prefix ({exc})") from None
    if not prefixes:
        raise ArgumentError("near: give at least one URL prefix")
    return prefixes


def parse_depth(value: str | int | None) -> int | None:
    if value is None or value == "":
        return None
    try:
        depth = int(value)
    except (TypeError, ValueError):
        raise ArgumentError(f"depth: {value!r} is not a whole number") from None
    if depth < 0:
        raise ArgumentError(f"depth: {depth} is negative")
    return depth


def parse_contact(value: str) -> str:
    value = value.strip()
    if not _EMAIL.match(value):
        raise ArgumentError(f"contact: {value!r} is not an e-mail address")
    return value


def check_report_path(path: str) -> str:
    """The report must be writable now: better to fail before the crawl."""
    path = os.path.abspath(os.path.expanduser(path))
    if os.path.isdir(path):
        raise ArgumentError(f"report: {path} is a directory")
    parent = os.path.dirname(path)
    if not os.path.isdir(parent):
        raise ArgumentError(f"report: directory {parent} does not exist")
    if not os.access(parent, os.W_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        raise ArgumentError(f"report: {path} is not writable")
    return path
