"""MkDocs hooks (mkdocs.yml ``hooks:``): the configuration reference,
``reference/settings.md``, generated at build time from the one table of
settings, ``linkaudit/config/options.py``, so that it cannot drift from it.

The table gives each setting's name, default, spider argument, command option
and section (its ``# -- ...`` comments); ``docs/settings.toml`` gives the
words.  A setting without words, or words for a setting that no longer
exists, fails the build: a new setting is documented or the build is red.
"""

from __future__ import annotations

import inspect
import json
import re
import tomllib
from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

PAGE = "reference/settings.md"
WORDS = Path(__file__).with_name("settings.toml")
SECTION = re.compile(r"^\s*# -- (.+)$")
OPTION = re.compile(r"""^\s*Option\(\s*["']([A-Z0-9_]+)["']""")
# Scrapy settings of the project module that are plumbing, not behaviour
NOT_SETTINGS = {"FEED_FIELDS", "PROJECT_URL"}


def _sections(module: Any) -> dict[str, str]:
    """Setting -> the ``# -- what`` comment above it in the table's source
    (an option written over several lines counts where ``Option(`` is,
    or on its next line)."""
    found, section, waiting = {}, "other settings", False
    for line in inspect.getsource(module).splitlines():
        if m := SECTION.match(line):
            section = m.group(1).strip()
        elif m := OPTION.match(line):
            found[m.group(1)] = section
        elif waiting and (m := re.match(r"""^\s*["']([A-Z0-9_]+)["']""", line)):
            found[m.group(1)] = section
        waiting = line.rstrip().endswith("Option(")
    return found


def _value(value: Any) -> str:
    if value is None:
        return "Scrapy's"
    if isinstance(value, dict):
        return "see `linkaudit/settings.py`"
    if isinstance(value, str):
        return f"`{value}`" if value else "empty"
    text = json.dumps(value) if isinstance(value, list) else repr(value)
    if isinstance(value, int) and not isinstance(value, bool) and value >= 10_000:
        text = f"{value:_}".replace("_", ",")
    return f"`{text}`"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _words(table: dict[str, str], name: str, option: Any = None) -> str:
    text = table.get(name) or getattr(option, "help", None) or getattr(option, "doc", None)
    if not text:
        raise PluginError(f"{WORDS.name}: no words for the setting {name}")
    return _cell(text)


def settings_page() -> str:
    """The reference page, in markdown."""
    from scrapy.settings import default_settings as scrapy

    import linkaudit.config.options as options
    import linkaudit.settings as project

    words = tomllib.loads(WORDS.read_text())
    ours, theirs = words["linkaudit"], words["scrapy"]
    known = {o.setting for o in options.OPTIONS}
    if stale := sorted(set(ours) - known):
        raise PluginError(f"{WORDS.name}: words for settings that do not exist: {stale}")
    sections = _sections(options)
    lines = [
        "# Settings",
        "",
        "Every setting linkaudit reads or checks, generated from the one table of",
        "settings, `linkaudit/config/options.py`, when this site is built. Give",
        "one with `-s NAME=VALUE` (the `linkaudit` command and `scrapy crawl`),",
        "in the `[set]` table of [the configuration file](../guide/configuration.md),",
        "or through its spider argument (`-a NAME=VALUE`, Scrapyd's form fields)",
        "or command option where it has one. Every value is checked before the",
        "crawl: a bad one stops the run with one line naming it, exit 2, and a",
        "`LINKAUDIT_*` name that is no setting is an error naming the nearest one.",
        "",
    ]
    current = None
    for option in options.OPTIONS:
        section = sections.get(option.setting, "other settings")
        if section != current:
            current = section
            lines += ["", f"## {section[0].upper()}{section[1:]}", ""]
            lines += ["| setting | default | set by | what it does |", "| --- | --- | --- | --- |"]
        default = option.default
        if default is None:
            default = getattr(project, option.setting, None)
        shown = "none" if default is None and option.setting.startswith("LINKAUDIT_") else None
        doors = []
        if option.argument:
            doors.append(f"`-a {option.argument}=`")
        if option.flag:
            doors.append(f"`{option.flag.usage}`")
        lines.append(
            f"| `{option.setting}` | {shown or _value(default)} | {', '.join(doors) or '`-s`'} "
            f"| {_words(ours, option.setting, option)} |"
        )
    lines += [
        "",
        "## Scrapy settings linkaudit sets otherwise",
        "",
        "linkaudit's settings module (`linkaudit/settings.py`, the project's",
        "Scrapy settings) gives these of Scrapy's own settings another value than",
        "Scrapy does. They are Scrapy's to read; change them with `-s` at your own",
        "risk.",
        "",
        "| setting | linkaudit | Scrapy | why |",
        "| --- | --- | --- | --- |",
    ]
    mine = [
        name
        for name in dir(project)
        if name.isupper() and name not in known and name not in NOT_SETTINGS
        if getattr(project, name) != getattr(scrapy, name, object())
    ]
    if stale := sorted(set(theirs) - set(mine)):
        raise PluginError(f"{WORDS.name}: words for Scrapy settings not set otherwise: {stale}")
    for name in mine:
        ours_value = _value(getattr(project, name))
        scrapy_value = _value(getattr(scrapy, name, None))
        lines.append(f"| `{name}` | {ours_value} | {scrapy_value} | {_words(theirs, name)} |")
    return "\n".join(lines) + "\n"


def on_files(files: Files, config: Any) -> Files:
    """Add the generated reference page to the site's files."""
    files.append(File.generated(config, PAGE, content=settings_page()))
    return files
