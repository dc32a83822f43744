"""The static-host serving a local site shares: a threaded HTTP server on
127.0.0.1, a handler that answers HEAD and GET as a static host does (a
file's type by its name, a file copied in chunks, a request for another
host refused), and a site served in a thread for a ``with`` block.

A build directory served over HTTP (``directory.py``) and the demo site
(``linkaudit/demo/``) are both made of these.
"""

from __future__ import annotations

import mimetypes
import os
import shutil
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer, ThreadingHTTPServer
from pathlib import Path
from typing import Self

_CHUNK = 64 * 1024  # bytes of a served file in memory at once
# The answer to a request for another host (see FileHandler._own_host)
MISDIRECTED_BODY = b"<h1>Misdirected Request</h1>"


class LocalHTTPServer(ThreadingHTTPServer):
    """A threaded server on loopback that keeps up with a crawler: Python's
    default listen backlog is 5, and a crawler opening connections faster
    than the accepting thread runs overflowed it; every dropped connection
    cost the client a 1 s SYN retransmission."""

    daemon_threads = True
    request_queue_size = 128


def content_type(name: str) -> str:
    """The Content-Type a static host gives a file, by its name."""
    ctype = mimetypes.guess_type(name)[0] or "application/octet-stream"
    if ctype.startswith("text/") or ctype == "image/svg+xml":
        ctype += "; charset=utf-8"
    return ctype


class FileHandler(BaseHTTPRequestHandler):
    """What the local sites' handlers share: HEAD and GET answered by
    ``_answer(body)``, each answer one ``_send``."""

    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body are two writes
    server: HTTPServer  # (served by an HTTP server: its port is known)

    def log_message(self, *args: object) -> None:
        pass  # the audit's summary is the output

    def handle(self) -> None:
        # A client that hangs up (a reset, a closed pipe) while the request
        # is read or any answer written, whatever the route, ends its
        # connection, quietly: socketserver would print a traceback on
        # stderr for each, even under -q (the demo's server and a build's)
        try:
            super().handle()
        except ConnectionError:
            self.close_connection = True

    def _answer(self, body: bool) -> None:
        raise NotImplementedError

    def _send(
        self, status: int, data: bytes, ctype: str, body: bool, headers: dict | None = None
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        if body:
            self.wfile.write(data)

    def _send_file(self, status: int, path: Path, ctype: str, body: bool) -> None:
        """``path``'s bytes, never read whole: a HEAD gets its size from the
        file system, a GET the file copied in chunks (a 1 GiB file in a
        build costs 64 KiB of memory, not 1 GiB).  A client that hangs up
        mid-body (linkaudit stops reading a page at its size cap) ends the
        connection, quietly."""
        try:
            file = open(path, "rb")  # noqa: SIM115 - closed below, after the copy
        except OSError:  # gone or unreadable since it was found
            self._send(404, b"<h1>Not Found</h1>", "text/html", body)
            return
        with file:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(os.fstat(file.fileno()).st_size))
            self.end_headers()
            if not body:
                return
            try:
                shutil.copyfileobj(file, self.wfile, _CHUNK)
            except OSError:  # the client hung up, or the file went bad: the answer ends
                self.close_connection = True

    def _own_host(self) -> bool:
        """The request names this server, ``127.0.0.1:PORT``, in its one
        ``Host``.  A page in the user's browser that rebinds its own DNS name
        to 127.0.0.1 reaches this port as a same-origin request, but its
        ``Host`` is still its own name: answered 421, no file is looked up."""
        hosts = self.headers.get_all("Host") or []
        port = self.server.server_port
        # on port 80, clients leave the default port out of Host
        return hosts == [f"127.0.0.1:{port}"] or (port == 80 and hosts == ["127.0.0.1"])

    def _checked(self, body: bool) -> None:
        if self._own_host():
            self._answer(body)
        else:
            self._send(421, MISDIRECTED_BODY, "text/html", body)

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        self._checked(body=True)

    def do_HEAD(self) -> None:  # noqa: N802
        self._checked(body=False)


class LocalSite:
    """A site served on 127.0.0.1 and a free port, in a daemon thread, for
    the length of a ``with`` block."""

    served = True  # (a build read from its files is not: localbuild/directory.py)

    def _serve(
        self, handler: type[BaseHTTPRequestHandler], path: str, ports: tuple[int, ...] = (0,)
    ) -> None:
        """Serve on the first of ``ports`` that is free (0: any)."""
        for port in ports:
            try:
                self.server = LocalHTTPServer(("127.0.0.1", port), handler)
                break
            except OSError:  # taken: the next one (the last is 0, always free)
                if port == ports[-1]:
                    raise
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}{path}"
        # shutdown() waits for the loop's next poll: Python's default of
        # 0.5 s was half a second added to every ``linkaudit DIR``, 0.05 s
        # still 5 % of a walk of a small build; a hundred idle wake-ups a
        # second cost nothing measurable
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )

    def __enter__(self) -> Self:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)
