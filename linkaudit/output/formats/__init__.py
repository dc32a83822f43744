"""The report, told for a reader: a person (text), a CI comment (markdown),
a CI dashboard (JUnit XML), a code-scanning tool (SARIF 2.1.0), or a program
(JSON, the report itself).  Each format is a module with one function that
takes the report (and the :class:`~linkaudit.output.formats.places.Options`
of how much to show: ``--max-referrers``, ``--max-bytes``, ``--junit-all``)
and returns the text to print; a new format is a module here and a line in
``_FUNCTIONS``.

A format's module is imported when it is used, not when the command starts:
``linkaudit --help`` and an audit printing text import none of the others
(the HTML page, SARIF, JUnit XML, markdown)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from importlib import import_module
from typing import Any

# format -> the function of linkaudit.output.formats.<format> that tells it
_FUNCTIONS = {
    "text": "as_text",
    "json": "as_json",
    "markdown": "as_markdown",
    "junit": "as_junit",
    "sarif": "as_sarif",
    "html": "as_html",
    "github": "as_github",
}


class _Formats(Mapping[str, "Callable[..., str]"]):
    """The formats by name; a format's module is imported on first use."""

    def __getitem__(self, name: str) -> Callable[..., str]:
        if name not in _FUNCTIONS:
            raise KeyError(name)
        return getattr(import_module(f"{__name__}.{name}"), _FUNCTIONS[name])

    def __iter__(self) -> Iterator[str]:
        return iter(_FUNCTIONS)

    def __len__(self) -> int:
        return len(_FUNCTIONS)


FORMATS: Mapping[str, Callable[..., str]] = _Formats()


def __getattr__(name: str) -> Any:
    if name == "summary_text":  # imported on use, as the formats are
        from linkaudit.output.formats.text import summary_text

        return summary_text
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["FORMATS", "summary_text"]
