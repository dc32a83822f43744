"""TCP servers that misbehave on purpose: they speak HTTP badly or not at all.

Each answers ``/robots.txt`` with a clean 404 (so the fault under test is
met by the link check, not by the robots.txt fetch), then does its trick
for every other request.  Every wait is bounded by ``hold``.
"""

from __future__ import annotations

import select
import socket
import struct
import threading
import time
from collections.abc import Callable

Trick = Callable[[socket.socket, str], None]
HOLD = 30.0  # the longest any trick keeps a connection open


def _read_request(conn: socket.socket) -> tuple[str, str] | None:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return None
        data += chunk
    method, path, _ = data.split(b"\r\n", 1)[0].decode("latin-1").split(" ", 2)
    return method, path


def silent(conn: socket.socket, method: str) -> None:
    """Accepts and never answers."""
    conn.settimeout(HOLD)
    try:
        conn.recv(1)  # returns when the client gives up
    except OSError:
        pass


def _headers(length: int, ctype: str = "text/html") -> bytes:
    return (
        f"HTTP/1.1 200 OK\r\nContent-Type: {ctype}\r\nContent-Length: {length}\r\n\r\n"
    ).encode()


def stall_body(conn: socket.socket, method: str) -> None:
    """Sends the headers, then nothing of the promised body."""
    conn.sendall(_headers(1000))
    if method != "HEAD":
        conn.sendall(b"<html>")
        silent(conn, method)


def drip(conn: socket.socket, method: str) -> None:
    """A byte a second."""
    if method == "HEAD":
        conn.sendall(_headers(100))
        return
    head = _headers(100)
    deadline = time.monotonic() + HOLD
    for byte in head + b"x" * 100:
        if time.monotonic() > deadline:
            return
        try:
            conn.sendall(bytes([byte]))
        except OSError:
            return
        time.sleep(1.0)


def reset_mid_body(conn: socket.socket, method: str) -> None:
    """Headers and half the body, then a TCP reset."""
    conn.sendall(_headers(100_000))
    if method != "HEAD":
        conn.sendall(b"<html>" + b"x" * 20_000)
        time.sleep(0.2)
        # SO_LINGER 0: close() sends RST instead of FIN
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))


def close_without_response(conn: socket.socket, method: str) -> None:
    """Reads the request and hangs up."""


def garbage(conn: socket.socket, method: str) -> None:
    """Answers something that is not HTTP."""
    conn.sendall(b"SSH-2.0-OpenSSH_9.2\r\n\x00\x01\x02 certainly not HTTP\r\n\r\n")


class RawServer:
    """``trick`` on 127.0.0.1, a free port, one thread per connection."""

    __test__ = False

    def __init__(self, trick: Trick, robots: bool = True):
        self.trick = trick
        self.robots = robots  # False: the trick answers robots.txt too
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.requests: list[tuple[str, str]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            threading.Thread(target=self._handle, args=(conn,), daemon=True).start()

    def _handle(self, conn: socket.socket) -> None:
        with conn:
            try:
                conn.settimeout(HOLD)
                request = _read_request(conn)
                if request is None:
                    return
                method, path = request
                self.requests.append((method, path))
                if path == "/robots.txt" and self.robots:
                    conn.sendall(
                        b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                    )
                    return
                self.trick(conn, method)
            except OSError:
                pass

    def __enter__(self) -> RawServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        self.sock.close()


class DroppingPort:
    """A port on 127.0.0.1 that never completes a connection, as a server
    whose packets are dropped (a firewall's DROP, a machine that is down):
    nothing is refused, nothing answered.  A listening socket whose accept
    queue is full and never read: Linux drops a SYN while the queue is
    full, so a client's connect waits (resending its SYN) until its own
    timeout."""

    __test__ = False

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(0)
        self.port = self.sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._fillers: list[socket.socket] = []

    def __enter__(self) -> DroppingPort:
        # connections that complete fill the queue; the first one that does
        # not is the proof that it is full
        for _ in range(16):
            filler = socket.socket()
            self._fillers.append(filler)
            filler.setblocking(False)
            filler.connect_ex(("127.0.0.1", self.port))
            _, connected, _ = select.select([], [filler], [], 0.5)
            if not connected:
                return self
        self.__exit__()
        raise RuntimeError("the accept queue never filled: connections are not dropped here")

    def __exit__(self, *exc: object) -> None:
        for filler in self._fillers:
            filler.close()
        self.sock.close()
