"""``linkaudit DIR`` at file speed: the download handler for ``http`` that
answers the build directory's own origin from the files, without a socket.

``linkaudit DIR`` gives the directory an address on 127.0.0.1, and with
``LINKAUDIT_LOCAL_READ`` (set by the command for a build directory) a
request to that origin never reaches a server (none is started: only
``-s LINKAUDIT_LOCAL_READ=false`` serves the build, and crawls it over
HTTP): a ``HEAD`` is a ``stat``, a ``GET`` the file's bytes, read here,
synchronously, under the same rules as the server's
(``linkaudit/localbuild/static.py``).  Every other request (far links) goes to
the network through ``HttpDownloadHandler`` as before.

Why a handler, and not a walk of the files: every component stays in the
path (robots.txt, --exclude/--include, limits, the audit database, Redis,
the report), so the two routes cannot drift apart; what the walk would
save is Scrapy's per-request cost, which the handler makes small (no
delay, a wide slot, GET first).

What the HTTP handler does for a response, this one does too: the
``headers_received`` signal (a GET of a non-page stops there, the file
unread) and ``bytes_received`` for each 64 KiB read (a page is cut at
``LINKAUDIT_PAGE_MAXSIZE``).  Scrapy's ``DOWNLOAD_MAXSIZE`` (and its
warning size) is no bound for the build's own files, on either route (read
here, or requested from the server): the walk knows no such setting, and a
page of 2 GiB is a page over the cap, truncated and scanned as any other,
not a ``Download cancelled``.  What is read of the build stays bounded: a
page by its cap, anything else stopped at its headers.
"""

from __future__ import annotations

import contextlib
import io
import os
from pathlib import Path
from typing import NamedTuple
from urllib.parse import quote, urlsplit

from scrapy import Request, signals
from scrapy.crawler import Crawler
from scrapy.http import Headers, Response
from scrapy.utils.httpobj import urlparse_cached

from linkaudit import internals
from linkaudit.config import config_of
from linkaudit.localbuild.serving import content_type
from linkaudit.localbuild.static import NOT_FOUND_BODY, OUTSIDE_HEADER, answer, served_path
from linkaudit.network.handler import HttpDownloadHandler
from linkaudit.signals import request_sent

# Scrapy's own helpers of its HTTP handlers: this one answers as they do
_scrapy = internals.download_helpers()
check_stop_download = _scrapy.check_stop_download
make_response = _scrapy.make_response

_CHUNK = 64 * 1024  # bytes of a file read at once (as the server sends them)


class _Build(NamedTuple):
    netloc: str  # the origin the directory is served at: 127.0.0.1:PORT
    root: str
    base_path: str  # the path of --root-url, ending with "/"
    read: bool  # LINKAUDIT_LOCAL_READ: its files read here, not requested


class LocalBuildHandler(HttpDownloadHandler):
    """``http`` downloads: the build's origin from its files, the rest
    over the network (``DOWNLOAD_HANDLERS``)."""

    def __init__(self, crawler: Crawler):
        super().__init__(crawler)
        self._build: _Build | None | bool = False  # False: not looked up yet

    def _local(self) -> _Build | None:
        """The build, from the audit's configuration (known once the spider
        is): its directory and the address its root is served at."""
        if self._build is False:
            config = config_of(self.crawler)
            root, build = config["LINKAUDIT_LOCAL_DIR"], config.build_url
            if not (root and build):
                self._build = None
            else:
                read = config["LINKAUDIT_LOCAL_READ"]
                self._build = _Build(urlsplit(build).netloc, root, served_path(build), read)
        return self._build if isinstance(self._build, _Build) else None

    async def download_request(self, request: Request) -> Response:
        build = self._local()
        parts = urlparse_cached(request)
        if build is None or parts.netloc != build.netloc:
            return await super().download_request(request)
        if not build.read:  # the build's server: its size bounds no more than the files'
            request.meta.setdefault("download_maxsize", 0)
            request.meta.setdefault("download_warnsize", 0)
            return await super().download_request(request)
        self.crawler.signals.send_catch_log(request_sent, request=request)
        return self._answer(request, build, parts.path or "/")

    def _answer(self, request: Request, build: _Build, path: str) -> Response:
        found = answer(build.root, build.base_path, path)
        url = request.url
        headers = Headers()
        if found.outside is not None:  # never read: its name and where it leads
            headers[b"Content-Type"] = content_type(os.path.basename(found.outside))
            headers[b"Content-Length"] = b"0"
            headers[OUTSIDE_HEADER] = quote(found.outside)
            return self._respond(request, url, 200, headers, None)
        if found.location is not None:
            headers[b"Content-Type"] = b"text/html"
            headers[b"Content-Length"] = b"0"
            headers[b"Location"] = found.location
            return self._respond(request, url, 301, headers, None)
        name = found.file.name if found.status == 200 and found.file else "404.html"
        headers[b"Content-Type"] = content_type(name) if found.status == 200 else "text/html"
        return self._respond(request, url, found.status, headers, found.file)

    def _respond(
        self, request: Request, url: str, status: int, headers: Headers, file: Path | None
    ) -> Response:
        """The response, the file read as the HTTP handler reads a body:
        signals first, then 64 KiB at a time until the end or a stop."""
        try:
            handle = open(file, "rb") if file is not None else None  # noqa: SIM115 - closed below
        except OSError:  # gone or unreadable since it was found: as the server answers
            handle, status = None, 404
            headers[b"Content-Type"] = b"text/html"
        with handle or contextlib.nullcontext():
            if handle is not None:
                size = os.fstat(handle.fileno()).st_size
                headers[b"Content-Length"] = str(size).encode()
            elif b"Content-Length" in headers:  # a redirect, or a link out: no body
                size = 0
            else:  # a 404 without the site's own page
                size = len(NOT_FOUND_BODY)
                headers[b"Content-Length"] = str(size).encode()
            stop = check_stop_download(
                signals.headers_received, self.crawler, request, headers=headers, body_length=size
            )
            if stop is not None or request.method == "HEAD" or size == 0:
                return make_response(url, status, headers, stop_download=stop)
            source = handle or io.BytesIO(NOT_FOUND_BODY)
            body: list[bytes] = []
            while chunk := source.read(_CHUNK):
                body.append(chunk)
                stop = check_stop_download(
                    signals.bytes_received, self.crawler, request, data=chunk
                )
                if stop is not None:
                    break
            return make_response(url, status, headers, b"".join(body), stop_download=stop)
