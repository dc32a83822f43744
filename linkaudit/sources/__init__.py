"""A build audit's findings on the lines people edit: each place of a
finding in a built page mapped to the source file and line it was built
from (``--sources DIR``, or the layout of MkDocs, Sphinx, Hugo or Jekyll
found beside the build), and ``--changed-since REF`` (the findings whose
source lines a change adds or modifies).  docs/guide/sources.md says it for
users; the modules, in the order of the data:

- ``layout.py``: where the sources are (detection, ``--sources``);
- ``pages.py``: which source file made a built page;
- ``built.py``: a built page's links read again, with their words;
- ``markdown.py``, ``rest.py``: a source file's links (``links.py``);
- ``match.py``: which source link made which built link, strictly;
- ``templates.py``: a template's link, to the theme file that writes it;
- ``places.py``: the report's places mapped (``SourcePlaces``);
- ``changes.py``: the lines a change adds or modifies (git).
"""

from __future__ import annotations

import os

from linkaudit.sources.changes import Change, ChangeError, changed_since
from linkaudit.sources.layout import Layout, detect, given
from linkaudit.sources.places import BuildFiles, SourcePlaces

__all__ = [
    "Change",
    "ChangeError",
    "Layout",
    "SourcePlaces",
    "changed_since",
    "find_layout",
    "source_places",
]


def find_layout(build: str, directories: list[str], detecting: bool = True) -> Layout | None:
    """The build's sources: the directories given (with the rules of the
    tool detected, if one), else the layout detected; None: none."""
    found = detect(build, os.getcwd()) if detecting else None
    if directories:
        return given(directories, found, build)
    return found


def source_places(
    files: BuildFiles | None,
    directories: list[str],
    changed: str | None = None,
    detecting: bool = True,
) -> SourcePlaces | None:
    """The mapper of a build audit's places (None: no build, or no sources
    given nor found).  Raises :class:`ChangeError` for a REF that cannot be
    compared with (checked with the configuration already)."""
    if files is None:
        return None
    layout = find_layout(files.root, directories, detecting)
    if layout is None:
        return None
    change = changed_since(changed, os.getcwd()) if changed else None
    return SourcePlaces(layout, files, change)
