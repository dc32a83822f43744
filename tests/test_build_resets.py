"""The servers of ``linkaudit DIR`` and ``--demo`` and clients that hang
up: a reset at any point (before the request, in the middle of it, while
the answer is written, on every route) ends that connection quietly;
stderr stays empty and the server keeps serving."""

from __future__ import annotations

import os
import socket
import struct
import subprocess
import sys
import time
from urllib.parse import urlsplit

import pytest

from tests.conftest import ROOT
from tests.helpers.served import SERVE, request

ROUTES = {
    "GET /": "a page",
    "HEAD /": "a HEAD",
    "GET /missing": "the 404 page",
    "GET /dir": "the directory redirect",
    "GET /nothing/at/all/": "a 404 without a page",
    "GET /mid.bin": "a file larger than a socket buffer",
}


def reset(host: str, port: int, send: bytes = b"", read: int = 0) -> None:
    """Connect, send ``send``, read ``read`` bytes, then hang up with a TCP
    reset (SO_LINGER 0: close() sends RST instead of FIN)."""
    conn = socket.create_connection((host, port), timeout=5)
    try:
        if send:
            conn.sendall(send)
        if read:
            conn.recv(read)
    finally:
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        conn.close()


DEMO = """
import time
from linkaudit.demo.server import DemoSite
with DemoSite() as site:
    print(site.url, flush=True)
    time.sleep(120)
"""


@pytest.mark.parametrize("serve", [SERVE, DEMO], ids=["build", "demo"])
def test_clients_that_reset_leave_no_traceback(tmp_path, serve):
    build = tmp_path / "public"
    (build / "dir").mkdir(parents=True)
    (build / "index.html").write_text('<a href="dir/">d</a>')
    (build / "404.html").write_text("<h1>not here</h1>")
    (build / "dir" / "index.html").write_text("<p>in dir</p>")
    (build / "mid.bin").write_bytes(b"\0" * 3_000_000)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    server = subprocess.Popen(
        [sys.executable, "-c", serve, str(build)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        url = server.stdout.readline().strip()
        parts = urlsplit(url)
        host, port = parts.hostname, parts.port
        # each point several times: whether the reset meets the server's
        # read or its write is a race, and both must be quiet
        for _ in range(5):
            reset(host, port)  # before any request
            reset(host, port, b"GET / HT")  # in the request line
            reset(host, port, b"GET / HTTP/1.1\r\nHost")  # in the headers
            for route in ROUTES:
                method, path = route.split()
                one = f"{method} {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode()
                reset(host, port, one)  # before the answer
                reset(host, port, one, read=1)  # while it is written
                reset(host, port, one * 3, read=1)  # kept alive, more to answer
        time.sleep(0.5)  # the server's threads meet the resets
        assert request(url)[0] == 200  # and it still serves
    finally:
        server.kill()
        _, stderr = server.communicate(timeout=10)
    assert "Traceback" not in stderr, stderr[:3000]
    assert "Exception occurred" not in stderr, stderr[:3000]
    assert stderr.strip() == "", stderr[:3000]
