"""A machine that seemed offline, in words: the first line of every format
(text, markdown, the HTML report's lead, JUnit's audit case, SARIF's tool
notification, GitHub's first annotation) when the report's ``offline``
section is there (``output/report/offline.py``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from linkaudit.output.formats.common import plural
from linkaudit.output.report.records import Report

SKIP_FAR = "--skip-far"


def _count(section: dict[str, Any], key: str) -> int:
    value = section.get(key)
    return value if type(value) is int and value >= 0 else 0


def offline_line(report: Report, quote: Callable[[str], str] = str) -> str:
    """``linkaudit: this machine seems offline: no far host answered and 5
    far domains failed at name lookup or connection; their 12 links are
    unchecked ("no network"), not broken: audit them from a machine with a
    network, or leave far links out with --skip-far``; "" when the report
    has no ``offline`` section.  ``quote``: a format's way with an option."""
    section = report.get("offline")
    if not isinstance(section, dict):
        return ""
    domains = plural(_count(section, "failed_domains"), "far domain")
    links = plural(_count(section, "urls"), "link")
    return (
        f"linkaudit: this machine seems offline: no far host answered and {domains} failed"
        f' at name lookup or connection; their {links} are unchecked ("no network"), not'
        " broken: audit them from a machine with a network, or leave far links out with"
        f" {quote(SKIP_FAR)}"
    )


def sarif_invocations(report: Report) -> dict[str, Any]:
    """A SARIF run's ``invocations``: the offline line as a tool execution
    notification (a warning: code scanning shows it on the tool's status,
    not as an alert of the code); nothing when the report has none."""
    line = offline_line(report)
    if not line:
        return {}
    notification = {"level": "warning", "descriptor": {"id": "offline"}, "message": {"text": line}}
    return {
        "invocations": [{"executionSuccessful": True, "toolExecutionNotifications": [notification]}]
    }
