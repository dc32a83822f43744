"""The audit's configuration, read and checked in one place.

``Config.build`` takes the crawler's settings and the spider's arguments
(``-a NAME=VALUE``; the command's options arrive as one or the other),
reads every option of ``options.OPTIONS`` with its check, and derives what
the audit needs (the journal's path, the state class, the trap guards, the
recheck rules).  Any problem is one :class:`ConfigError` line that names what
the user typed (``depth: 'two' is not a whole number``, ``--delay: '-1' is
negative``, ``LINKAUDIT_EXCLUDE: '(' is not a regular expression``), raised
before anything is requested.

The crawler's audit (``linkaudit/audit.py``) builds it once (the command
builds it before the crawl and hands it over); components read it with
:func:`config_of`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any
from urllib.parse import quote
from weakref import WeakKeyDictionary

import linkaudit.config.checks as checks
from linkaudit.config.options import (
    ARGUMENTS,
    BY_SETTING,
    OPTIONS,
    Option,
    defaults,
    unknown_setting,
)
from linkaudit.config.rendering import rendering_browser
from linkaudit.config.sources import check_sources
from linkaudit.rules.guards import TrapGuards
from linkaudit.rules.names import BuildNames
from linkaudit.rules.recheck import RecheckPolicy
from linkaudit.rules.scope import site_prefix
from linkaudit.rules.urls import canonicalize

SQLITE_STATE = "linkaudit.state.sqlite.SQLiteState"
REDIS_STATE = "linkaudit.state.redis.RedisState"

__all__ = [
    "OPTIONS",
    "Config",
    "ConfigError",
    "Option",
    "bind_config",
    "config_of",
    "defaults",
]


class ConfigError(ValueError):
    """A bad argument, option or setting: one line for the user, as is."""


@dataclass(frozen=True)
class Config:
    values: Mapping[str, Any]  # every option, read and checked, by setting
    start_urls: tuple[str, ...]
    near_prefixes: tuple[str, ...]
    report: str
    journal: str | None  # None: no journal
    keep_journal: bool  # the user chose its path: kept after the report
    baseline: frozenset[str] | None
    baseline_source: str | None
    state: str  # the state class's path
    guards: TrapGuards
    policy: RecheckPolicy
    labels: Mapping[str, str] = field(default_factory=dict)  # what the user called a setting
    # a build directory's address (LINKAUDIT_LOCAL_DIR): where its root is
    # served, whatever page the audit starts from (LINKAUDIT_LOCAL_START)
    build_url: str = ""

    def label(self, setting: str) -> str:
        """What errors call ``setting``: the argument or option typed."""
        return self.labels.get(setting) or BY_SETTING[setting].name

    def __getitem__(self, setting: str) -> Any:
        return self.values[setting]

    @property
    def root_mapping(self) -> tuple[str, str] | None:
        """``--root-url``: (the site's own address, where it is audited: the
        folder of the first start URL), both ending with a slash."""
        root = self.values.get("LINKAUDIT_ROOT_URL")
        if not root:
            return None
        start = self.build_url or self.start_urls[0]
        return (root if root.endswith("/") else root + "/", start[: start.rfind("/") + 1])

    @cached_property
    def names(self) -> BuildNames | None:
        """A build directory's names in every output (``rules/names.py``):
        its files, and its deployed URLs with ``--root-url``; None for a
        site."""
        return build_names(self.values)

    @property
    def max_depth(self) -> int | None:
        return self.values["LINKAUDIT_DEPTH"]

    @classmethod
    def build(
        cls,
        settings: Any,
        arguments: Mapping[str, Any] | None = None,
        names: Mapping[str, str] | None = None,
        require_start: bool = True,
    ) -> Config:
        """Read and check everything.  ``arguments``: spider arguments (they
        become settings at command-line priority, in ``settings`` too, which
        must not be frozen); ``names``: what the user called a setting, when
        an option of the command set it (``{"DOWNLOAD_DELAY": "--delay"}``)."""
        arguments = dict(arguments or {})
        unknown = sorted(k for k in arguments if k not in ARGUMENTS and not k.startswith("_"))
        if unknown:
            known = ", ".join(sorted(ARGUMENTS))
            raise ConfigError(f"{unknown[0]}: unknown argument (known: {known})")
        for argument, value in arguments.items():
            if argument in ARGUMENTS:
                settings.set(ARGUMENTS[argument].setting, value, priority="cmdline")
        typo = unknown_setting(name for name, _ in settings.items())
        if typo:  # a misspelt setting of ours would be silently ignored
            raise ConfigError(typo)
        merged = _with_defaults(settings)
        labels = dict(names or {})
        labels.update({ARGUMENTS[a].setting: a for a in arguments if a in ARGUMENTS})
        values: dict[str, Any] = {}
        for option in OPTIONS:
            if option.setting == "LINKAUDIT_START" and not require_start:
                if not checks.split_list(merged.get(option.setting)):
                    values[option.setting] = ()
                    continue
            values[option.setting] = _read(option, merged, labels)
        return cls._derive(values, settings, labels)

    @classmethod
    def _derive(cls, values: dict[str, Any], settings: Any, labels: dict[str, str]) -> Config:
        journal, keep = None, False
        if values["LINKAUDIT_JOURNAL_ENABLED"]:
            keep = bool(values["LINKAUDIT_JOURNAL"])
            journal = values["LINKAUDIT_JOURNAL"] or checks.journal_path_for(
                values["LINKAUDIT_REPORT"]
            )
            try:
                journal = checks.writable_file(journal)
            except ValueError as exc:
                raise ConfigError(f"{labels.get('LINKAUDIT_JOURNAL', 'journal')}: {exc}") from None
        contact = values["LINKAUDIT_CONTACT"]
        if contact:  # the From header of every request
            headers = dict(settings.getdict("DEFAULT_REQUEST_HEADERS"))
            headers["From"] = contact
            settings.set("DEFAULT_REQUEST_HEADERS", headers, priority="cmdline")
        try:  # --render: its browser found now, not at the first page to render
            values["LINKAUDIT_BROWSER"] = rendering_browser(values)
        except ValueError as exc:
            named = "LINKAUDIT_BROWSER" if values["LINKAUDIT_BROWSER"] else "LINKAUDIT_RENDER"
            label = labels.get(named, "browser" if values["LINKAUDIT_BROWSER"] else "render")
            raise ConfigError(f"{label}: {exc}") from None
        wrong = check_sources(values, labels)
        if wrong is not None:
            raise ConfigError(wrong)
        baseline = values["LINKAUDIT_BASELINE"]
        names = build_names(values)
        if baseline and names is not None:  # an earlier report's names, compared as shown
            baseline = (baseline[0], names.keys(baseline[1]))
        state = SQLITE_STATE if values["LINKAUDIT_DB"] else values["LINKAUDIT_STATE"]
        if values["LINKAUDIT_REDIS"]:
            state = cls._shared(values, labels)
        build = _build_address(values)
        starts = _build_start(build, values["LINKAUDIT_LOCAL_START"]) or values["LINKAUDIT_START"]
        return cls(
            values=values,
            start_urls=starts,
            # an index page stands for its directory (rules/scope.py); a
            # build's pages are all its directory's, from any start page
            near_prefixes=values["LINKAUDIT_NEAR"]
            or ((build,) if build else tuple(dict.fromkeys(map(site_prefix, starts)))),
            report=values["LINKAUDIT_REPORT"],
            journal=journal,
            keep_journal=keep,
            baseline=baseline[1] if baseline else None,
            baseline_source=baseline[0] if baseline else None,
            state=state,
            guards=TrapGuards(
                max_path_segments=values["LINKAUDIT_MAX_PATH_SEGMENTS"],
                max_segment_repeat=values["LINKAUDIT_MAX_SEGMENT_REPEAT"],
                exclude_userinfo=values["LINKAUDIT_EXCLUDE_USERINFO"],
                exclude_double_slash=values["LINKAUDIT_EXCLUDE_DOUBLE_SLASH"],
                patterns=values["LINKAUDIT_EXCLUDE"],
                include=values["LINKAUDIT_INCLUDE"],
                skip_far=values["LINKAUDIT_SKIP_FAR"],
                files=build,
                root=values["LINKAUDIT_ROOT_URL"] or "",
            ),
            policy=RecheckPolicy(
                recheck_after=values["LINKAUDIT_RECHECK_AFTER"],
                recheck_good_after=values["LINKAUDIT_RECHECK_GOOD_AFTER"],
                follow_ghost=values["LINKAUDIT_FOLLOW_GHOST"],
                report_after=values["LINKAUDIT_REPORT_AFTER"],
            ),
            labels=labels,
            build_url=build,
        )

    @staticmethod
    def _shared(values: dict[str, Any], labels: dict[str, str]) -> str:
        """A shared audit: it has a name, and no audit database."""
        redis = labels.get("LINKAUDIT_REDIS", "redis")
        if not values["LINKAUDIT_AUDIT"]:
            raise ConfigError(
                f"{redis} needs {labels.get('LINKAUDIT_AUDIT', 'audit')} NAME: "
                "the name every worker of the audit is given"
            )
        if values["LINKAUDIT_DB"]:
            raise ConfigError(
                f"{labels.get('LINKAUDIT_DB', 'db')} and {redis} cannot be used together: "
                "a shared audit keeps its state in Redis"
            )
        return REDIS_STATE


def _build_address(values: Mapping[str, Any]) -> str:
    """The address a build directory (LINKAUDIT_LOCAL_DIR) is served at:
    the folder of its first start URL (``linkaudit DIR`` gives the
    directory's own address), or ``""``."""
    starts = values["LINKAUDIT_START"]
    if not (values["LINKAUDIT_LOCAL_DIR"] and starts):
        return ""
    return starts[0][: starts[0].rfind("/") + 1]


def _build_start(build: str, page: str) -> tuple[str, ...]:
    """The start URL of a build's page (LINKAUDIT_LOCAL_START, its path
    inside the directory), or none."""
    if not (build and page):
        return ()
    return (canonicalize(build + quote(page, safe=_PATH_SAFE)),)


# what a path keeps unescaped in a URL (RFC 3986's pchar and "/")
_PATH_SAFE = "/-._~!$&'()*+,;=:@"


def build_names(values: Mapping[str, Any]) -> BuildNames | None:
    """The names of a build directory (LINKAUDIT_LOCAL_DIR) audited at its
    address (``_build_address``), deployed at LINKAUDIT_ROOT_URL; None for
    an audit of a site."""
    address = _build_address(values)
    if not address:
        return None
    return BuildNames(values["LINKAUDIT_LOCAL_DIR"], address, values["LINKAUDIT_ROOT_URL"] or "")


def _read(option: Option, settings: Any, labels: Mapping[str, str]) -> Any:
    try:
        return option.read(settings, option.setting)
    except ValueError as exc:
        raise ConfigError(f"{labels.get(option.setting, option.name)}: {exc}") from None


def _with_defaults(settings: Any) -> Any:
    """``settings`` over the table's defaults (a settings object built
    without the project's settings module still reads every option)."""
    from linkaudit.config.plain import PlainSettings

    if isinstance(settings, PlainSettings):  # an audit without Scrapy
        plain = PlainSettings(defaults(), priority="default")
        plain.update(settings)
        return plain
    from scrapy.settings import BaseSettings

    merged = BaseSettings(defaults(), priority="default")
    if isinstance(settings, BaseSettings):
        merged.update(settings)
    else:
        merged.update(dict(settings))
    return merged


_BOUND: WeakKeyDictionary[Any, Config] = WeakKeyDictionary()


def bind_config(crawler: Any, config: Config) -> None:
    """``config`` is the crawler's audit's (``linkaudit.audit.start_audit``)."""
    _BOUND[crawler] = config


def config_of(crawler: Any) -> Config:
    """The audit's configuration, for a component: the crawler's audit's,
    or (a component used without our spider) one read from the settings."""
    config = _BOUND.get(crawler)
    if config is not None:
        return config
    return Config.build(crawler.settings, require_start=False)
