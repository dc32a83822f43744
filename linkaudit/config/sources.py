"""``--sources DIR`` and ``--changed-since REF`` checked before the audit:
directories that exist, an audit of a build directory, and a REF git can
compare with; one line for each error."""

from __future__ import annotations

import os
from typing import Any

from linkaudit.config.checks import text


def source_directories(settings: Any, name: str) -> list[str]:
    """Directories that exist, as the user named them."""
    found = []
    for value in settings.getlist(name):
        value = str(value)
        if not os.path.isdir(value):
            what = "is not a directory" if os.path.exists(value) else "does not exist"
            raise ValueError(f"{value} {what}")
        found.append(os.path.normpath(value))
    return found


def changed_ref(settings: Any, name: str) -> str | None:
    """A git revision, as given (git itself is asked once the other
    settings are known: ``check_sources``)."""
    value = text(settings, name).strip()
    return value or None


def check_sources(values: dict[str, Any], labels: dict[str, str]) -> str | None:
    """The error of ``--sources``/``--changed-since`` together with the
    rest of the configuration; None: fine."""
    sources = labels.get("LINKAUDIT_SOURCES", "sources")
    changed = labels.get("LINKAUDIT_CHANGED_SINCE", "changed_since")
    build = values["LINKAUDIT_LOCAL_DIR"]
    if values["LINKAUDIT_SOURCES"] and not build:
        return f"{sources}: maps the pages of a build directory: audit a directory, not a URL"
    ref = values["LINKAUDIT_CHANGED_SINCE"]
    if not ref:
        return None
    if not build:
        return f"{changed}: needs the build directory's sources: audit a directory, not a URL"
    from linkaudit.sources import ChangeError, changed_since, find_layout

    try:
        changed_since(ref, os.getcwd())
    except ChangeError as exc:
        return str(exc)
    if find_layout(build, values["LINKAUDIT_SOURCES"], values["LINKAUDIT_DETECT_SOURCES"]) is None:
        return (
            f"{changed}: no sources were found for {build} (no mkdocs.yml, Sphinx conf.py, "
            f"Hugo or Jekyll configuration beside it): give {sources} DIR"
        )
    return None
