"""What the ``linkaudit`` command's options choose: the Scrapy settings
(``chosen``, then ``settings`` with ``-s`` on top), the spider arguments
(``arguments``), and which option set which setting (``names``: errors
then name what the user typed).

A setting's option (its row's ``flag``, ``config/options.py``) is passed on
as the row's spider argument, or, when the row has none, as the setting.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from linkaudit.config.options import OPTIONS, Option

if TYPE_CHECKING:
    from scrapy.settings import Settings


def chosen(ns: argparse.Namespace) -> dict[str, Any]:
    """The settings the command's options choose (``-s`` comes on top)."""
    from linkaudit.config import ConfigError
    from linkaudit.config.checks import writable_file
    from linkaudit.config.inputs import check_feed

    level = "ERROR" if ns.quiet else ("WARNING", "INFO", "DEBUG")[min(ns.verbose, 2)]
    chosen: dict[str, Any] = {
        "LOG_LEVEL": level,
        "DOWNLOAD_DELAY": "0.1" if ns.demo else "1.0",  # --delay's comes with the others
        # a status line only where a person watches
        "LINKAUDIT_PROGRESS": sys.stdout.isatty() and not ns.quiet,
        # "--delay 0 is faster" only when the delay is the default, on a live site
        "LINKAUDIT_PACE_HINT": ns.delay is None
        and not ns.demo
        and ns.local_dir is None
        and all(name != "DOWNLOAD_DELAY" for name, _ in ns.settings),
    }
    if ns.local_dir is not None:
        # its files are read for its origin, no socket (linkaudit/localbuild/handler.py);
        # one GET a URL: a file that is no page is stopped at its headers, unread
        # (rendered pages need a server: the browser requests their scripts)
        chosen["LINKAUDIT_LOCAL_READ"] = not renders(ns)
        chosen["LINKAUDIT_HEAD_FIRST"] = False
        if getattr(ns, "found_start", None):  # no DIR/index.html: the page found (command/sites.py)
            chosen["LINKAUDIT_LOCAL_START"] = ns.found_start
    bounded = ns.max_urls is not None or any(n == "LINKAUDIT_MAX_URLS" for n, _ in ns.settings)
    if ns.local_dir is not None and not ns.demo and not bounded:
        from linkaudit.localbuild.directory import url_bound

        # a bound the build's own size sets (--max-urls, -s, the file win):
        # links that make URLs without end (links to directories) stop there
        chosen["LINKAUDIT_MAX_URLS"] = url_bound(ns.local_dir)
    if ns.local_dir is not None and ns.delay is None:
        # the build's own origin is ours: no delay, more at once (far hosts keep theirs)
        chosen["DOWNLOAD_SLOTS"] = {"127.0.0.1": {"delay": 0, "concurrency": 8}}
    for option, value in given(ns):
        if option.argument is None:  # the setting itself
            chosen[option.setting] = value
    if ns.jsonl:  # checked as the report is (Scrapy would create a missing directory)
        try:
            jsonl = writable_file(ns.jsonl, regular=False)
            check_feed(jsonl)  # a pipe nobody reads: Scrapy's open would wait for ever
        except ValueError as exc:
            raise ConfigError(f"--jsonl: {exc}") from None
        chosen["FEEDS"] = {jsonl: {"format": "jsonlines", "overwrite": True}}
    return chosen


def renders(ns: argparse.Namespace) -> bool:
    """``--render auto`` or ``always`` (or its setting given with ``-s``)."""
    given = [value for name, value in ns.settings if name == "LINKAUDIT_RENDER"]
    mode = ns.render if ns.render is not None else (given[-1] if given else "never")
    return str(mode).strip().lower() != "never"


def settings(ns: argparse.Namespace) -> Settings:
    from scrapy.settings import Settings

    from linkaudit.config import ConfigError

    settings = Settings()
    settings.setmodule("linkaudit.settings", priority="project")
    settings.setdict(chosen(ns), priority="cmdline")
    for name, value in ns.settings:  # -s wins over the options, as in Scrapy
        try:
            settings.set(name, value, priority="cmdline")
        except ValueError:  # a dict setting parses its JSON here
            raise ConfigError(f"{name}: {value!r} is not a JSON object") from None
    return settings


def arguments(ns: argparse.Namespace) -> dict[str, Any]:
    """The options that are spider arguments (errors name them so)."""
    # a list: each URL whole (a comma or a space inside one is not a separator)
    arguments: dict[str, Any] = {"start": list(ns.urls), "report": os.path.abspath(ns.report)}
    if ns.local_dir is not None:  # (command/sites.py)
        arguments["local_dir"] = ns.local_dir
    for option, value in given(ns):
        if option.argument is not None:  # a switch's as -a gives it: text
            arguments[option.argument] = str(value).lower() if isinstance(value, bool) else value
    return arguments


def names(ns: argparse.Namespace) -> dict[str, str]:
    """Settings the user set with an option (not overridden by -s): errors
    name the option."""
    overridden = {name for name, _ in ns.settings}
    return {
        option.setting: option.flag.name
        for option, _ in given(ns)
        if option.flag is not None and option.argument is None and option.setting not in overridden
    }


def given(ns: argparse.Namespace) -> Iterator[tuple[Option, Any]]:
    """The settings' options given (on the command line or in the file),
    with what each sets: a switch the opposite of its setting's default, a
    repeatable option the list of its values (each whole, commas included),
    another its text."""
    for option in OPTIONS:
        flag = option.flag
        value = getattr(ns, flag.dest, None) if flag is not None else None
        if flag is None or value is None or value is False or value == []:
            continue
        if flag.metavar is None:
            yield option, not option.default
        else:
            yield option, list(value) if flag.many else value
