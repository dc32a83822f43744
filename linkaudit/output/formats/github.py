"""The report as GitHub Actions annotations: one workflow command a line
(``::error file=F,line=L,title=T::message``), which a step's log turns into
an annotation on the file and line of the run's diff.

The annotations are the SARIF results (``sarif.py``) told another way, so
both name the same place: a build's finding at the source file and line it
was built from when the report knows it (``--sources``), else the built
file; a page of a site by its URL, which GitHub cannot place on a file (the
annotation then belongs to the run, with the page in its message).  Levels
are SARIF's: ``error`` for a broken link or a missing fragment, ``warning``
for a symbolic link out of the build, ``notice`` for the rest.

GitHub shows at most ten annotations of each level a step (fifty a job) and
drops the rest without a word: errors come first, and a last ``notice``
says how many of each level there are.

Escaping follows the runner's rules (``toolkit/packages/core/src/command.ts``):
in a message ``%``, CR and LF are percent-encoded; in a property ``:`` and
``,`` too, so no value from a page can end a command or add a property.
"""

from __future__ import annotations

import json
import re
from typing import Any

from linkaudit.output.formats.common import Report
from linkaudit.output.formats.offline import offline_line
from linkaudit.output.formats.sarif import as_sarif

_LEVELS = {"error": "error", "warning": "warning", "note": "notice", "none": "notice"}
_ORDER = {"error": 0, "warning": 1, "notice": 2}
# what each rule is, as the annotation's title
_TITLES = {
    "broken-link": "Broken link",
    "missing-fragment": "Missing fragment",
    "symlink-out": "Symbolic link out of the build",
    "orphan-page": "Page no link reaches",
    "redirected-link": "Link to a redirect",
    "bot-wall": "Behind a bot wall",
    "app-shell": "Built by JavaScript",
}
# SARIF's own escapes in message text (sarifplaces.message), undone
_SARIF_UNESCAPE = re.compile(r"\\([\\\[\]])|\{\{|\}\}")


def as_github(report: Report, options: object = None) -> str:
    """Workflow commands, one an annotation, errors first (module doc)."""
    sarif = json.loads(as_sarif(report, options))
    lines = []
    for run in sarif["runs"]:
        for result in run["results"]:
            lines.append(_annotation(result))
    lines.sort(key=lambda line: _ORDER[line[0]])
    out = [line for _level, line in lines]
    offline = offline_line(report)  # a machine that seems offline: the first annotation
    if offline:
        out.insert(0, f"::warning title={_property('linkaudit: offline')}::{_data(offline)}")
    counts = {level: sum(1 for lv, _l in lines if lv == level) for level in _ORDER}
    said = ", ".join(f"{n:,} {level}s" for level, n in counts.items() if n) or "nothing to annotate"
    out.append(f"::notice title=linkaudit::{_data('annotations: ' + said)}")
    return "\n".join(out)


def _annotation(result: dict[str, Any]) -> tuple[str, str]:
    level = _LEVELS.get(result.get("level", "warning"), "notice")
    rule_id = result.get("ruleId", "")
    title = _TITLES.get(rule_id) or rule_id or "linkaudit"
    text = _unescape(result["message"]["text"])
    props = [f"title={_property(title)}"]
    first = (result.get("locations") or [{}])[0]
    location = first.get("physicalLocation", {})
    # the place's own words (the built file a source line was built into,
    # a redirect's hop), what the result's message does not say already
    notes = _unescape(first.get("message", {}).get("text", "")).split("; ")
    text += "".join(f"; {note}" for note in notes if note and note not in text)
    uri = location.get("artifactLocation", {}).get("uri")
    if uri and "://" not in uri:  # a file GitHub can place; a URL stays in the message
        props.insert(0, f"file={_property(uri)}")
        line = location.get("region", {}).get("startLine")
        if isinstance(line, int):
            props.insert(1, f"line={line}")
    elif uri:
        text = f"{uri}: {text}"
    return level, f"::{level} {','.join(props)}::{_data(text)}"


def _unescape(text: str) -> str:
    return _SARIF_UNESCAPE.sub(lambda m: m.group(1) or m.group(0)[0], text)


def _data(value: str) -> str:
    """A command's message: ``%``, CR and LF percent-encoded."""
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(value: str) -> str:
    """A command's property value: as a message, and ``:`` and ``,``."""
    return _data(value).replace(":", "%3A").replace(",", "%2C")
