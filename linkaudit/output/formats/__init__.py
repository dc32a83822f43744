"""The report, told for a reader: a person (text), a CI comment (markdown),
a CI dashboard (JUnit XML), a code-scanning tool (SARIF 2.1.0), or a program
(JSON, the report itself).  Each format is a module with one function that
takes the report and returns the text to print; a new format is a module
here and a line in ``FORMATS``."""

from __future__ import annotations

from collections.abc import Callable

from linkaudit.output.formats.common import Report
from linkaudit.output.formats.html import as_html
from linkaudit.output.formats.json import as_json
from linkaudit.output.formats.junit import as_junit
from linkaudit.output.formats.markdown import as_markdown
from linkaudit.output.formats.sarif import as_sarif
from linkaudit.output.formats.text import as_text, summary_text

FORMATS: dict[str, Callable[[Report], str]] = {
    "text": as_text,
    "json": as_json,
    "markdown": as_markdown,
    "junit": as_junit,
    "sarif": as_sarif,
    "html": as_html,
}

__all__ = ["FORMATS", "summary_text"]
