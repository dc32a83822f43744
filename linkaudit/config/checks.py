"""How each kind of setting is read and checked.

A reader takes the settings and the setting's name and returns the value in
its type, or raises ``ValueError`` with words for the user (the caller puts
the name the user typed in front of them).  Values may come typed (a
settings module) or as text (``-s``, ``-a``, the command's options): both
are read the way Scrapy's own getters read them.
"""

from __future__ import annotations

import importlib
import inspect
import os
import re
import sys
import tempfile
from collections.abc import Callable
from typing import Any

# the readers of numbers and URLs live beside: the table reads them here (c.number)
from linkaudit.config.baseline import load_baseline
from linkaudit.config.numbers import COUNT as COUNT
from linkaudit.config.numbers import DAY as DAY
from linkaudit.config.numbers import HOUR as HOUR
from linkaudit.config.numbers import MINUTE as MINUTE
from linkaudit.config.numbers import SIZE as SIZE
from linkaudit.config.numbers import YEAR as YEAR
from linkaudit.config.numbers import number as number
from linkaudit.config.shared import audit_name as audit_name
from linkaudit.config.shared import redis_url as redis_url
from linkaudit.config.urls import masked as masked
from linkaudit.config.urls import optional_url as optional_url
from linkaudit.config.urls import service_url as service_url
from linkaudit.config.urls import split_list as split_list
from linkaudit.config.urls import start_urls as start_urls
from linkaudit.config.urls import url_list as url_list
from linkaudit.config.urls import url_prefixes as url_prefixes

Reader = Callable[[Any, str], Any]
_EMAIL = re.compile(r"^[^@\s<>]+@[^@\s<>]+\.[^@\s<>]+$")


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
    """HTTP statuses and ranges of them: ``200-299,429`` (lychee's and
    muffet's way of writing accepted statuses)."""
    found: set[int] = set()
    for value in settings.getlist(name):
        low, dash, high = str(value).strip().partition("-")
        first = _status(low, value)
        last = _status(high, value) if dash else first
        if last < first:
            raise ValueError(f"{value!r} is not a range of HTTP statuses (low-high)")
        found.update(range(first, last + 1))
    return frozenset(found)


def _status(text: str, value: Any) -> int:
    text = text.strip()
    # ASCII digits only: int() takes "²" and "١٠٠" too
    if not (text.isascii() and text.isdigit()):
        raise ValueError(f"{value!r} is not an HTTP status{_ranges_taken(text)}") from None
    status = int(text)
    if not 100 <= status <= 999:
        raise ValueError(f"{status} is not an HTTP status (100-999)")
    return status


def _ranges_taken(text: str) -> str:
    """What the statuses' syntax takes, with the range meant by a class
    written as other tools write it (``2xx``, ``4XX``)."""
    taken = "; it takes statuses and ranges, comma-separated"
    if len(text) == 3 and text[0] in "12345" and text[1:].lower() == "xx":
        low = int(text[0]) * 100
        return f"{taken}: {low}-{low + 99} for {text} (e.g. {low}-{low + 99},429)"
    return f"{taken} (e.g. 200-299,429)"


def log_level(settings: Any, name: str) -> Any:
    """A level Python's logging takes (Scrapy hands it on as it is): a
    name in capitals, or a number."""
    import logging

    value = settings.get(name)
    if value is None or isinstance(value, int) and not isinstance(value, bool):
        return value
    text = str(value).strip()
    if text in logging.getLevelNamesMapping() or (text.isascii() and text.isdigit()):
        return value
    raise ValueError(f"{value!r} is not a log level (DEBUG, INFO, WARNING, ERROR or CRITICAL)")


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
    # sent as the From header: a control character or a byte that is not
    # text (a lone surrogate) would fail every request
    if not _EMAIL.match(value) or not value.isprintable():
        raise ValueError(f"{value!r} is not an e-mail address")
    return value


def component(settings: Any, name: str) -> Any:
    """A path to a class or function that must load."""
    path = settings.get(name)
    if path is None or not isinstance(path, str):
        return path
    _load(path)
    return path


# states that read a setting of their own: (class, setting, the option that sets it)
_STATE_NEEDS = (
    ("linkaudit.state.sqlite.SQLiteState", "LINKAUDIT_DB", "--db PATH"),
    ("linkaudit.state.redis.RedisState", "LINKAUDIT_REDIS", "--redis URL"),
)


def state_class(settings: Any, name: str) -> str:
    """The path of the audit's state: a class of the state interface (the
    spider builds what it names: ``os.system`` would be called)."""
    from linkaudit.state.base import AuditState

    path = settings.get(name)
    _load(path)
    loaded = path if not isinstance(path, str) else load_path(path)
    shown = path if isinstance(path, str) else getattr(path, "__qualname__", repr(path))
    if not (isinstance(loaded, type) and issubclass(loaded, AuditState)):
        raise ValueError(f"{shown!r} is not a state class (a subclass of AuditState)")
    if inspect.isabstract(loaded):
        raise ValueError(f"{shown!r} is abstract: name a state class that implements it")
    for needed, setting, option in _STATE_NEEDS:  # their own options choose them
        # a state's module is in sys.modules if ``loaded`` is that state:
        # an audit in memory never imports Redis or SQLite to compare
        module, _, cls = needed.rpartition(".")
        if module not in sys.modules:
            continue
        if loaded is getattr(sys.modules[module], cls) and not settings.get(setting):
            raise ValueError(f"{shown!r} needs {option} (which chooses it)")
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


def load_path(path: str) -> Any:
    """The object a dotted path names, as Scrapy's ``load_object`` finds it
    (the same errors), without importing Scrapy: an audit that reads its
    files (``linkaudit DIR``) checks its configuration without it."""
    module, dot, name = path.rpartition(".")
    if not dot:
        raise ValueError(f"Error loading object '{path}': not a full path")
    found = importlib.import_module(module)
    try:
        return getattr(found, name)
    except AttributeError:
        raise NameError(f"Module '{module}' doesn't define any object named '{name}'") from None


def _load(path: Any) -> None:
    if not isinstance(path, str):
        return  # a class object is loaded already
    try:
        load_path(path)
    except (ImportError, NameError, ValueError, AttributeError) as exc:
        raise ValueError(f"cannot load {path!r} ({exc})") from None


# -- files and directories -------------------------------------------------------------
def writable_file(path: str, regular: bool = True) -> str:
    """A file that can be written now: better to fail before the crawl.

    The directory is tried by creating (and removing) a file in it, as the
    report is written: ``os.access`` says yes for root in ``/proc``.  An
    existing file must be a regular one when ``regular`` (the report is
    replaced by a rename: ``/dev/null`` would be replaced, for root); an
    export may go to a device or a pipe (``--jsonl /dev/stdout``)."""
    path = os.path.abspath(os.path.expanduser(path))
    if os.path.isdir(path):
        raise ValueError(f"{path} is a directory")
    parent = os.path.dirname(path)
    if not os.path.isdir(parent):
        raise ValueError(f"directory {parent} does not exist")
    if regular and os.path.exists(path) and not os.path.isfile(path):
        raise ValueError(f"{path} is not a regular file")
    try:
        fd, probe = tempfile.mkstemp(prefix=".linkaudit-", suffix=".tmp", dir=parent)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise ValueError(f"{path} is not writable ({exc.strerror or exc})") from None
    if os.path.exists(path) and not os.access(path, os.W_OK):
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


# LINKAUDIT_HTTP_CLIENT's values and the distributions each needs beside
# Scrapy (network/clients.py makes the clients)
HTTP_CLIENTS: dict[str, tuple[str, ...]] = {
    "twisted": (),
    "httpx": ("httpx",),
    "aiohttp": ("aiohttp", "scrapy_download_handlers_incubator"),
    "curl_cffi": ("curl_cffi", "scrapy_download_handlers_incubator"),
}


def http_client(settings: Any, name: str) -> str:
    """One of :data:`HTTP_CLIENTS`, whose packages are installed."""
    value = choice(*HTTP_CLIENTS)(settings, name)
    from importlib.util import find_spec

    missing = [m.replace("_", "-") for m in HTTP_CLIENTS[value] if find_spec(m) is None]
    if missing:
        needs = " and ".join(missing)
        raise ValueError(f"{value!r} needs {needs} (pip install {' '.join(missing)})")
    return value


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


def local_start(settings: Any, name: str) -> str:
    """A page's path inside the build directory (LINKAUDIT_LOCAL_START), as
    ``/``-separated segments: no absolute path, no ``..`` (the command
    checks the file itself: ``command/sites.py``)."""
    value = text(settings, name).replace(os.sep, "/").strip()
    if not value:
        return ""
    if value.startswith("/") or "\0" in value:
        raise ValueError(f"{value!r} is not a path inside the build directory")
    parts = [part for part in value.split("/") if part not in ("", ".")]
    if ".." in parts:
        raise ValueError(f"{value!r} leads out of the build directory")
    return "/".join(parts) + ("/" if value.endswith("/") and parts else "")


def database_path(settings: Any, name: str) -> str | None:
    """The audit database: a file that can be created or opened."""
    value = text(settings, name)
    if not value:
        return None
    from linkaudit.state.database import DatabaseError, open_database

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
    value = text(settings, name)
    if not value:
        return None
    return os.path.abspath(value), load_baseline(value)


def journal_path_for(report: str) -> str:
    """``/x/report.json`` -> ``/x/report.journal.jsonl``."""
    root, ext = os.path.splitext(report)
    return (root if ext == ".json" else report) + ".journal.jsonl"
