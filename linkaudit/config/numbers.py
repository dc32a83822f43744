"""How every number the user gives is read: one reader for the settings
table (see ``checks.py``), finite and within bounds whatever the door (the
command's options, ``-s``, ``-a``, the configuration file, a settings
module)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

# Bounds on numbers the user gives: past them a value is a typo or an attack,
# never a wish (a delay of 1e309 seconds is "inf": the audit would hang).
MINUTE, HOUR, DAY, YEAR = 60.0, 3600.0, 86400.0, 365 * 86400.0
SIZE = 2**40  # bytes: a TiB, far above any page, sitemap or robots.txt
COUNT = 2**53  # any count: exact as a float, in JSON and in SQLite


def number(
    kind: type, minimum: float, optional: bool = False, maximum: float | None = None
) -> Callable[[Any, str], Any]:
    """A whole number or a number, at least ``minimum`` and at most
    ``maximum`` (default: ``COUNT``), always finite (None allowed when
    ``optional``: "no limit").  Every number the user gives, from every door
    (the command's options, ``-s``, ``-a``, the configuration file, a
    settings module), is read here."""
    top = COUNT if maximum is None else maximum

    def read(settings: Any, name: str) -> Any:
        value = settings.get(name)
        if value is None or value == "":
            if optional:
                return None
            raise ValueError("is missing")
        try:
            parsed = kind(value)
        except (TypeError, ValueError, OverflowError):  # int(inf) overflows
            word = "a whole number" if kind is int else "a number"
            raise ValueError(f"{value!r} is not {word}") from None
        if not math.isfinite(parsed):  # inf, nan, 1e309
            raise ValueError(f"{value!r} is not a finite number")
        if parsed < minimum:
            if parsed < 0:
                raise ValueError(f"{value!r} is negative")
            raise ValueError(f"{value!r} is too small (at least {minimum:g})")
        if parsed > top:
            raise ValueError(f"{value!r} is too large: at most {_bound(top)}")
        return parsed

    return read


def _bound(top: float) -> str:
    """``86400`` -> ``86400 (a day)``: the bound as the user reads it."""
    words = {MINUTE: "a minute", HOUR: "an hour", DAY: "a day", YEAR: "a year", SIZE: "1 TiB"}
    word = words.get(top)
    return f"{top:.16g} ({word})" if word else f"{top:.16g}"
