"""A real HTTP server for tests: routes, misbehaviour on demand, and a log
of every request (method, path, headers, body bytes sent, time)."""

from __future__ import annotations

import hashlib
import ssl
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Route:
    status: int = 200
    body: bytes | str = b""
    content_type: str | None = "text/html; charset=utf-8"
    headers: dict[str, str] = field(default_factory=dict)
    head_status: int | None = None  # answer HEAD differently (405, 500...)
    delay: float = 0.0  # seconds before answering
    gate: Callable[[], None] | None = None  # called (and waited for) before answering
    head_delay: float | None = None  # answer HEAD after this instead
    # answers one after the other: (status, headers), then the last repeats
    sequence: list[tuple[int, dict[str, str]]] = field(default_factory=list)
    # a body sent piece by piece with no Content-Length, then the connection
    # closes (endless bodies, drips); ``body`` is ignored
    stream: Callable[[], Iterator[bytes]] | None = None
    head_content_type: str | None = None  # a HEAD that names another type
    head_body: bytes = b""  # a body sent after a HEAD's headers (a broken server)


@dataclass
class Hit:
    method: str
    path: str
    headers: dict[str, str]
    status: int
    body_bytes: int
    at: float  # when the answer was sent (time.monotonic)
    arrived: float = 0.0  # when the request was read


class _HTTPServer(ThreadingHTTPServer):
    # socketserver's default listen backlog is 5: a crawler that opens
    # connections faster than the accepting thread runs (the GIL) overflows
    # it, and each dropped SYN costs the client a 1 s retransmission
    request_queue_size = 128


class TestServer:
    """Serves ``routes`` on 127.0.0.1, a free port; unknown paths are 404."""

    __test__ = False  # not a test class, whatever pytest thinks of the name

    def __init__(
        self,
        routes: dict[str, Route | str] | None = None,
        tls: tuple[str, str] | None = None,  # (certificate file, key file): https
        conditional: bool = False,  # ETag on 200 answers, 304 to a matching If-None-Match
        host: str = "127.0.0.1",  # another loopback address is another host (127.0.0.2)
    ):
        self.host = host
        self.conditional = conditional
        self.delay = 0.0  # seconds added to every answer (a slow server)
        # headers every request must carry (a site behind a password): 401 without
        self.required: dict[str, str] = {}
        self.routes: dict[str, Route] = {}
        self.missing: Route | None = None  # the answer to unknown paths (default: 404)
        # the answer to a path instead of its route, when it gives one (a
        # server that starts failing part way); called in the server's threads
        self.fault: Callable[[str], Route | None] | None = None
        self.log: list[Hit] = []  # answered requests
        self.arrivals: list[str] = []  # paths of requests read, answered or not yet
        self._lock = threading.Lock()
        self._counts: dict[str, int] = {}
        for path, route in (routes or {}).items():
            self.add(path, route)
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # headers and body are two writes: with Nagle and delayed ACKs
            # each answer on a kept-alive connection would wait 40 ms
            disable_nagle_algorithm = True

            def log_message(self, *args: object) -> None:
                pass

            def _answer(self) -> None:
                arrived = time.monotonic()
                path = self.path
                with server._lock:
                    server.arrivals.append(path)
                route = server.route_for(path)
                if server.fault is not None:
                    route = server.fault(path) or route
                if route is None:
                    route = server.missing or Route(404, "<h1>Not Found</h1>")
                if any(self.headers.get(k) != v for k, v in server.required.items()):
                    route = Route(
                        401,
                        "<h1>Unauthorized</h1>",
                        headers={"WWW-Authenticate": 'Basic realm="staging"'},
                    )
                if route.gate is not None:
                    route.gate()
                delay = route.delay + server.delay
                if self.command == "HEAD" and route.head_delay is not None:
                    delay = route.head_delay
                if delay:
                    time.sleep(delay)
                status, extra = route.status, dict(route.headers)
                if route.sequence:
                    with server._lock:
                        n = server._counts.get(path, 0)
                        server._counts[path] = n + 1
                    status, more = route.sequence[min(n, len(route.sequence) - 1)]
                    # a callable value is computed now (a date relative to now)
                    extra.update({k: v() if callable(v) else v for k, v in more.items()})
                if self.command == "HEAD" and route.head_status is not None:
                    status = route.head_status
                body = route.body.encode() if isinstance(route.body, str) else route.body
                if server.conditional and status == 200 and route.stream is None:
                    etag = '"' + hashlib.sha1(body).hexdigest()[:16] + '"'
                    extra.setdefault("ETag", etag)
                    if self.headers.get("If-None-Match") == extra["ETag"]:
                        status, body = 304, b""
                self.send_response(status)
                ctype = route.content_type
                if self.command == "HEAD" and route.head_content_type:
                    ctype = route.head_content_type
                if ctype:
                    self.send_header("Content-Type", ctype)
                for k, v in extra.items():
                    self.send_header(k, v)
                if route.stream is not None and self.command != "HEAD":
                    self.send_header("Connection", "close")
                    self.close_connection = True
                else:
                    self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                sent = 0
                if self.command == "HEAD" and route.head_body:
                    self.wfile.write(route.head_body)
                if route.stream is not None and self.command != "HEAD":
                    try:
                        for piece in route.stream():
                            self.wfile.write(piece)
                            self.wfile.flush()
                            sent += len(piece)
                    except (BrokenPipeError, ConnectionResetError):
                        pass
                elif self.command != "HEAD":
                    try:
                        for i in range(0, len(body), 65536):
                            self.wfile.write(body[i : i + 65536])
                            sent += len(body[i : i + 65536])
                    except (BrokenPipeError, ConnectionResetError):
                        self.close_connection = True
                with server._lock:
                    server.log.append(
                        Hit(
                            self.command,
                            path,
                            dict(self.headers),
                            status,
                            sent,
                            time.monotonic(),
                            arrived,
                        )
                    )

            do_GET = do_HEAD = do_POST = _answer

        self.httpd = _HTTPServer((self.host, 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        scheme = "http"
        if tls is not None:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(*tls)
            self.httpd.socket = context.wrap_socket(self.httpd.socket, server_side=True)
            scheme = "https"
        self.url = f"{scheme}://{self.host}:{self.port}"
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def route_for(self, path: str) -> Route | None:
        """Exact path first; then the longest ``prefix*`` route."""
        route = self.routes.get(path) or self.routes.get(path.split("?")[0])
        if route is None:
            prefixes = [p for p in self.routes if p.endswith("*") and path.startswith(p[:-1])]
            if prefixes:
                route = self.routes[max(prefixes, key=len)]
        return route

    def add(self, path: str, route: Route | str) -> None:
        self.routes[path] = Route(body=route) if isinstance(route, str) else route

    def __enter__(self) -> TestServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    # -- what the tests ask of the log ---------------------------------
    def hits(self, path: str | None = None, method: str | None = None) -> list[Hit]:
        with self._lock:
            return [
                h
                for h in self.log
                if (path is None or h.path == path) and (method is None or h.method == method)
            ]

    def methods(self, path: str) -> list[str]:
        """The methods ``path`` was asked with, in the order the requests
        arrived (the log is in the order answered: a HEAD's answer is
        logged after it is written, and the GET it leads to may be logged
        first)."""
        return [h.method for h in sorted(self.hits(path), key=lambda h: h.arrived)]

    def requested(self, pred: Callable[[Hit], bool]) -> list[Hit]:
        with self._lock:
            return [h for h in self.log if pred(h)]
