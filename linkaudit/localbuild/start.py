"""Where the audit of a build directory starts (``linkaudit DIR``): the
page ``--start PATH`` names, else ``DIR/index.html``, else the shallowest
index page, else the shallowest page.  The build's root stays ``DIR`` in
every case: the start page is only where the walk begins (its links that
climb to ``../`` and stay inside ``DIR`` are the build's own).

"Shallowest": the fewest folders below ``DIR``; among index pages of one
depth ``index.html`` before ``index.htm``, then the path's order.  The
search lists one folder level at a time (``os.scandir``, no listing of
the whole tree), skips what a static host never serves (dotfiles,
``.git/``) and symbolic links to folders (a loop would be endless), and
goes no deeper than a URL path may (``LINKAUDIT_MAX_PATH_SEGMENTS``' 32).
A page is what the static-host rules serve as ``text/html``
(``static.py``)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple
from urllib.parse import quote

from linkaudit.localbuild.serving import content_type
from linkaudit.localbuild.static import locate

INDEX_NAMES = ("index.html", "index.htm")  # in order of preference
MAX_LEVELS = 32
# how the start page was chosen (the report's ``build.start_from``)
GIVEN, ROOT_INDEX, SHALLOWEST_INDEX, SHALLOWEST_PAGE, NO_PAGE = (
    "--start",
    "index.html",
    "shallowest index page",
    "shallowest page",
    "no page",
)


class StartPage(NamedTuple):
    """A build's start page: its path inside the build (``/``-separated;
    a folder's index page is named by its folder, ``en/``; ``""`` is the
    root), and how it was chosen."""

    path: str
    chosen: str


def is_page_name(name: str) -> bool:
    """A file a static host serves as ``text/html``, by its name."""
    return content_type(name).partition(";")[0] == "text/html"


def _served(root: str, relative: str) -> bool:
    """The static-host rules serve this path of the build as a file of its own."""
    found = locate(root, "/" + quote(relative))
    return found.status == 200 and found.file is not None


def _public(name: str) -> bool:
    return not name.startswith(".") or name == ".well-known"


def _folders(root: str, folder: str) -> list[str]:
    """The folders inside ``folder`` (a path inside the build), links to
    folders and private ones left out, in path order."""
    found = []
    try:
        with os.scandir(os.path.join(root, folder)) as listing:
            for entry in listing:
                if _public(entry.name) and entry.is_dir(follow_symlinks=False):
                    found.append(folder + entry.name + "/")
    except OSError:  # unreadable: nothing in it
        pass
    return sorted(found)


def _first_page(root: str, folder: str) -> str | None:
    """The first page of ``folder`` in name order, its listing read
    again rather than kept (a folder of a million pages is a million names)."""
    passed: set[str] = set()  # first in order, but not served (unreadable)
    while len(passed) <= 100:
        try:
            with os.scandir(os.path.join(root, folder)) as listing:
                name = min(
                    (
                        e.name
                        for e in listing
                        if _public(e.name)
                        and e.name not in passed
                        and is_page_name(e.name)
                        and not e.is_dir()
                    ),
                    default=None,
                )
        except OSError:
            return None
        if name is None:
            return None
        if _served(root, folder + name):
            return folder + name
        passed.add(name)
    return None


def find_start(root: str) -> StartPage:
    """Where an audit of ``root`` starts when no ``--start`` is given."""
    if _served(root, "index.html"):
        return StartPage("", ROOT_INDEX)
    level = [""]
    page: str | None = None  # the first page of the shallowest level that has one
    for _depth in range(MAX_LEVELS):
        for name in INDEX_NAMES:
            for folder in level:
                if _served(root, folder + name):
                    # a folder's index.html is its folder's URL, as links name it
                    index = folder if name == "index.html" else folder + name
                    return StartPage(index, SHALLOWEST_INDEX)
        if page is None:
            page = next(filter(None, (_first_page(root, folder) for folder in level)), None)
        level = [sub for folder in level for sub in _folders(root, folder)]
        if not level:
            break
    if page is not None:
        return StartPage(page, SHALLOWEST_PAGE)
    return StartPage("", NO_PAGE)


def given_start(root: str, typed: str) -> str:
    """The page ``--start`` names (a path as typed, or inside ``root``), as
    its path inside the build; a ``ValueError`` in words when it is outside
    the build or is not a page the build serves."""
    if os.path.isabs(typed) or os.path.lexists(typed):
        path = typed
    else:
        path = os.path.join(root, typed)
    if not os.path.lexists(path):
        raise ValueError(f"{typed}: no such file in the build directory {root}")
    base = os.path.realpath(root)
    real = os.path.realpath(path)
    if real != base and not real.startswith(base.rstrip(os.sep) + os.sep):
        raise ValueError(f"{typed} is outside the build directory {root}")
    relative = Path(os.path.relpath(real, base)).as_posix()
    relative = "" if relative == "." else relative
    if os.path.isdir(real):
        folder = relative + "/" if relative else ""
        if _served(root, folder + "index.html"):
            return folder
        raise ValueError(f"{typed} is a folder without an index.html: name a page in it")
    if not (is_page_name(relative) and _served(root, relative)):
        raise ValueError(f"{typed} is not a page the build serves (an HTML file, readable)")
    if relative.rpartition("/")[2] == "index.html":  # named by its folder, as links name it
        return relative[: -len("index.html")]
    return relative
