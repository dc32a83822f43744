"""Spider arguments (``-a name=value``): parsed and validated before the crawl.

Every problem is an :class:`ArgumentError` with one line naming the argument;
the spider turns it into a clean exit before any request is sent.
"""

from __future__ import annotations

import os
import re
import tempfile
from typing import Any

from linkaudit.rules.urls import HTTP_SCHEMES, InvalidURL, canonicalize, scheme_of

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


def check_pagedir(path: str) -> str:
    """The page archive's directory must exist and take files now."""
    path = os.path.abspath(os.path.expanduser(path))
    if not os.path.isdir(path):
        what = "is not a directory" if os.path.exists(path) else "does not exist"
        raise ArgumentError(f"pagedir: {path} {what}")
    try:  # os.access lies for root and on some file systems: try it
        tempfile.TemporaryFile(dir=path).close()
    except OSError:
        raise ArgumentError(f"pagedir: {path} is not writable") from None
    return path


def journal_path_for(report_path: str) -> str:
    """``/x/report.json`` -> ``/x/report.journal.jsonl``."""
    root, ext = os.path.splitext(report_path)
    return (root if ext == ".json" else report_path) + ".journal.jsonl"


def journal_path(settings: Any) -> tuple[str | None, bool]:
    """Where the journal is written (None: it is off) and whether the user
    chose that path (``LINKAUDIT_JOURNAL``, ``-a journal=``, ``--journal``).
    A journal the user did not ask for is removed once the report is safely
    written: it is there to save results when the report cannot be."""
    if not settings.getbool("LINKAUDIT_JOURNAL_ENABLED", True):
        return None, False
    chosen = settings.get("LINKAUDIT_JOURNAL")
    path = chosen or journal_path_for(settings["LINKAUDIT_REPORT"])
    return os.path.abspath(os.path.expanduser(path)), bool(chosen)


def check_journal_path(settings: Any) -> None:
    """The journal must be writable now, as the report must."""
    path, _explicit = journal_path(settings)
    if path is None:
        return
    try:
        check_report_path(path)
    except ArgumentError as exc:
        raise ArgumentError("journal" + str(exc)[len("report") :]) from None


# -- settings --------------------------------------------------------------
# Every numeric setting linkaudit adds or relies on, with its lower bound.
# (name, kind, minimum): kind "int" or "float"; the value may also be None
# where the default is None.
NUMERIC_SETTINGS: tuple[tuple[str, str, float], ...] = (
    ("DOWNLOAD_DELAY", "float", 0),
    ("DOWNLOAD_TIMEOUT", "float", 0.001),
    ("CONCURRENT_REQUESTS", "int", 1),
    ("CONCURRENT_REQUESTS_PER_DOMAIN", "int", 1),
    ("CLOSESPIDER_PAGECOUNT", "int", 0),
    ("CLOSESPIDER_TIMEOUT", "float", 0),
    ("URLLENGTH_LIMIT", "int", 1),
    ("LINKAUDIT_DEPTH", "int", 0),
    ("LINKAUDIT_MAX_CRAWL_DELAY", "float", 0),
    ("LINKAUDIT_ROBOTSTXT_MAXSIZE", "int", 1),
    ("LINKAUDIT_RETRY_AFTER_TIMES", "int", 0),
    ("LINKAUDIT_RETRY_AFTER_MAX", "float", 0),
    ("LINKAUDIT_RETRY_AFTER_DEFAULT", "float", 0),
    ("LINKAUDIT_MAX_PATH_SEGMENTS", "int", 0),
    ("LINKAUDIT_MAX_SEGMENT_REPEAT", "int", 0),
    ("LINKAUDIT_PAGE_MAXSIZE", "int", 1),
    ("LINKAUDIT_PROGRESS_INTERVAL", "float", 0.01),
    ("LINKAUDIT_DB_COMMIT_INTERVAL", "float", 0.01),
    ("LINKAUDIT_RELEASE_BATCH", "int", 0),
    ("LINKAUDIT_RECHECK_AFTER", "float", 0),
    ("LINKAUDIT_RECHECK_GOOD_AFTER", "float", 0),
    ("LINKAUDIT_FOLLOW_GHOST", "float", 0),
    ("LINKAUDIT_REPORT_AFTER", "float", 0),
)
BOOL_SETTINGS = (
    "ROBOTSTXT_OBEY",
    "DOWNLOAD_VERIFY_CERTIFICATES",
    "LINKAUDIT_EXCLUDE_USERINFO",
    "LINKAUDIT_EXCLUDE_DOUBLE_SLASH",
    "LINKAUDIT_HOST_FAILURE_CACHE",
    "LINKAUDIT_JOURNAL_ENABLED",
    "LINKAUDIT_PROGRESS",
    "LINKAUDIT_HEAD_FIRST",
)
STATUS_LIST_SETTINGS = ("LINKAUDIT_ACCEPT_STATUS", "LINKAUDIT_RETRY_AFTER_CODES")
# Settings that name components: a typo would be a traceback when Scrapy
# builds the engine, so each path is loaded here first.
COMPONENT_DICT_SETTINGS = (
    "DOWNLOADER_MIDDLEWARES",
    "SPIDER_MIDDLEWARES",
    "ITEM_PIPELINES",
    "EXTENSIONS",
)
# ... and those whose values are the paths (keys are schemes and formats)
COMPONENT_VALUE_SETTINGS = ("DOWNLOAD_HANDLERS", "FEED_EXPORTERS")
COMPONENT_SETTINGS = ("TWISTED_DNS_RESOLVER", "LOG_FORMATTER", "LINKAUDIT_STATE")


def _loadable(name: str, path: object) -> None:
    from scrapy.utils.misc import load_object  # Scrapy only when settings are checked

    if path is None or not isinstance(path, str):
        return  # None switches a component off; a class object is loaded already
    try:
        load_object(path)
    except (ImportError, NameError, ValueError, AttributeError) as exc:
        raise ArgumentError(f"{name}: cannot load {path!r} ({exc})") from None


def _number(name: str, value: object, kind: str, minimum: float) -> None:
    if value is None or value == "":
        return
    try:
        number = int(value) if kind == "int" else float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        word = "a whole number" if kind == "int" else "a number"
        raise ArgumentError(f"{name}: {value!r} is not {word}") from None
    if number != number or number < minimum:  # NaN too
        if number < 0:
            raise ArgumentError(f"{name}: {value!r} is negative")
        raise ArgumentError(f"{name}: {value!r} is too small (at least {minimum:g})")


def validate_settings(settings: Any) -> None:
    """Check linkaudit's settings (and the Scrapy ones it relies on) before
    the crawl: a typo in ``-s`` must not surface as a traceback mid-crawl."""
    for name, kind, minimum in NUMERIC_SETTINGS:
        _number(name, settings.get(name), kind, minimum)
    for name in BOOL_SETTINGS:
        try:
            settings.getbool(name)
        except ValueError:
            raise ArgumentError(f"{name}: {settings.get(name)!r} is not true or false") from None
    for name in STATUS_LIST_SETTINGS:
        for value in settings.getlist(name):
            try:
                status = int(value)
            except (TypeError, ValueError):
                raise ArgumentError(f"{name}: {value!r} is not an HTTP status") from None
            if not 100 <= status <= 999:
                raise ArgumentError(f"{name}: {status} is not an HTTP status (100-999)")
    for name in COMPONENT_DICT_SETTINGS + COMPONENT_VALUE_SETTINGS:
        try:
            components = settings.getdict(name)
        except ValueError:
            raise ArgumentError(f"{name}: {settings.get(name)!r} is not a JSON object") from None
        for key, value in components.items():
            if value is not None:
                _loadable(name, value if name in COMPONENT_VALUE_SETTINGS else key)
    for name in COMPONENT_SETTINGS:
        _loadable(name, settings.get(name))
    for pattern in settings.getlist("LINKAUDIT_EXCLUDE"):
        try:
            re.compile(pattern)
        except re.error as exc:
            raise ArgumentError(
                f"LINKAUDIT_EXCLUDE: {pattern!r} is not a regular expression ({exc})"
            ) from None
    contact = settings.get("LINKAUDIT_CONTACT")
    if contact:
        try:
            parse_contact(contact)
        except ArgumentError as exc:
            raise ArgumentError(f"LINKAUDIT_CONTACT: {str(exc).split(': ', 1)[1]}") from None
