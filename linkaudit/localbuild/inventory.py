"""Every page of a build, linked or not: what the audit read of the build's
pages, and the enumeration of those no link led to.

The walk (``files.py``) and the crawl (the scheduler, ``components/
scheduler.py``, fed through ``Audit.build``) check the build from its
start page, link after link.  When no URL is left to check, the pages of
the build not read yet (none of its links reached them: orphans) are
enumerated and queued at depth 0, as start pages of their own, a batch at
a time (:data:`BATCH`): each batch is walked to its end (the pages its
orphans link to included) before the next is enumerated, on every route,
so the routes agree.  The build stays a finite set of files, and the
walk's bounds still hold:

- lazily: one folder's listing at a time (``os.scandir``; a listing's
  names are sorted a chunk of :data:`CHUNK` at a time, so a folder of a
  million files is never a list of a million names), depth first, at most
  :data:`MAX_LEVELS` folders deep (a URL path's bound);
- what a static host never serves is never listed: dotfiles and
  dot-folders (``.git/``), symbolic links (a page reached through one is
  its target's, enumerated where it lies, or out of the build);
- a page is what the static-host rules serve as ``text/html`` (by name:
  ``static.py``); one already read (known by its real path, whatever URL
  it was read at: ``guide/``, ``guide/index.html``) is not read again; one
  the link rules exclude (``--exclude``) is left out;
- ``--max-urls``: the first page the state refuses ends the enumeration;
  ``--max-time`` and an interruption: the caller's ``stopped()`` is asked
  every :data:`CHUNK` entries;
- ``--depth``: no enumeration (a page beyond the depth may link to one, so
  no page could be called unlinked), nor in a shared audit (Redis: one
  worker's listing is not every worker's).

Which pages no link reached is told at report time (``report.py``): an
orphan is a page of the build no page links to (``referrer_count`` 0), or
only a sitemap lists.
"""

from __future__ import annotations

import itertools
import logging
import os
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import quote, urlsplit

from linkaudit.localbuild.start import is_page_name
from linkaudit.localbuild.static import answer, served_path
from linkaudit.rules.urls import InvalidURL, canonicalize
from linkaudit.state.base import AuditState

logger = logging.getLogger(__name__)

BATCH = 1000  # orphan pages queued at once (then walked to the end of what they link to)
CHUNK = 4096  # a listing's entries sorted at once; the stop asked as often
MAX_LEVELS = 32  # folders deep (LINKAUDIT_MAX_PATH_SEGMENTS' default)
LISTED = 100  # files that are not pages named in the report (then only counted)
_SAFE = "/-._~!$&'()*+,;=:@"  # what a path keeps unescaped in a URL


class BuildPages:
    """The build's pages, read or not, for one audit (``Audit.build``)."""

    def __init__(self, root: str, build_url: str, enumerate_unread: bool = True) -> None:
        self.root = root
        self.real_root = os.path.realpath(root)
        self.build_url = build_url
        self.base_path = served_path(build_url)
        self.read_files: set[int] = set()  # each page file read (the hash of its real path)
        # pages read after the enumeration began (the hashes of their URLs:
        # a million orphans are a million ints, not a million strings)
        self.late: set[int] = set()
        self.started = False  # the enumeration began: the links were all followed
        self.done = not enumerate_unread  # nothing more to enumerate
        self.enumerated = 0  # orphan pages queued
        self.not_pages: dict[str, tuple[str, str]] = {}  # URL -> (file, why), LISTED of them
        self.not_page_urls: set[str] = set()  # every one
        self.not_pages_count = 0
        self.complete = False  # every file of the build was listed
        self._pages: Iterator[tuple[str, str]] | None = None
        self._page_names: dict[str, bool] = {}

    def report_part(self, config: Any, files: Callable[[str], str | None] | None) -> Any:
        """This build's part of a report (``report.py``), made for each one."""
        from linkaudit.localbuild.report import BuildReport

        return BuildReport(config, self, files)

    # -- what was read -----------------------------------------------------
    def file_of(self, url: str) -> str | None:
        """The real path of the file the build serves at ``url`` (None: none)."""
        if not url.startswith(self.build_url):
            return None
        found = answer(self.root, self.base_path, urlsplit(url).path or "/")
        return str(found.file) if found.status == 200 and found.file is not None else None

    def read(self, url: str, path: str | None) -> None:
        """The page at ``url`` (its file ``path``) was read and scanned."""
        if path is None or not self.is_page(os.path.basename(path)):
            return
        self.read_files.add(hash(path))
        if self.started:
            self.late.add(hash(url))

    def not_found_page(self, url: str) -> bool:
        """``url`` is the build's own ``404.html``, the page the host sends
        for every missing URL (``static.py``): read as a page, but that it
        says "not found" is no soft 404."""
        return url == self.build_url + "404.html"

    def reached(self, url: str) -> bool:
        """The page at ``url`` was read before the enumeration began: the
        links from the start page reached it."""
        return hash(url) not in self.late

    def not_page(self, url: str, why: str) -> None:
        """The HTML file at ``url`` is not a page (an unrendered template,
        ``rules/unrendered.py``): named once, never scanned."""
        path = self.file_of(url)
        if path is not None:
            self.read_files.add(hash(path))
        if url in self.not_page_urls:
            return
        self.not_page_urls.add(url)
        self.not_pages_count += 1
        if len(self.not_pages) < LISTED:
            shown = os.path.relpath(path, self.real_root) if path else url
            self.not_pages[url] = (shown, why)

    # -- the pages not read ------------------------------------------------
    def feed(
        self,
        state: AuditState,
        judge: Callable[[str], Any],
        stopped: Callable[[], bool] = lambda: False,
    ) -> int:
        """Queue the next :data:`BATCH` pages not read yet, at depth 0; how
        many were queued (0: none is left, or ``stopped()``)."""
        if self.done:
            return 0
        if not self.started:
            self.started = True
            logger.info("Every link of the build followed: reading the pages no link reached")
        if self._pages is None:
            self._pages = self._page_files(stopped)
        queued = 0
        for relative, path in self._pages:
            if hash(path) in self.read_files or not os.access(path, os.R_OK):
                continue
            url = self._url(relative)
            if url is None or judge(url).outcome is not None:  # --exclude: left out
                continue
            new = state.discover(url, 0)
            if new is None:  # --max-urls: the rest is not enumerated
                logger.info("The audit knows --max-urls URLs: the build's other pages are not read")
                self.done = True
                break
            if new:
                state.enqueue(url, 0, None)
                self.enumerated += 1
                queued += 1
                if queued >= BATCH:
                    return queued
        else:  # every file listed (or the listing stopped: the audit ends)
            self.done = True
            self.complete = not stopped()
        return queued

    def _url(self, relative: str) -> str | None:
        """A page's URL (an index page's: its folder's)."""
        folder, _, name = relative.rpartition("/")
        if name == "index.html":
            relative = folder + "/" if folder else ""
        try:
            return canonicalize(self.build_url + quote(relative, safe=_SAFE))
        except InvalidURL:
            return None

    def is_page(self, name: str) -> bool:
        """A file name a static host serves as ``text/html`` (by its suffix, kept)."""
        suffix = name[name.rfind(".") :] if "." in name else ""
        known = self._page_names.get(suffix)
        if known is None:
            known = self._page_names[suffix] = is_page_name("x" + suffix)
        return known

    def _page_files(self, stopped: Callable[[], bool]) -> Iterator[tuple[str, str]]:
        """(path inside the build, real path) of every page file, depth first."""
        yield from self._folder("", self.real_root, 0, stopped)

    def _folder(
        self, relative: str, path: str, depth: int, stopped: Callable[[], bool]
    ) -> Iterator[tuple[str, str]]:
        try:
            listing = os.scandir(path)
        except OSError:  # unreadable: no page of it is served
            return
        with listing:
            while True:
                chunk = sorted(itertools.islice(listing, CHUNK), key=_name)
                if not chunk:
                    return
                if stopped():  # --max-time, an interruption: the audit ends
                    return
                for entry in chunk:
                    name = entry.name
                    if name.startswith(".") and name != ".well-known":
                        continue  # never served (static.py)
                    try:
                        if entry.is_dir(follow_symlinks=False):
                            if depth + 1 < MAX_LEVELS:
                                inner = f"{relative}{name}/"
                                yield from self._folder(inner, entry.path, depth + 1, stopped)
                        elif entry.is_file(follow_symlinks=False) and self.is_page(name):
                            yield relative + name, entry.path
                    except OSError:
                        continue


def _name(entry: os.DirEntry[str]) -> str:
    return entry.name
