"""A build's names: what every output calls the URLs of a build directory
audited at its internal address.

``linkaudit DIR`` audits the build at an address on 127.0.0.1
(``http://127.0.0.1:PORT/BASE/``, ``localbuild/directory.py``): the state,
the audit database and Redis key on it, and the port is stable so that two
runs compare.  Nobody can open that address: nothing listens on it.  So
every output (the JSON report, the formats, the feeds, the log) names a URL
of the build instead by

- with ``--root-url R``: the deployed URL, R's origin and the URL's path
  (the build is served at R's path, so a URL of the build is R's; one above
  R's path, a root-relative link out of the build, gets R's origin too);
- without: a ``file://`` URL of the path under the build directory, as
  lychee names local files (``file:///home/me/site/public/guide/``).

One function, :meth:`BuildNames.shown`, from the internal URL to the shown
one; the translation is applied where outputs are made, never to what the
audit keeps.  It is not always one to one (with ``--root-url``, a
root-relative link out of the build and the same URL written absolute, a far
link checked live, are one deployed URL): what is compared with an earlier
report (a baseline, an audit database's last broken keys) is compared as
shown (:meth:`BuildNames.keys`), never mapped back.

The build's files are named by paths (:func:`shown_path`): relative to the
current directory when the build is below it (``public/guide.html``), else
absolute.

Pure: no Scrapy, no configuration (``Config.names`` makes one).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any, TypedDict
from urllib.parse import unquote, urlsplit

__all__ = ["BuildNames", "file_url", "path_in_build", "shown_path"]


def shown_path(path: str, cwd: str | None = None) -> str:
    """``path`` as the outputs name a file of a build: relative to the
    current directory (``cwd``) when below it, else absolute."""
    full = os.path.abspath(path)
    here = os.path.abspath(cwd if cwd is not None else os.getcwd())
    if full == here:
        return "."
    if full.startswith(here.rstrip(os.sep) + os.sep):
        return Path(os.path.relpath(full, here)).as_posix()
    return full


def file_url(path: str) -> str:
    """The ``file://`` URL of an absolute path, percent-encoded as a URL's
    path is (a space as ``%20``), for any bytes a file name holds."""
    return Path(os.path.abspath(path)).as_uri()


def path_in_build(url: str, build: dict[str, Any]) -> str | None:
    """The path of a file of the build a shown ``url`` names, from the
    report's ``build`` section (``url``: the build's root as shown,
    ``directory``: the build directory's path): ``public/guide/x.html``, its
    query and fragment kept (``public/a.html#top``); None for a URL outside
    the build (another site, a URL above ``--root-url``'s path)."""
    root, directory = build.get("url"), build.get("directory")
    if not isinstance(root, str) or not isinstance(directory, str) or not root:
        return None
    if not url.startswith(root):
        return None
    rest = url[len(root) :]
    cut = min((i for i in (rest.find("?"), rest.find("#")) if i >= 0), default=len(rest))
    path = unquote(rest[:cut], errors="surrogateescape")
    if directory in (".", ""):
        return (path or ".") + rest[cut:] if path or rest[cut:] else "."
    return f"{directory.rstrip('/')}/{path}{rest[cut:]}"


class BuildNaming(TypedDict):
    """The ``build`` section's fields that say how a build is named
    (:meth:`BuildNames.section`; as ``output/report/records.py``'s
    ``BuildSection`` has them)."""

    directory: str
    path: str
    url: str
    root_url: str | None


class BuildNames:
    """A build directory's names: ``directory`` (the build, as the user may
    find it), audited at ``address`` (the URL of its root, internal),
    deployed at ``root_url`` (``--root-url``; empty: not known)."""

    def __init__(self, directory: str, address: str, root_url: str = "", cwd: str | None = None):
        self.path = os.path.abspath(directory)
        self.directory = shown_path(self.path, cwd)
        parts = urlsplit(address)
        self.origin = f"{parts.scheme}://{parts.netloc}"
        self.netloc = parts.netloc
        self.base = address[: address.rfind("/") + 1]  # the folder the build is served at
        self.root_url = root_url or None
        if root_url:
            root = urlsplit(root_url)
            self.shown_origin = f"{root.scheme}://{root.netloc}"
            self.url = self.shown_origin + self.base[len(self.origin) :]
            # the whole origin is the deployed site's (a URL above R's path too)
            self._from, self._to, self._host = self.origin, self.shown_origin, root.netloc
        else:
            self.url = file_url(self.path) + "/"
            self._from, self._to, self._host = self.base, self.url, self.directory
        # the internal address anywhere in a text: the URL (the origin not
        # followed by more digits of a longer port; the folder followed by
        # anything, /404.html or /2024/ too), or its host:port alone
        self._needle = parts.netloc
        longer = "" if self._from.endswith("/") else "(?![0-9])"
        self._pattern = re.compile(
            f"({re.escape(self._from)}){longer}|(?<![/\\w.@-]){re.escape(parts.netloc)}(?![0-9])"
        )

    def shown(self, url: str) -> str:
        """The name of an internal URL of the build; any other URL as it is."""
        if not url.startswith(self._from):
            return url
        rest = url[len(self._from) :]
        if rest[:1].isdigit() and not self._from.endswith("/"):
            return url  # another port of the same host
        return self._to + rest

    def is_build(self, url: str) -> bool:
        """An internal URL of the build (its origin, or its folder)."""
        return self.shown(url) != url

    def text(self, text: str) -> str:
        """``text`` (a message, an error, a log line) with the build's
        internal address replaced wherever it is."""
        if self._needle not in text:  # nearly always: one search in C
            return text
        return self._pattern.sub(self._named, text)

    def _named(self, match: re.Match[str]) -> str:
        return self._to if match.group(1) is not None else self._host

    def translate(self, value: Any) -> Any:
        """A JSON value (a report's entry, its head, a feed's item) with
        every string and key holding the internal address named; what holds
        none is returned as it is (no copy)."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, list):
            return [self.translate(v) for v in value]
        if isinstance(value, dict):
            return {
                (self.text(k) if isinstance(k, str) else k): self.translate(v)
                for k, v in value.items()
            }
        return value

    def keys(self, keys: Iterable[str]) -> frozenset[str]:
        """A baseline's keys (URLs, ``URL#fragment``) as shown: an earlier
        report's names, or an audit database's keys of an older version's
        reports (internal), compare with this audit's as shown."""
        return frozenset(map(self.shown, keys))

    def section(self) -> BuildNaming:
        """The report's ``build`` fields that say how the build is named:
        the directory (as outputs name its files), its absolute path, the
        URL its root is named by, and ``--root-url``."""
        return {
            "directory": self.directory,
            "path": self.path,
            "url": self.url,
            "root_url": self.root_url,
        }
