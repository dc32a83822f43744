"""The demo site behind ``linkaudit --demo``: a small shop served on
127.0.0.1 from files bundled with the package, so a first audit works on
any machine, offline.

It holds one of each thing an audit reports: a broken link in the site, a
broken link to another site, a redirect, a page robots.txt keeps crawlers
out of, a far page (checked, never scanned), a mailto: link, an image and a
style sheet.  The files are package data, read with importlib.resources, so
they are there however linkaudit was installed (wheel, egg, editable).
It is served as a build is, by the static-host serving of
``linkaudit/localbuild/serving.py``.
"""

from __future__ import annotations

from importlib.resources import files
from importlib.resources.abc import Traversable

from linkaudit.localbuild.serving import FileHandler, LocalSite, content_type

START_PATH = "/site/"
# The one redirect: an old address of the contact page.
REDIRECTS = {"/site/old-contact.html": "/site/contact.html"}


def _load(folder: Traversable, prefix: str = "/") -> dict[str, bytes]:
    pages: dict[str, bytes] = {}
    for entry in folder.iterdir():
        if entry.is_dir():
            pages.update(_load(entry, f"{prefix}{entry.name}/"))
        else:
            pages[prefix + entry.name] = entry.read_bytes()
    return pages


def site_files() -> dict[str, bytes]:
    """URL path -> bytes of every bundled file."""
    return _load(files("linkaudit.demo") / "www")


class DemoSite(LocalSite):
    """The demo site (the bundled shop)."""

    def __init__(self) -> None:
        pages = site_files()

        class Handler(FileHandler):
            def _answer(self, body: bool) -> None:
                path = self.path.split("?", 1)[0]
                if path in REDIRECTS:
                    self._send(301, b"", "text/html", body, {"Location": REDIRECTS[path]})
                    return
                if path.endswith("/"):
                    path += "index.html"
                data = pages.get(path)
                if data is None:
                    self._send(404, b"<h1>Not Found</h1>", "text/html", body)
                    return
                self._send(200, data, content_type(path), body)

        self._serve(Handler, START_PATH)
