"""Where a path of a build directory leads, as a static host would find
it, with the symbolic links followed only while they stay inside the build
(``linkaudit/localbuild/static.py`` answers URLs with it).

Two things a plain ``os.path.realpath`` gets wrong for an audit:

- a link out of the build is known by its own text (``readlink``), never
  resolved: nothing outside the directory is looked at, so whether a path
  on the machine exists, or where it leads (``/proc/self`` is a process
  id), never shows in the report.  A link whose text leads into ``/proc``,
  ``/sys`` or ``/dev`` is no file of any site: missing (a 404);
- a directory reached again through a link (``a -> .``) would make the
  build endless (``/a/a/a/...``).  The directories a URL path passes
  through are known by device and inode; one that comes back on its own
  path is not followed (missing), as ``tar --dereference`` leaves it out
  of a GitHub Pages artifact ("File system loop detected").
"""

from __future__ import annotations

import functools
import itertools
import os
import posixpath
import stat
from dataclasses import dataclass

MAX_LINKS = 40  # Linux's bound on a chain of links (ELOOP beyond)
SYSTEM = ("/proc", "/sys", "/dev")  # the kernel's, never a site's files

DIR, FILE, OUTSIDE, MISSING = "dir", "file", "outside", "missing"


@dataclass(frozen=True, slots=True)
class Place:
    """A directory or a regular file inside the build (``real``: its path
    without links; ``keys``: device and inode of each directory the path
    went through, the root first), a link out (``text``: where it leads,
    as the link says, with the rest of the path; ``real``: the same made
    absolute, lexically), or missing (nothing, a loop, a device, a FIFO,
    a link into the kernel's files)."""

    kind: str
    real: str = ""
    text: str = ""
    keys: tuple[tuple[int, int], ...] = ()


NOWHERE = Place(MISSING)


def _inside(path: str, base: str) -> bool:
    return path == base or path.startswith(base + os.sep)


def _shown(text: str) -> str:
    """A link's text as the report can carry it (a name that is not UTF-8
    gets U+FFFD, on both routes alike)."""
    return os.fsencode(text).decode("utf-8", "replace")


def _out(text: str, leads_to: str, rest: list[str]) -> Place:
    """A link out: ``text`` is the link's own, ``leads_to`` where it points
    (lexically, never looked at), ``rest`` the path's components after it."""
    leads_to = posixpath.normpath(posixpath.join(leads_to, *rest))
    if any(_inside(leads_to, system) for system in SYSTEM):
        return NOWHERE
    return Place(OUTSIDE, leads_to, _shown(posixpath.join(text, *rest) if rest else text))


@functools.lru_cache(maxsize=16)
def _root(root: str) -> Place:
    """The build's directory (a ``realpath`` once per audit)."""
    real = os.path.realpath(root)
    try:
        st = os.stat(real)
    except OSError:
        return NOWHERE
    return Place(DIR, real, keys=((st.st_dev, st.st_ino),))


def _step(base: str, at: str, name: str) -> Place:
    """``name`` in the directory ``at`` (a real path inside ``base``), its
    links followed while they stay inside the build."""
    # components still to walk, each with the index of the link whose text
    # it came from (-1: the path asked for)
    pending: list[tuple[str, int]] = [(name, -1)]
    texts: list[str] = []
    current, found = at, None
    while pending:
        part, origin = pending.pop(0)
        if part in ("", "."):
            continue
        if part == "..":
            if current == base:  # a link's text climbs out of the build
                if origin < 0:
                    return NOWHERE  # (a path asked for is normalized: never)
                # the rest of the same link's text comes first, then the path's
                mine = len(list(itertools.takewhile(origin.__eq__, (o for _p, o in pending))))
                own, rest = pending[:mine], pending[mine:]
                leads_to = posixpath.normpath(posixpath.join(base, "..", *(p for p, _ in own)))
                if not _inside(leads_to, base):
                    return _out(texts[origin], leads_to, [p for p, _o in rest])
                # back in by its own name (``../public/x``): on from the root
                again = [(p, origin) for p in leads_to[len(base) :].split("/")]
                current, found, pending = base, None, again + rest
                continue
            current, found = os.path.dirname(current), None
            continue
        path = os.path.join(current, part)
        try:
            st = os.lstat(path)
        except OSError:
            return NOWHERE
        if stat.S_ISLNK(st.st_mode):
            if len(texts) >= MAX_LINKS:
                return NOWHERE
            text = os.readlink(path)
            texts.append(text)
            left = [p for p, _o in pending]
            if os.path.isabs(text):
                target = posixpath.normpath(text)
                if not _inside(target, base):
                    return _out(text, target, left)
                current, found, text = base, None, target[len(base) :]
            pending[:0] = [(p, len(texts) - 1) for p in text.split("/")]
            continue
        if pending and not stat.S_ISDIR(st.st_mode):
            return NOWHERE  # a file taken for a directory
        current, found = path, st
    if found is None:  # ended on "..": the directory climbed to
        try:
            found = os.stat(current)
        except OSError:
            return NOWHERE
    key = (found.st_dev, found.st_ino)
    if stat.S_ISDIR(found.st_mode):
        return Place(DIR, current, keys=(key,))
    if stat.S_ISREG(found.st_mode):
        return Place(FILE, current, keys=(key,))
    return NOWHERE  # a FIFO, a socket, a device: nothing a host serves


def _within(parent: Place, name: str, base: str) -> Place:
    """``name`` in the directory ``parent`` of the URL's path: a directory
    already on the path is a loop, not followed."""
    if parent.kind == OUTSIDE:  # (a link to "/": its "proc" is the kernel's too)
        return _out(parent.text, parent.real, [name])
    if parent.kind != DIR:
        return NOWHERE
    found = _step(base, parent.real, name)
    if found.kind != DIR:
        return found
    if found.keys[0] in parent.keys:
        return NOWHERE
    return Place(DIR, found.real, keys=parent.keys + found.keys)


# The directories of URL paths already resolved (a walk asks for every file
# of the build): ``(root, relative) -> Place``, a missing one never kept (it
# may be made while the server runs); emptied past 4,096 entries
_DIRECTORIES: dict[tuple[str, str], Place] = {}


def _still(place: Place) -> bool:
    """A directory resolved earlier is still the one its real path leads
    to: a component of that path replaced since by a link out of the build
    would lead elsewhere (another device and inode)."""
    if place.kind != DIR:  # a link out: its text, never looked at
        return True
    try:
        st = os.stat(place.real)
    except OSError:
        return False
    return stat.S_ISDIR(st.st_mode) and (st.st_dev, st.st_ino) == place.keys[-1]


def _directory(root: str, relative: str) -> Place:
    """A directory of the URL's path."""
    if not relative:
        return _root(root)
    found = _DIRECTORIES.get((root, relative))
    if found is not None and not _still(found):  # changed since: resolved again
        found = None
    if found is None:
        head, name = posixpath.split(relative)
        found = _within(_directory(root, head), name, _root(root).real)
        if found.kind != MISSING:
            if len(_DIRECTORIES) >= 4096:
                _DIRECTORIES.clear()
            _DIRECTORIES[(root, relative)] = found
    return found


def resolve(root: str, relative: str) -> Place:
    """Where ``relative`` (a normalized path under the build directory
    ``root``, ``/``-separated, no ``..``; empty for the root) leads."""
    if not relative:
        return _root(root)
    head, name = posixpath.split(relative)
    return _within(_directory(root, head), name, _root(root).real)
