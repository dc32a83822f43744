"""How the HTML report links a build's pages and places: to the files.

A build's report names its URLs by ``file://`` URLs (or, with
``--root-url``, by the deployed URLs: ``rules/names.py``).  In the HTML
report each is named by the file's path and is a link a click opens: the
file, by its path relative to where the page is written (``--html
out/report.html`` links ``../public/guide/index.html``, so the report and
the build can be moved together), or the deployed URL.  A directory's link
opens its index page (a browser shows a folder's listing for a ``file:``
URL, not its ``index.html``); a target that is not there (a broken link's)
is named, not linked: there is nothing to open.
"""

from __future__ import annotations

import os
from contextvars import ContextVar
from typing import Any
from urllib.parse import quote

from linkaudit.output.formats.naming import BuildFiles

INDEX = "index.html"
_PATH_SAFE = "/!$&'()*+,;=:@-._~"  # what a URL's path keeps as it is (RFC 3986's pchar)


class BuildLinks:
    """A build's names and links for one HTML page written at ``html``
    (None: printed, relative to the current directory)."""

    def __init__(self, build: dict[str, Any], html: str | None):
        self.files = BuildFiles(build)
        self.here = os.path.dirname(os.path.abspath(html)) if html else os.getcwd()

    def owns(self, url: str) -> bool:
        return self.files.owns(url)

    def name(self, url: str, file: str | None = None) -> str:
        """A page (its ``file``, when the report names it) or target of the
        build, by its path (with the fragment a link names)."""
        if file:
            return self.files.file(file)
        return self.files.path_of(url) or url

    def href(self, url: str, file: str | None = None) -> str | None:
        """Where a click goes: the deployed URL, or the file relative to the
        page; None when there is no file to open."""
        if self.files.deployed:
            return url
        if file:  # (as the report names it: from where the audit ran)
            found = self.files.absolute(file)
        else:  # (named from here)
            path = self.files.path_of(url.split("#", 1)[0].split("?", 1)[0])
            found = os.path.abspath(path) if path is not None else None
        if found is None or not os.path.exists(found):
            return None
        if os.path.isdir(found) and os.path.isfile(os.path.join(found, INDEX)):
            found = os.path.join(found, INDEX)
        relative = self._relative(found) + ("/" if os.path.isdir(found) else "")
        fragment = url.partition("#")[2] if not file else ""
        return relative + (f"#{fragment}" if fragment else "")

    def source_href(self, file: str) -> str | None:
        """A source file (a place's ``source``), relative to the page."""
        found = self.files.absolute(file)
        if found is None or not os.path.isfile(found):
            return None
        return self._relative(found)

    def _relative(self, path: str) -> str:
        """``path`` as a relative URL from the page: percent-encoded (a
        file name's ``#``, ``?``, ``%`` or quote is a name, not a URL's
        syntax), and never read as a scheme (``javascript:x.html`` is
        ``./javascript:x.html``)."""
        relative = os.path.relpath(path, self.here).replace(os.sep, "/")
        try:  # a name's undecodable bytes (surrogateescape), as they are
            href = quote(relative, safe=_PATH_SAFE, errors="surrogateescape")
        except UnicodeEncodeError:  # a lone surrogate (a report edited by anyone)
            href = quote(relative, safe=_PATH_SAFE, errors="surrogatepass")
        return "./" + href if ":" in href.split("/", 1)[0] else href


# the build the page being written names (html/page.py sets it for its page)
BUILD: ContextVar[BuildLinks | None] = ContextVar("build", default=None)
