"""How each kind of setting is read and checked.

A reader takes the settings and the setting's name and returns the value in
its type, or raises ``ValueError`` with words for the user (the caller puts
the name the user typed in front of them).  Values may come typed (a
settings module) or as text (``-s``, ``-a``, the command's options): both
are read the way Scrapy's own getters read them.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Callable
from typing import Any

from linkaudit.rules.urls import HTTP_SCHEMES, InvalidURL, canonicalize, scheme_of

Reader = Callable[[Any, str], Any]
_SPLIT = re.compile(r"[\s,]+")
_EMAIL = re.compile(r"^[^@\s<>]+@[^@\s<>]+\.[^@\s<>]+$")


def number(kind: type, minimum: float, optional: bool = False) -> Reader:
    """A whole number or a number, at least ``minimum`` (None allowed when
    ``optional``: "no limit")."""

    def read(settings: Any, name: str) -> Any:
        value = settings.get(name)
        if value is None or value == "":
            if optional:
                return None
            raise ValueError("is missing")
        try:
            parsed = kind(value)
        except (TypeError, ValueError):
            word = "a whole number" if kind is int else "a number"
            raise ValueError(f"{value!r} is not {word}") from None
        if parsed != parsed or parsed < minimum:  # NaN too
            if parsed < 0:
                raise ValueError(f"{value!r} is negative")
            raise ValueError(f"{value!r} is too small (at least {minimum:g})")
        return parsed

    return read


def boolean(settings: Any, name: str) -> bool:
    try:
        return settings.getbool(name)
    except ValueError:
        raise ValueError(f"{settings.get(name)!r} is not true or false") from None


def text(settings: Any, name: str) -> str:
    value = settings.get(name)
    return "" if value is None else str(value)


def text_list(settings: Any, name: str) -> list[str]:
    return [str(v) for v in settings.getlist(name)]


def statuses(settings: Any, name: str) -> frozenset[int]:
    found = set()
    for value in settings.getlist(name):
        try:
            status = int(value)
        except (TypeError, ValueError):
            raise ValueError(f"{value!r} is not an HTTP status") from None
        if not 100 <= status <= 999:
            raise ValueError(f"{status} is not an HTTP status (100-999)")
        found.add(status)
    return frozenset(found)


def patterns(settings: Any, name: str) -> tuple[re.Pattern[str], ...]:
    compiled = []
    for pattern in settings.getlist(name):
        try:
            compiled.append(re.compile(pattern))
        except re.error as exc:
            raise ValueError(f"{pattern!r} is not a regular expression ({exc})") from None
    return tuple(compiled)


def email(settings: Any, name: str) -> str | None:
    value = (settings.get(name) or "").strip()
    if not value:
        return None
    if not _EMAIL.match(value):
        raise ValueError(f"{value!r} is not an e-mail address")
    return value


def split_list(value: Any) -> list[str]:
    """``"a b,c"`` -> ``["a", "b", "c"]``: whitespace or commas separate."""
    if isinstance(value, (list, tuple)):
        return [str(v) for v in value if str(v).strip()]
    return [v for v in _SPLIT.split(str(value or "").strip()) if v]


def start_urls(settings: Any, name: str) -> tuple[str, ...]:
    raws = split_list(settings.get(name))
    if not raws:
        raise ValueError("give at least one URL, e.g. -a start=https://example.com/")
    urls: list[str] = []
    for raw in raws:
        url = _http_url(raw, "URL")
        if url not in urls:
            urls.append(url)
    return tuple(urls)


def url_prefixes(settings: Any, name: str) -> tuple[str, ...] | None:
    """Near prefixes; None: not given (the start URLs are the site)."""
    value = settings.get(name)
    if value is None or value == "" or value == []:
        return None
    prefixes = tuple(_http_url(raw, "URL prefix") for raw in split_list(value))
    if not prefixes:
        raise ValueError("give at least one URL prefix")
    return prefixes


def url_list(settings: Any, name: str) -> tuple[str, ...]:
    """http(s) URLs (sitemaps), each once."""
    return tuple(dict.fromkeys(_http_url(raw, "URL") for raw in split_list(settings.get(name))))


def optional_url(settings: Any, name: str) -> str | None:
    value = str(settings.get(name) or "").strip()
    return _http_url(value, "URL") if value else None


def _http_url(raw: str, what: str) -> str:
    if scheme_of(raw) not in HTTP_SCHEMES:
        raise ValueError(f"{raw!r} is not an http(s) {what}")
    try:
        return canonicalize(raw)
    except InvalidURL as exc:
        raise ValueError(f"{raw!r} is not a valid {what} ({exc})") from None


def component(settings: Any, name: str) -> Any:
    """A path to a class or function that must load."""
    path = settings.get(name)
    if path is None or not isinstance(path, str):
        return path
    _load(path)
    return path


def components(keys: bool) -> Reader:
    """A dict of components: paths as keys (middlewares, pipelines,
    extensions) or as values (download handlers, exporters)."""

    def read(settings: Any, name: str) -> dict[str, Any]:
        try:
            found = settings.getdict(name)
        except ValueError:
            raise ValueError(f"{settings.get(name)!r} is not a JSON object") from None
        for key, value in found.items():
            if value is not None:
                _load(key if keys else value)
        return found

    return read


def _load(path: Any) -> None:
    from scrapy.utils.misc import load_object  # Scrapy only when this is checked

    if not isinstance(path, str):
        return  # a class object is loaded already
    try:
        load_object(path)
    except (ImportError, NameError, ValueError, AttributeError) as exc:
        raise ValueError(f"cannot load {path!r} ({exc})") from None


# -- files and directories -------------------------------------------------------------
def writable_file(path: str) -> str:
    """A file that can be written now: better to fail before the crawl."""
    path = os.path.abspath(os.path.expanduser(path))
    if os.path.isdir(path):
        raise ValueError(f"{path} is a directory")
    parent = os.path.dirname(path)
    if not os.path.isdir(parent):
        raise ValueError(f"directory {parent} does not exist")
    if not os.access(parent, os.W_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        raise ValueError(f"{path} is not writable")
    return path


def optional_file(settings: Any, name: str) -> str | None:
    """A file to write at the end, checked now (None: not asked for)."""
    value = text(settings, name)
    return writable_file(value) if value else None


def choice(*values: str) -> Reader:
    """One of ``values`` (case-blind)."""

    def read(settings: Any, name: str) -> str:
        value = text(settings, name).lower()
        if value not in values:
            raise ValueError(f"{value!r} is not one of {', '.join(values)}")
        return value

    return read


def report_path(settings: Any, name: str) -> str:
    return writable_file(text(settings, name) or "linkaudit-report.json")


def optional_directory(settings: Any, name: str) -> str | None:
    """A directory that exists and takes files now (None: not given)."""
    value = text(settings, name)
    if not value:
        return None
    path = os.path.abspath(os.path.expanduser(value))
    if not os.path.isdir(path):
        what = "is not a directory" if os.path.exists(path) else "does not exist"
        raise ValueError(f"{path} {what}")
    try:  # os.access lies for root and on some file systems: try it
        tempfile.TemporaryFile(dir=path).close()
    except OSError:
        raise ValueError(f"{path} is not writable") from None
    return path


def local_directory(settings: Any, name: str) -> str | None:
    """A directory that exists, kept as the user named it (reports show
    its files so: ``public/guide/index.html``)."""
    value = text(settings, name)
    if not value:
        return None
    if not os.path.isdir(value):
        what = "is not a directory" if os.path.exists(value) else "does not exist"
        raise ValueError(f"{value} {what}")
    return os.path.normpath(value)


def database_path(settings: Any, name: str) -> str | None:
    """The audit database: a file that can be created or opened."""
    from linkaudit.state.database import DatabaseError, open_database

    value = text(settings, name)
    if not value:
        return None
    path = os.path.abspath(os.path.expanduser(value))
    if os.path.isdir(path):
        raise ValueError(f"{path} is a directory")
    if not os.path.isdir(os.path.dirname(path)):
        raise ValueError(f"directory {os.path.dirname(path)} does not exist")
    try:
        open_database(path).close()
    except DatabaseError as exc:
        raise ValueError(str(exc)) from None
    return path


def baseline_report(settings: Any, name: str) -> tuple[str, frozenset[str]] | None:
    """(path, the URLs it reports broken) of an earlier report."""
    from linkaudit.state.baseline import load_baseline

    value = text(settings, name)
    if not value:
        return None
    return os.path.abspath(value), load_baseline(value)


def journal_path_for(report: str) -> str:
    """``/x/report.json`` -> ``/x/report.journal.jsonl``."""
    root, ext = os.path.splitext(report)
    return (root if ext == ".json" else report) + ".journal.jsonl"


def redis_url(settings: Any, name: str) -> str | None:
    """A Redis URL (redis://, rediss:// or unix://); the connection is
    checked by the state, before the crawl."""
    from linkaudit.state.redis.connection import SCHEMES

    value = text(settings, name)
    if not value:
        return None
    if not value.startswith(SCHEMES):
        raise ValueError(f"{value!r} is not a Redis URL (redis://HOST:PORT/DB, rediss://, unix://)")
    return value


def audit_name(settings: Any, name: str) -> str | None:
    """The name of a shared audit: part of its Redis keys."""
    from linkaudit.state.redis.connection import AUDIT_NAME

    value = text(settings, name)
    if not value:
        return None
    if not AUDIT_NAME.fullmatch(value):
        raise ValueError(f"{value!r}: use letters, digits and . _ : - (at most 200)")
    return value
