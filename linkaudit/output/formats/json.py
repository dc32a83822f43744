"""The report itself, as JSON (one URL entry per line)."""

from __future__ import annotations

from linkaudit.output.report.atomic import dumps_report
from linkaudit.output.report.records import Report


def as_json(report: Report, options: object = None) -> str:
    # the report whole: every place of every finding
    return dumps_report(report)
