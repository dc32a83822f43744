"""How much a format shows: the options ``linkaudit`` and ``linkaudit
show`` share (``--max-referrers``, ``--max-bytes``, ``--junit-all``), and
the :class:`Options` they make."""

from __future__ import annotations

import argparse
from typing import Any, Protocol

from linkaudit.output.formats.places import MAX_BYTES, MAX_REFERRERS, Options

# a markdown cap below this could not hold the title and the counts
MIN_BYTES = 1000


class _Options(Protocol):
    """What options are added to: a parser, or a group of one."""

    def add_argument(self, *args: Any, **kwargs: Any) -> argparse.Action: ...


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} is negative")
    return value


def _size(text: str) -> int:
    value = _count(text)
    if value < MIN_BYTES:
        raise argparse.ArgumentTypeError(f"{text!r} is less than {MIN_BYTES}")
    return value


def add_view_options(p: _Options) -> None:
    """The options of how much a format shows, added to ``p``."""
    p.add_argument(
        "--max-referrers",
        metavar="N",
        type=_count,
        default=MAX_REFERRERS,
        help="pages printed per finding (text, markdown, JUnit), then how many more; "
        "-v prints them all, the JSON report has them all",
    )
    p.add_argument(
        "--max-bytes",
        metavar="N",
        type=_size,
        default=MAX_BYTES,
        help="markdown: at most N bytes (GitHub refuses a comment over 65,536 "
        "characters), whole rows, then 'and N more: see the report'",
    )
    p.add_argument(
        "--junit-all",
        action="store_true",
        help="JUnit: a test case for every URL (default: only those that fail or "
        "could not be checked)",
    )


def view_options(ns: argparse.Namespace) -> Options:
    """The :class:`Options` the command line asks for (``-v``: every place;
    the report's file as the user named it: ``linkaudit``'s ``--report``,
    ``linkaudit show REPORT``, ``linkaudit report --report``)."""
    return Options(
        max_referrers=None if getattr(ns, "verbose", 0) else ns.max_referrers,
        max_bytes=ns.max_bytes,
        junit_all=ns.junit_all,
        report=getattr(ns, "report", None),
    )
