"""The ``linkaudit`` command's configuration file: its options' values from
``--config FILE``, else ``linkaudit.toml``, else ``[tool.linkaudit]`` in
``pyproject.toml`` (in the current directory; paths in it are relative to
it).  The command line wins.  Public API: ``ConfigFileError``,
``find_config(explicit, cwd)``, ``describe(path)``, ``apply_config(parser,
table, source)``, ``prepare(parser)``, ``render_config(parser, ns)``.  The
keys are the parser's options (``max-requests`` or ``max_requests``, ``urls``),
so a new option needs nothing here; ``set`` is a table for ``-s``, ``headers``
one (or a list) for ``--header``.
"""

from __future__ import annotations

import argparse
import difflib
import json
import re
import tomllib
from pathlib import Path
from typing import Any

from linkaudit.config.inputs import open_regular
from linkaudit.config.secrets import secret_free
from linkaudit.internals import (
    AppendAction,
    CountAction,
    StoreConstAction,
    convert_value,
    exclusive_groups,
    parser_actions,
)

FILE, PYPROJECT, TABLE = "linkaudit.toml", "pyproject.toml", "tool.linkaudit"
COMMAND_LINE_ONLY = frozenset({"config", "print-config", "help", "version"})
SETTINGS = "set"  # a table NAME = value, given to the option as "NAME=VALUE"
HEADERS, HEADER = "headers", "header"  # a table Name = value, or a list, for --header
_FLAGS = (StoreConstAction, argparse.BooleanOptionalAction)  # store_true too
Parser = argparse.ArgumentParser
# a configuration file is a few lines: past a MiB it is the wrong file (/dev/zero)
MAX_SIZE = 1024 * 1024


class ConfigFileError(ValueError):
    """A bad configuration file: one line, naming the file and the key."""


def describe(path: Path) -> str:
    """What errors call the file: ``source`` for :func:`apply_config`."""
    return f"{path} [{TABLE}]" if path.name == PYPROJECT else str(path)


def find_config(explicit: str | None, cwd: Path) -> tuple[Path, dict[str, Any]] | None:
    """The file and its table; the path as given, or the name found in
    ``cwd``.  A pyproject.toml that is not TOML is an error: it may hold ours."""
    if explicit is not None:
        path = Path(explicit)
        data = _load(path, cwd)
        table = _tool_table(data, path, required=True) if path.name == PYPROJECT else data
        assert table is not None  # (required: an error, not None)
        return path, table
    if (cwd / FILE).is_file():
        return Path(FILE), _load(Path(FILE), cwd)
    if (cwd / PYPROJECT).is_file():
        table = _tool_table(_load(Path(PYPROJECT), cwd), Path(PYPROJECT), required=False)
        if table is not None:
            return Path(PYPROJECT), table
    return None


def _load(path: Path, cwd: Path) -> dict[str, Any]:
    try:
        # a FIFO or a device (/dev/zero) is refused before it is read: a
        # pipe's open or read may wait for ever
        with open_regular(cwd / path) as file:
            data = file.read(MAX_SIZE + 1)  # a file growing as it is read: never whole
        if len(data) > MAX_SIZE:
            raise ConfigFileError(f"{path}: too large (more than {MAX_SIZE / 2**20:g} MiB)")
        text = data.decode("utf-8-sig")
    except ConfigFileError:
        raise
    except (OSError, ValueError) as exc:  # UnicodeDecodeError is a ValueError
        why = getattr(exc, "strerror", None) or exc  # "No such file or directory"
        raise ConfigFileError(f"{path}: cannot read it: {why}") from None
    try:
        return tomllib.loads(text)
    except (RecursionError, MemoryError):  # tomllib recurses once per level
        raise ConfigFileError(f"{path}: too deeply nested") from None
    except tomllib.TOMLDecodeError as exc:  # "Invalid value (at line 3, column 7)"
        message = str(exc)
        at = re.search(r" \(at line (\d+), column (\d+)\)$", message)
        if at:
            message = f"line {at[1]}: {message[: at.start()]} (column {at[2]})"
        elif message.endswith("(at end of document)"):
            message = f"line {text.count(chr(10)) + 1}: {message}"
        raise ConfigFileError(f"{path}: {message}") from None


def _tool_table(data: dict[str, Any], path: Path, required: bool) -> dict[str, Any] | None:
    tool = data.get("tool")
    table = tool.get("linkaudit") if isinstance(tool, dict) else None
    if table is None and required:
        raise ConfigFileError(f"{path}: no [{TABLE}] table")
    if table is not None and not isinstance(table, dict):
        raise _expected(f"{path}: {TABLE}", "a table", table)
    return table


def _key(action: argparse.Action) -> str:
    longs = [s[2:] for s in action.option_strings if s.startswith("--")]
    return (longs[0] if longs else action.dest).replace("_", "-")


def _keys(parser: Parser) -> dict[str, argparse.Action]:
    """Every action that takes a value, is a flag or counts (not help...)."""
    return {
        _key(action): action
        for action in parser_actions(parser)
        if action.dest != argparse.SUPPRESS
        and (action.nargs != 0 or isinstance(action, (*_FLAGS, CountAction)))
        and _key(action) not in COMMAND_LINE_ONLY
    }


def apply_config(parser: Parser, table: dict[str, Any], source: str) -> dict[str, Any]:
    """The table's values by dest, checked, as argparse gives them (a value
    option's as a string, which argparse converts as the command line's)."""
    keys = _keys(parser)
    header = keys.get(HEADER) if isinstance(keys.get(HEADER), AppendAction) else None
    values: dict[str, Any] = {}
    spelled: dict[str, str] = {}  # dest: the key as written
    for spelling, value in table.items():
        key, where = spelling.replace("_", "-"), f"{source}: {spelling}"
        if key == HEADERS and header is not None:
            if isinstance(value, dict):  # Name = "value": a string checked as --header's
                value = [f"{n}: {v}" if isinstance(v, str) else v for n, v in value.items()]
            key = HEADER
        if key in COMMAND_LINE_ONLY:
            raise ConfigFileError(f"{where}: only on the command line")
        action = keys.get(key)
        if action is None:
            near = difflib.get_close_matches(key, [*keys, *([HEADERS] if header else [])], n=1)
            hint = f' (did you mean "{near[0]}"?)' if near else ""
            raise ConfigFileError(f'{source}: unknown key "{spelling}"{hint}')
        if action.dest in spelled:
            raise ConfigFileError(f"{where}: given twice (also as {spelled[action.dest]})")
        spelled[action.dest] = spelling
        values[action.dest] = _value(parser, action, key, value, where)
    for acts in exclusive_groups(parser):  # as argparse refuses -q -v
        given = [spelled[a.dest] for a in acts if a.dest in values and values[a.dest] != a.default]
        if len(given) > 1:
            raise ConfigFileError(f"{source}: {given[0]}: not allowed with {given[1]}")
    return values


class _Count(int):
    """A count from the file: the command line's first ``-v`` counts from 0."""


def _value(parser: Parser, action: argparse.Action, key: str, value: Any, where: str) -> Any:
    if key == SETTINGS and isinstance(action, AppendAction):
        if not isinstance(value, dict):
            raise _expected(where, "a table of NAME = value", value)
        # true/false, numbers, lists and tables: the JSON Scrapy's settings parse
        pairs = value.items()
        text = {n: v if isinstance(v, str) else json.dumps(v, default=str) for n, v in pairs}
        return [_convert(parser, action, f"{n}={t}", f"{where}: {n}", t) for n, t in text.items()]
    if isinstance(action, _FLAGS):
        if not isinstance(value, bool):
            raise _expected(where, "true or false", value)
        if isinstance(action, argparse.BooleanOptionalAction):
            return value
        return action.const if value else action.default
    if isinstance(action, CountAction):
        if type(value) is not int or value < 0:
            raise _expected(where, "a whole number, 0 or more", value)
        return _Count(value)
    if isinstance(action, AppendAction) or action.nargs in ("*", "+"):
        items = [value] if isinstance(value, str) else value
        if not isinstance(items, list):
            raise _expected(where, "a string or a list of strings", value)
        for number, item in ((n, x) for n, x in enumerate(items, 1) if not isinstance(x, str)):
            raise _expected(f"{where}: item {number}", "a string", item)
        return [_convert(parser, action, item, where, item) for item in items]
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise _expected(where, "a value", value)
    _convert(parser, action, str(value), where, value)  # checked now, converted by argparse
    return str(value)


def _convert(parser: Parser, action: argparse.Action, text: str, where: str, shown: Any) -> Any:
    """``text`` through the option's type and choices, as argparse would."""
    try:
        value = convert_value(parser, action, text)
    except argparse.ArgumentError as exc:
        raise ConfigFileError(f"{where}: {exc.message}") from None
    if action.choices is not None and value not in action.choices:
        choices = ", ".join(json.dumps(str(c)) for c in action.choices)
        raise _expected(where, f"one of {choices}", shown)
    return value


_KINDS: dict[type, str] = {list: "a list", dict: "a table"}


def _expected(where: str, expected: str, value: Any) -> ConfigFileError:
    got = _KINDS.get(type(value)) or _toml(value)
    return ConfigFileError(f"{where}: expected {expected}, got {got}")


class _CommandLineWins(argparse.Action):
    """Mixed into an action: on the command line, it replaces the file's
    list or count rather than add to it, and puts the other actions of its
    exclusive group back to their built-in defaults (``others``): the file
    said ``quiet = true``, the command line ``-v``: -v wins."""

    others: tuple[tuple[str, Any], ...] = ()

    def __call__(self, parser: Any, namespace: Any, values: Any, option_string: Any = None) -> None:
        for dest, default in self.others:
            setattr(namespace, dest, default)
        current = getattr(namespace, self.dest, None)  # the default itself: no -x before
        if isinstance(current, _Count) or (current is self.default and isinstance(current, list)):
            setattr(namespace, self.dest, None)  # append and count start again from None
        super().__call__(parser, namespace, values, option_string)


class ReplaceDefaultAppend(_CommandLineWins, AppendAction):
    """``append``: the command line's values replace the default list."""


class ReplaceDefaultCount(_CommandLineWins, CountAction):
    """``count``: the command line counts from 0, not from the file's count."""


def prepare(parser: Parser) -> None:
    """The command line replaces the file's values; call it before
    ``set_defaults`` (it keeps the built-in defaults).  ``-s`` appends: the
    file's settings, then the command line's, which win when applied."""
    for action in parser_actions(parser):  # the same objects stay in the groups and tables
        if type(action) is AppendAction and _key(action) != SETTINGS:
            action.__class__ = ReplaceDefaultAppend
        elif type(action) is CountAction:
            action.__class__ = ReplaceDefaultCount
    for group in exclusive_groups(parser):
        for action in group:
            if not isinstance(action, _CommandLineWins):
                kind = type(action)
                action.__class__ = type(f"Exclusive{kind.__name__}", (_CommandLineWins, kind), {})
            others = tuple((a.dest, a.default) for a in group if a is not action)
            action.others = others  # type: ignore[attr-defined]


def render_config(parser: Parser, ns: argparse.Namespace) -> str:
    """Every option's value in ``ns`` as a configuration file, ``set`` as a
    ``[set]`` table at the end; None and empty lists are left out.  Secrets
    are masked (``config/secrets.py``): the text is for a log, and a masked
    value read back is refused or fails, never used as it was."""
    lines = [
        f"# linkaudit --print-config: for {FILE}, or [{TABLE}] in {PYPROJECT}",
        "# secrets (passwords, credentials) are shown as ***: put them back to use this file",
    ]
    settings: dict[str, Any] = {}
    for key, action in _keys(parser).items():
        value = getattr(ns, action.dest, None)
        if key == SETTINGS and isinstance(action, AppendAction):
            # (NAME, VALUE) pairs: the later wins
            settings = {n: secret_free(n, v) for n, v in dict(value or []).items()}
        elif isinstance(action, StoreConstAction):
            lines.append(f"{key} = {_toml(value == action.const)}")
        elif value is not None and value != []:
            lines.append(f"{key} = {_toml(secret_free(key, value))}")
    bare = re.compile(r"[A-Za-z0-9_-]+").fullmatch  # a key that needs no quotes
    table = [f"{n if bare(n) else _toml(n)} = {_toml(t)}" for n, t in settings.items()]
    lines += ["", f"[{SETTINGS}]", *table] if table else []
    return "\n".join(lines) + "\n"


def _toml(value: Any) -> str:
    """A TOML value: JSON's text is TOML's for strings, integers, booleans
    and lists of them, but for DEL; a float's repr (inf, nan too) is TOML's."""
    if isinstance(value, float):
        return repr(value)
    return json.dumps(value, ensure_ascii=False, default=str).replace("\x7f", "\\u007f")
