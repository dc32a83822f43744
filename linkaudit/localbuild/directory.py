"""``linkaudit DIR``: a local build's address on 127.0.0.1, served the way
static hosts serve it only when a request will reach it, and the way back
from a page's URL to its file."""

from __future__ import annotations

import functools
import os
import secrets
import zlib
from pathlib import Path
from urllib.parse import quote, urlsplit

from linkaudit.config import Config
from linkaudit.localbuild.serving import FileHandler, LocalSite, content_type
from linkaudit.localbuild.static import NOT_FOUND_BODY, OUTSIDE_HEADER, answer, locate
from linkaudit.rules.names import shown_path


class LocalFiles:
    """Page URL -> the file it was served from (``public/guide/install.html``):
    relative to the current directory when the build is below it, else
    absolute (``rules/names.py``); the report's referrers say both."""

    def __init__(self, root: str, prefix: str):
        self.root = root
        self.real_root = os.path.realpath(root)
        self.shown = shown_path(root)
        self.prefix = prefix  # the URL the directory is served at
        self.known: dict[str, str | None] = {}

    def __call__(self, url: str) -> str | None:
        if url not in self.known:
            self.known[url] = self._find(url)
        return self.known[url]

    def _find(self, url: str) -> str | None:
        if not url.startswith(self.prefix):
            return None
        path = "/" + url[len(self.prefix) :].split("?", 1)[0].split("#", 1)[0]
        found = locate(self.root, path)  # the rules the page was served by
        if found.status != 200 or found.file is None:
            return None
        inside = Path(os.path.relpath(found.file, self.real_root)).as_posix()
        return f"{self.shown}/{inside}" if self.shown not in (".", "") else inside


def local_files(config: Config) -> LocalFiles | None:
    """A local build's page URL -> its file (LINKAUDIT_LOCAL_DIR), for the
    report's referrers; None for an audit of a site."""
    if not config.build_url:
        return None
    return LocalFiles(config["LINKAUDIT_LOCAL_DIR"], config.build_url)


class BuildAddress:
    """The address of a build nothing will request over HTTP (its files are
    read: the walk, or the crawl's file-reading download handler), for the
    length of a ``with`` block: a URL on 127.0.0.1, no socket.  Its port
    is the build's stable one (``stable_ports``): nothing listens on it, so
    nothing is there to guess, and its reports compare run to run."""

    served = False

    def __init__(self, root: str, base_path: str = "/", port: int | None = None) -> None:
        base_path = base_path if base_path.endswith("/") else base_path + "/"
        port = stable_ports(root)[0] if port is None else port
        self.url = f"http://127.0.0.1:{port}{base_path}"
        self.files = LocalFiles(os.path.normpath(root), self.url)

    def __enter__(self) -> BuildAddress:
        return self

    def __exit__(self, *exc: object) -> None:
        pass


class DirectorySite(LocalSite):
    """``root`` served on 127.0.0.1 at ``base_path`` (the path of
    ``--root-url``, so that root-relative links of a site built for
    ``https://example.com/docs/`` resolve), in a daemon thread, on the
    first free port of ``ports`` (default: random ones).  Only requests
    that name it as their ``Host`` are answered (``FileHandler``)."""

    def __init__(
        self, root: str, base_path: str = "/", ports: tuple[int, ...] | None = None
    ) -> None:
        folder = Path(root)
        base_path = base_path if base_path.endswith("/") else base_path + "/"

        class Handler(FileHandler):
            def _answer(self, body: bool) -> None:
                # the rules the file-reading handler follows too (localbuild/static.py)
                found = answer(str(folder), base_path, urlsplit(self.path).path)
                if found.outside is not None:  # never read: a 200 that says where it leads
                    ctype, outside = content_type(Path(found.outside).name), quote(found.outside)
                    self._send(200, b"", ctype, body, {OUTSIDE_HEADER: outside})
                elif found.location is not None:
                    self._send(301, b"", "text/html", body, {"Location": found.location})
                elif found.status == 200 and found.file is not None:
                    self._send_file(200, found.file, content_type(found.file.name), body)
                elif found.file is not None:
                    self._send_file(404, found.file, "text/html", body)  # the site's 404.html
                else:
                    self._send(404, NOT_FOUND_BODY, "text/html", body)

        self._serve(Handler, base_path, ports or random_ports())
        self.files = LocalFiles(os.path.normpath(root), self.url)


# A build's address has a port of its own, the same from run to run, so that
# its URLs are too: an audit database (``--db``) knows the build's earlier
# audits by their start URLs (history, "broken since", the baseline), and
# two reports of one build compare line for line.  A port below Linux's
# ephemeral range (32768-), by the directory's path; served, if it is taken
# (the same build audited twice at once), the next few, then any.  A
# served build keeps it only when its audit is stored (``--db``, Redis):
# otherwise it is served on a random port (``random_ports``), which a page
# in the user's browser cannot guess from the build's path.
_PORTS = (20000, 32000)


def stable_ports(root: str) -> tuple[int, ...]:
    """The ports a build directory is served on, in order of preference."""
    low, high = _PORTS
    first = low + zlib.crc32(os.path.realpath(root).encode("utf-8", "surrogateescape")) % (
        high - low
    )
    return (*(low + (first - low + i) % (high - low) for i in range(8)), 0)


def random_ports() -> tuple[int, ...]:
    """Eight random ports above the privileged ones, then any (0: the
    kernel's choice)."""
    return (*(1024 + secrets.randbelow(65536 - 1024) for _ in range(8)), 0)


# The bound on URLs an audit of a build knows (LINKAUDIT_MAX_URLS, unless
# given): a page's worth of links (LINKAUDIT_PAGE_MAXLINKS' default), and 100
# for each file, directory and link of the build.  Real builds stay far
# below (Python's docs: 5,248 URLs for 1,099 entries); what links make
# without end (a DAG of directory links) stops there (empty segments are
# counted, rules/guards.py).
URLS_BASE, URLS_PER_ENTRY = 20_000, 100
# entries counted at most: a bound of 100 million URLs is no bound worth
# counting further for (a build's .git or node_modules is not counted at all)
MAX_ENTRIES = 1_000_000


@functools.lru_cache(maxsize=4)
def url_bound(root: str) -> int:
    """The default bound on a build's URLs, from its entries counted
    without following links (a link to a directory is one entry), those
    never served (dotfiles, ``.git/``) left out."""
    entries, folders = 0, [root]
    while folders and entries < MAX_ENTRIES:
        try:
            with os.scandir(folders.pop()) as listing:
                for entry in listing:
                    if entry.name.startswith(".") and entry.name != ".well-known":
                        continue  # never served (localbuild/static.py)
                    entries += 1
                    if entry.is_dir(follow_symlinks=False):
                        folders.append(entry.path)
        except OSError:  # unreadable: counted as nothing
            continue
    return URLS_BASE + URLS_PER_ENTRY * min(entries, MAX_ENTRIES)
