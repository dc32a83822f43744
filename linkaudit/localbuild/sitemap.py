"""The build's own sitemap, read at report time to tell a page only the
sitemap lists (``"orphan": "sitemap"``) from one nothing names
(``"unlinked"``): Hugo, MkDocs, Jekyll's and Sphinx's sitemap plugins
write ``sitemap.xml`` at the build's root, and a docs team expects a page
left out of the navigation but listed there to be told apart without
``--sitemap``.

It is read only when a page no link reached is found (the usual build
has none), never checked (``--sitemap`` and the build's ``robots.txt``
have the audit check a sitemap and its URLs: their listings count too,
``report.py``), and bounded: ``sitemap.xml`` (else ``sitemap.xml.gz``) at
the root, the sitemaps of an index that lie in the build, at most
``LINKAUDIT_SITEMAP_MAXCOUNT`` files of at most
``LINKAUDIT_SITEMAP_MAXSIZE`` bytes, ``LINKAUDIT_SITEMAP_MAXDEPTH``
levels, and the paths of at most ``LINKAUDIT_MAX_URLS`` (or
:data:`MAX_LISTED`) ``<loc>`` kept.

A ``<loc>`` names a page of the build when it is under the build's
address or, with ``--root-url``, under the site's own address (as links
to it are mapped); without ``--root-url`` the deployed address is not
known, so a ``<loc>`` names the page whose path inside the build ends its
path at a ``/`` (``https://example.com/docs/guide/x.html`` names
``guide/x.html``, or ``x.html`` at the root): the sitemap says where the
site will be, not where the build is.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from linkaudit.localbuild.reading import read_file
from linkaudit.localbuild.static import locate
from linkaudit.rules.sitemap import parse_sitemap
from linkaudit.rules.urls import InvalidURL, canonicalize

NAMES = ("sitemap.xml", "sitemap.xml.gz")  # the build's sitemap, in order of preference
MAX_LISTED = 1_000_000  # <loc> paths kept when --max-urls sets no bound


class BuildSitemap:
    """What the build's own sitemap lists, by path inside the build."""

    def __init__(self, root: str, build_url: str, root_url: str, config: Any) -> None:
        self.root = root
        self.build_url = build_url
        self.root_url = _canonical(root_url) if root_url else ""
        self.maxsize = config["LINKAUDIT_SITEMAP_MAXSIZE"]
        self.maxcount = config["LINKAUDIT_SITEMAP_MAXCOUNT"]
        self.maxdepth = config["LINKAUDIT_SITEMAP_MAXDEPTH"]
        self.maxlisted = config["LINKAUDIT_MAX_URLS"] or MAX_LISTED
        self._exact: set[str] | None = None  # paths inside the build (a known address)
        self._by_name: dict[str, list[str]] = defaultdict(list)  # last segment -> loc paths

    def lists(self, url: str) -> bool:
        """The sitemap lists the build's page at ``url`` (its address)."""
        if not url.startswith(self.build_url):
            return False
        if self._exact is None:
            self._exact = set()
            self._read()
        inside = _page_path(url[len(self.build_url) :].split("?", 1)[0])
        if inside in self._exact:
            return True
        return bool(inside) and any(
            path == inside or path.endswith("/" + inside)
            for path in self._by_name.get(_last(inside), ())
        )

    # -- reading -----------------------------------------------------------
    def _read(self) -> None:
        first = next((n for n in NAMES if _served(self.root, n)), None)
        if first is None:
            return
        queue, seen, kept = [(first, 1)], {first}, 0
        while queue and len(seen) <= self.maxcount:
            name, level = queue.pop(0)
            try:
                body, truncated = read_file(_file(self.root, name), self.maxsize)
            except OSError:
                continue
            if truncated:  # past LINKAUDIT_SITEMAP_MAXSIZE: not read, as the crawl
                continue
            parsed = parse_sitemap(body, self.maxsize)
            for loc in (entry.loc for entry in parsed.entries):
                if parsed.kind == "sitemapindex":
                    inner = next(self._inside(loc), None)
                    if inner is not None and inner not in seen and level < self.maxdepth:
                        seen.add(inner)
                        queue.append((inner, level + 1))
                    continue
                kept += self._keep(loc)
                if kept >= self.maxlisted:
                    return

    def _keep(self, loc: str) -> int:
        """Keep what ``loc`` names (1), or nothing (0)."""
        try:
            url = canonicalize(loc)
        except InvalidURL:
            return 0
        assert self._exact is not None
        for address in (self.build_url, self.root_url):
            if address and url.startswith(address):
                self._exact.add(_page_path(url[len(address) :].split("?", 1)[0]))
                return 1
        if self.root_url:  # another address than the site's: no page of the build
            return 0
        path = _page_path(urlsplit(url).path.lstrip("/"))
        self._by_name[_last(path)].append(path)
        return 1

    def _inside(self, loc: str) -> Iterator[str]:
        """The file of the build an index's ``<loc>`` names (for a sitemap)."""
        try:
            url = canonicalize(loc)
        except InvalidURL:
            return
        for address in (self.build_url, self.root_url):
            if address and url.startswith(address):
                path = url[len(address) :].split("?", 1)[0]
                if _served(self.root, path):
                    yield path
                return
        if self.root_url:
            return
        parts = urlsplit(url).path.lstrip("/").split("/")
        for i in range(len(parts)):  # the longest path the build has
            path = "/".join(parts[i:])
            if path and _served(self.root, path):
                yield path
                return


def _canonical(url: str) -> str:
    try:
        return canonicalize(url)
    except InvalidURL:
        return url


def _page_path(path: str) -> str:
    """A page's path as its URL names it: an index page by its folder."""
    folder, _, name = path.rpartition("/")
    if name == "index.html":
        return folder + "/" if folder else ""
    return path


def _last(path: str) -> str:
    """The last segment of a page's path (a folder's, with its ``/``)."""
    if path.endswith("/"):
        return path[:-1].rpartition("/")[2] + "/"
    return path.rpartition("/")[2]


def _served(root: str, path: str) -> bool:
    found = locate(root, "/" + path)
    return found.status == 200 and found.file is not None


def _file(root: str, path: str) -> Path | None:
    return locate(root, "/" + path).file
