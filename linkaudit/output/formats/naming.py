"""A build's report, as the formats name its URLs: by their files.

A build's report names its URLs by ``file://`` URLs of its paths, or, with
``--root-url``, by its deployed URLs (``rules/names.py``): exact, for a
program.  A person editing the build wants the file: text, markdown, JUnit
and SARIF name a page of the build by its file and line
(``public/guide.html:12``) and a target inside the build by its path
(``public/missing.html``), the deployed URL beside it only when
``--root-url`` gave one (``public/missing.html (https://example.com/docs/missing.html)``).

:func:`for_reading` makes that copy of the report once, before a format
tells it, so every helper (places, groups, fix-lists, sitemap lists) names
files without knowing of builds.  A place and an entry keep the deployed
URL apart (``deployed``), for :func:`common.where` and :func:`common.target`
to put beside the file; a URL in a list names both (``path (URL)``).  The HTML
report links instead (``html/buildlinks.py``); JSON is the report as it is.

The files a report names (``file``, a place's ``source``, ``build.start``)
are relative to where the audit ran, when below it; read elsewhere
(``linkaudit show`` in another folder), they are named from there: the
folder the audit ran in is the build's ``path`` less its ``directory``.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from typing import Any

from linkaudit.output.report.records import Report
from linkaudit.rules.names import path_in_build, shown_path

# keys whose values are not URLs of the build to rename (the section that
# says how the build is named; a baseline's path; an href as written)
_KEPT = frozenset({"build", "baseline", "href"})


class BuildFiles:
    """What a build's report (its ``build`` section: ``url``, ``root_url``,
    ``directory``, ``path``) says of the build's URLs and files, from where
    the report is read now."""

    def __init__(self, build: dict[str, Any]):
        self.root: str = build["url"]
        self.deployed = bool(build.get("root_url"))
        path, directory = build.get("path"), build.get("directory")
        self.path = path if isinstance(path, str) else None
        self.cwd = _audit_folder(self.path, directory)
        self.directory = self.file(directory) if isinstance(directory, str) else None
        self.view = {**build, "directory": self.directory}

    def owns(self, url: str) -> bool:
        """A URL of the build (as its report names it)."""
        return url.startswith(self.root)

    def path_of(self, url: str) -> str | None:
        """The path a URL of the build names (``public/a.html#top``); None
        for any other URL."""
        return path_in_build(url, self.view) if self.owns(url) else None

    def absolute(self, file: str) -> str | None:
        """A file the report names, as an absolute path (None when the
        report does not say where the audit ran)."""
        if os.path.isabs(file):
            return file
        return os.path.join(self.cwd, file) if self.cwd is not None else None

    def file(self, file: str) -> str:
        """A file the report names, from the current directory: relative
        when below it, else absolute."""
        found = self.absolute(file)
        return shown_path(found) if found is not None else file


def _audit_folder(path: str | None, directory: Any) -> str | None:
    """The folder the audit ran in: the build's absolute ``path`` less its
    ``directory`` as the report names it (relative to that folder)."""
    if path is None or not isinstance(directory, str):
        return None
    if os.path.isabs(directory):
        return os.path.dirname(path)  # (any folder: the files are absolute too)
    if directory in (".", ""):
        return path
    tail = "/" + directory.strip("/")
    return (path[: -len(tail)] or "/") if path.endswith(tail) else None


def is_named(report: Report) -> bool:
    """A build's report whose URLs :func:`for_reading` names by their files."""
    build = report.get("build")
    return isinstance(build, dict) and isinstance(build.get("url"), str)


def for_reading(report: Report) -> Report:
    """``report`` with its build's URLs named by their files (a report of a
    site, or of a build without a ``build`` section, as it is)."""
    if not is_named(report):
        return report
    return _Reading(BuildFiles(report["build"])).value(report)


def namer(report: Report) -> Callable[[str], str]:
    """A URL of ``report`` as a target is named in words: a build's by its
    path (and deployed URL), any other as it is (SARIF's messages, which
    locate by the report's own places)."""
    if not is_named(report):
        return str
    return _Reading(BuildFiles(report["build"])).name


def file_path(file: str, report: Report) -> str:
    """A build's ``file`` from where the report is read now."""
    return BuildFiles(report["build"]).file(file) if is_named(report) else file


def repository_path(file: str, report: Report) -> str:
    """A build's ``file`` (or a source file) as code scanning locates it:
    relative to the root of the git work tree the file is in (GitHub
    annotates a file of the repository at the commit, by its path from the
    root); outside any, the file as the report names it."""
    path = os.path.abspath(file_path(file, report))
    root = _work_tree(os.path.dirname(path))
    if root is None:
        return file_path(file, report)
    return os.path.relpath(path, root).replace(os.sep, "/")


@functools.lru_cache(maxsize=64)
def _work_tree(directory: str) -> str | None:
    """The git work tree ``directory`` is in (a ``.git`` folder, or a
    worktree's ``.git`` file), looked for upward; None outside any."""
    here = directory
    while True:
        if os.path.exists(os.path.join(here, ".git")):
            return here
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


class _Reading:
    def __init__(self, files: BuildFiles):
        self.files = files

    def name(self, url: str) -> str:
        """A URL as a target is named: its path in the build, with the
        deployed URL beside it when there is one; any other as it is."""
        path = self.files.path_of(url)
        if path is None:
            return url
        return f"{path} ({url})" if self.files.deployed else path

    def value(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.name(value)
        if isinstance(value, list):
            return [self.value(v) for v in value]
        if isinstance(value, dict):
            return self.object(value)
        return value

    def object(self, value: dict[str, Any]) -> dict[str, Any]:
        out = {k: (v if k in _KEPT else self.value(v)) for k, v in value.items()}
        # a file (a place's, an entry's, a source's) from where it is read now
        file = value.get("file") if isinstance(value.get("file"), str) else None
        if file is not None:
            out["file"] = file = self.files.file(file)
        # a page or file of the build by its file (``/`` and ``/index.html``
        # are one file): a place (a referrer, a fix's page) and an entry
        # keep the deployed URL apart (``deployed``), for the formats to put
        # beside the line or the target (``common.where``, ``common.target``)
        place = "line" in value or "outcome" in value  # (a place, or an entry)
        for key in ("page", "url"):
            url = value.get(key)
            if not isinstance(url, str):
                continue
            named = file or self.files.path_of(url)
            if named is None:
                continue
            if place:
                out[key] = named
                if self.files.deployed:
                    out["deployed"] = url
            else:
                out[key] = f"{named} ({url})" if self.files.deployed else named
            break
        return out
