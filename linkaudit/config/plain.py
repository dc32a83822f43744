"""Settings without Scrapy: what ``Config.build`` reads, for an audit that
never starts a crawl (``linkaudit DIR`` read as files: importing Scrapy
alone costs about a third of a second there).

The getters are those of Scrapy's ``BaseSettings``, rule for rule
(``getbool`` takes 0/1, True/False and their strings; ``getlist`` splits a
string on commas; ``getdict`` reads a string as JSON), and a value is
replaced only by one of equal or higher priority; ``tests/unit/test_plain_settings.py``
reads every option both ways and compares.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

# Scrapy's SETTINGS_PRIORITIES
PRIORITIES = {"default": 0, "command": 10, "addon": 15, "project": 20, "spider": 30, "cmdline": 40}


class PlainSettings:
    def __init__(self, values: Mapping[str, Any] | None = None, priority: str = "project"):
        self._values: dict[str, tuple[Any, int]] = {}
        if values:
            self.setdict(values, priority)

    def set(self, name: str, value: Any, priority: int | str = "project") -> None:
        level = PRIORITIES[priority] if isinstance(priority, str) else priority
        held = self._values.get(name)
        if held is None or level >= held[1]:
            self._values[name] = (value, level)

    def setdict(self, values: Mapping[str, Any], priority: int | str = "project") -> None:
        for name, value in values.items():
            self.set(name, value, priority)

    def update(self, other: PlainSettings | Mapping[str, Any], priority: str = "project") -> None:
        if isinstance(other, PlainSettings):
            for name, (value, level) in other._values.items():
                self.set(name, value, level)
        else:
            self.setdict(other, priority)

    def __contains__(self, name: object) -> bool:
        return name in self._values

    def __getitem__(self, name: str) -> Any:
        held = self._values.get(name)
        return None if held is None else held[0]

    def items(self) -> Iterator[tuple[str, Any]]:
        for name, (value, _level) in self._values.items():
            yield name, value

    def get(self, name: str, default: Any = None) -> Any:
        value = self[name]
        return value if value is not None else default

    def getbool(self, name: str, default: bool = False) -> bool:
        got = self.get(name, default)
        try:
            return bool(int(got))
        except ValueError:
            if got in {"True", "true"}:
                return True
            if got in {"False", "false"}:
                return False
            raise ValueError(
                "Supported values for boolean settings are 0/1, True/False, '0'/'1', "
                "'True'/'False' and 'true'/'false'"
            ) from None

    def getint(self, name: str, default: int = 0) -> int:
        return int(self.get(name, default))

    def getfloat(self, name: str, default: float = 0.0) -> float:
        return float(self.get(name, default))

    def getlist(self, name: str, default: list[Any] | None = None) -> list[Any]:
        value = self.get(name, default or [])
        if not value:
            return []
        if isinstance(value, str):
            value = value.split(",")
        return list(value)

    def getdict(self, name: str, default: dict[Any, Any] | None = None) -> dict[Any, Any]:
        value = self.get(name, default or {})
        if isinstance(value, str):
            value = json.loads(value)
        return dict(value)
