"""What a static host answers for a URL path of a build directory: one
function, used by both routes of ``linkaudit DIR`` (the directory's HTTP
server, ``linkaudit/localbuild/directory.py``, and the download handler that reads
the files without a socket, ``linkaudit/localbuild/handler.py``), so that
both routes give the same report.

The rules are those of GitHub Pages, Netlify, Cloudflare Pages and
``python -m http.server``: ``/dir/`` is ``dir/index.html``, ``/dir`` of a
directory is a 301 to ``/dir/``, ``/page`` is ``page.html`` when there is no
``page`` (clean URLs), a missing file is a 404 with the site's own
``404.html`` when it has one.  A path outside ``base_path`` (the path of
``--root-url``) is a 404, except the base itself without its slash (301).

A symbolic link is followed while its target is inside the directory
(``linkaudit/localbuild/paths.py``).  One whose target lies outside it (Debian's
Sphinx builds link ``_static/jquery.js`` to ``/usr/share/javascript/``) is
never read, nor resolved, but it is no 404 either: any web server on the
machine would serve it.  It is answered ``outside``: a 200 without a body,
whether its target exists or not, which the audit reports ``ok`` with a
warning that gives the link's own text (a copy deployed without that
target would break).  A link into ``/proc``, ``/sys`` or ``/dev``, and a
directory that comes back on its own path (``a -> .``), are 404s.

Never served, on any route (a 404, the file not even looked up): a path
with a dotfile or dot-directory in it (``.git/``, ``.env``, ``.htpasswd``),
the way GitHub Pages and most hosts' defaults keep them private, except
``.well-known/`` (RFC 8615: published on purpose).  A file the audit cannot
read (its permissions) is a 404 too, found before it is opened, so the
walk, which never opens a file that is no page, answers it as the routes
that open every file do.
"""

from __future__ import annotations

import os
import posixpath
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

from linkaudit.localbuild.paths import DIR, FILE, OUTSIDE, resolve

# The header that carries ``outside`` over HTTP (the directory's server sends
# it, linkaudit/localbuild/middleware.py reads it for the build's URLs only)
OUTSIDE_HEADER = "X-Linkaudit-Outside"
# The body of a 404 when the build has no 404.html of its own
NOT_FOUND_BODY = b"<h1>Not Found</h1>"


@dataclass(frozen=True, slots=True)
class Answer:
    """200 with ``file``; 301 to ``location``; 404 with ``file`` (the
    site's ``404.html``) or the plain body; or 200 ``outside``: a file
    reached through a symbolic link out of the directory, never read."""

    status: int
    file: Path | None = None
    location: str | None = None
    outside: str | None = None


# The one dot-directory a site publishes on purpose
_PUBLIC_DOT = ".well-known"


def _private(relative: str) -> bool:
    """A path (from the build's root, ``/``-separated) through a dotfile
    or dot-directory other than ``.well-known``."""
    return any(part.startswith(".") and part != _PUBLIC_DOT for part in relative.split("/"))


def locate(root: str, path: str) -> Answer:
    """The answer for the URL path ``path`` (percent-encoded, from the
    directory's root: ``/guide/``) under the directory ``root``."""
    decoded = unquote(path)
    if "\0" in decoded:
        return Answer(404)
    relative = posixpath.normpath("/" + decoded).lstrip("/")
    if _private(relative):  # never looked up, let alone read
        return Answer(404, file=not_found_page(root))
    if decoded.endswith("/"):
        candidates = [posixpath.join(relative, "index.html")]
        first = None
    else:
        first = resolve(root, relative)  # looked up once: a directory, or the first candidate
        if first.kind == DIR:
            return Answer(301, location=path + "/")
        candidates = [relative, relative + ".html"]
    base = resolve(root, "").real
    for candidate in candidates:
        found = first if first is not None and candidate == relative else resolve(root, candidate)
        if found.kind == FILE:
            inside = found.real[len(base) :].lstrip(os.sep)  # a FILE lies under the build
            if _private(inside.replace(os.sep, "/")):
                break  # a link inside the build to its own .git/: as private
            if not os.access(found.real, os.R_OK):  # a host could not send it either
                break
            return Answer(200, file=Path(found.real))
        if found.kind == OUTSIDE:  # whether its target exists is never looked at
            return Answer(200, outside=found.text)
    return Answer(404, file=not_found_page(root))


def not_found_page(root: str) -> Path | None:
    """``404.html`` when it is a non-empty file inside the directory (a
    symbolic link out of it is never read)."""
    found = resolve(root, "404.html")
    try:
        if found.kind == FILE and os.stat(found.real).st_size:
            return Path(found.real)
    except OSError:
        pass
    return None


def answer(root: str, base_path: str, path: str) -> Answer:
    """``locate`` for a URL path of the whole server, where the build is
    served at ``base_path`` (ending with ``/``)."""
    if not path.startswith(base_path):
        if path + "/" == base_path:
            return Answer(301, location=base_path)
        return Answer(404, file=not_found_page(root))
    found = locate(root, "/" + path[len(base_path) :])
    if found.location is not None:
        return Answer(301, location=base_path + found.location.lstrip("/"))
    return found


def served_path(start_url: str) -> str:
    """The path a build is served at, from the URL it is audited from: the
    start URL's folder (``/`` or the path of ``--root-url``)."""
    path = urlsplit(start_url).path
    return path[: path.rfind("/") + 1] or "/"


_OUTSIDE_SAID = "a symbolic link out of the build directory, to "
_OUTSIDE_MEANS = ": served here, but a copy deployed without it would break"


def outside_warning(target: str) -> str:
    """The report's ``warning`` for a link served through a symbolic link
    out of the build directory (``target``: the link's own text)."""
    return f"{_OUTSIDE_SAID}{target}{_OUTSIDE_MEANS}"


def outside_target(warning: str | None) -> str | None:
    """The target a symbolic link out of the build names, from the warning
    :func:`outside_warning` wrote (the report's ``symlink_out``); None for
    any other warning."""
    if not warning or not warning.startswith(_OUTSIDE_SAID) or not warning.endswith(_OUTSIDE_MEANS):
        return None
    return warning[len(_OUTSIDE_SAID) : -len(_OUTSIDE_MEANS)]
