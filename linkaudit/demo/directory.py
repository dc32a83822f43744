"""``linkaudit DIR``: a local build served on 127.0.0.1 the way static
hosts serve it, and the way back from a page's URL to its file."""

from __future__ import annotations

import os
import posixpath
from pathlib import Path
from urllib.parse import quote, unquote, urlsplit

from linkaudit.demo.server import FileHandler, LocalSite, content_type
from linkaudit.demo.static import OUTSIDE_HEADER, answer


def file_for(root: Path, path: str) -> tuple[Path | None, str | None]:
    """The file a static host (GitHub Pages, Netlify, Cloudflare Pages,
    ``python -m http.server``) serves for the URL path ``path`` under
    ``root``: (file, None), or (None, where to redirect), or (None, None)
    for a 404.

    ``/dir/`` is ``dir/index.html``; ``/dir`` of a directory redirects to
    ``/dir/`` (301, as those hosts answer); ``/page`` is ``page.html`` when
    there is no ``page`` (clean URLs).  Percent escapes are decoded; a path
    that leaves ``root`` (``..``, symbolic links out) is a 404.
    """
    decoded = unquote(path)
    if "\0" in decoded:
        return None, None
    relative = posixpath.normpath("/" + decoded).lstrip("/")
    target = (root / relative) if relative not in ("", ".") else root
    candidates = [target / "index.html"] if decoded.endswith("/") else [target]
    if not decoded.endswith("/"):
        if target.is_dir():
            return None, path + "/"
        candidates.append(target.with_name(target.name + ".html"))
    base = root.resolve()
    for candidate in candidates:
        try:
            real = candidate.resolve()
        except (OSError, RuntimeError):
            continue
        if real.is_file() and (real == base or base in real.parents):
            return real, None
    return None, None


class LocalFiles:
    """Page URL -> the file it was served from, as the user named the
    directory (``public/guide/install.html``): the report's referrers say
    both."""

    def __init__(self, root: str, prefix: str):
        self.root = Path(root)
        self.shown = root.rstrip("/\\") or root
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
        found, _ = file_for(self.root, path)
        if found is None:
            return None
        inside = found.relative_to(self.root.resolve()).as_posix()
        return f"{self.shown}/{inside}" if self.shown not in (".", "") else inside


class DirectorySite(LocalSite):
    """``root`` served on 127.0.0.1 at ``base_path`` (the path of
    ``--root-url``, so that root-relative links of a site built for
    ``https://example.com/docs/`` resolve), in a daemon thread."""

    def __init__(self, root: str, base_path: str = "/") -> None:
        folder = Path(root)
        base_path = base_path if base_path.endswith("/") else base_path + "/"

        class Handler(FileHandler):
            def _answer(self, body: bool) -> None:
                # the rules the file-reading handler follows too (demo/static.py)
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
                    self._send(404, b"<h1>Not Found</h1>", "text/html", body)

        self._serve(Handler, base_path)
        self.files = LocalFiles(os.path.normpath(root), self.url)
