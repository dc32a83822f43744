"""A report's file: written whole or not at all (a temporary file beside
it, then a rename), with the user's umask, its entries one a line."""

from __future__ import annotations

import functools
import os
import tempfile
from collections.abc import Callable
from typing import Any

from linkaudit.output.jsontext import json_pieces, json_text
from linkaudit.output.report.records import Report


def dumps_report(report: Report) -> str:
    """The report as JSON with one URL entry per line.

    ``json.dumps(indent=...)`` runs the pure-Python encoder: on a 150,000-URL
    report that took seconds.  Entries are encoded compactly by the C encoder
    and joined, which also keeps a report greppable (one URL, one line).
    """
    head = {k: v for k, v in report.items() if k != "urls"}
    text = json_text(head, indent=1)
    if "urls" not in report:
        return text
    entries = ",\n  ".join(json_text(e) for e in report["urls"])
    body = f'"urls": [\n  {entries}\n ]' if entries else '"urls": []'
    return f"{text[:-2]},\n {body}\n}}" if head else f"{{\n {body}\n}}"


def write_json_atomic(path: str, data: dict[str, Any]) -> None:
    """Write to a temporary file beside ``path``, then rename: a reader never
    sees half a report, and a failed write leaves the old file alone."""

    def write(fh: Any) -> None:
        fh.write(dumps_report(data))
        fh.write("\n")

    write_atomically(path, write)


@functools.cache
def umask() -> int:
    """The process's umask, read without changing it where Linux tells it
    (``os.umask`` can only be read by setting it, a race with threads)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def directory_of(path: str) -> str:
    return os.path.dirname(os.path.abspath(path))


def write_atomically(path: str, write: Callable[[Any], None]) -> None:
    fd, tmp = tempfile.mkstemp(prefix=".linkaudit-", suffix=".tmp", dir=directory_of(path))
    try:
        # mkstemp makes it 0600; a report is the user's file as any other
        # they write (0644 with the usual umask of 022)
        os.fchmod(fd, 0o666 & ~umask())
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            write(fh)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def write_head(fh: Any, report: dict[str, Any]) -> None:
    """``json_text(report, indent=1)`` less its closing ``"\\n}"``, written
    a piece at a time: made whole, that text and the pieces it was joined
    from were the report's peak (the groups' every referrer, at 50,000
    URLs about 12 MB; bench/README.md, "A million URLs")."""
    held = ""  # the last two characters: the closing "\n}" once all is made
    for piece in json_pieces(report, indent=1):
        text = held + piece
        fh.write(text[:-2])
        held = text[-2:]
