"""The report itself, as JSON (one URL entry per line)."""

from __future__ import annotations

from typing import Any

from linkaudit.output.report.atomic import dumps_report


def as_json(report: dict[str, Any], options: object = None) -> str:
    # the report whole: every place of every finding
    return dumps_report(report)
