"""A host that throttles is not broken (hosts/backoff.py, rules/backoff.py):
real servers on 127.0.0.1 that reset connections beyond two at a time, or
answer 503, 429 or 430 for a while part way through; every URL ends as a
browser would see it, each asked a bounded number of times (the servers'
own logs), and the retries counted in ``summary.retries``."""

from __future__ import annotations

import socket
import struct
import threading
import time
from collections import Counter

import pytest

from linkaudit.rules.backoff import THROTTLE_TRIES, BackoffPolicy, HostBackoff, throttle_verdict
from tests.conftest import run_crawl
from tests.rawserver import RawServer
from tests.server import Route, TestServer

PAGES = 24


class LimitConn(RawServer):
    """An HTML site on 127.0.0.1 that, as nginx's ``limit_conn`` with 444,
    resets every connection that would make more than ``limit`` requests in
    progress at once; each answer takes ``work`` seconds.  ``bad`` paths
    are reset always, however few are in progress.  ``log``: (method, path,
    "reset" or "ok") of every request read."""

    def __init__(self, limit: int = 2, work: float = 0.05, bad: tuple[str, ...] = ()):
        super().__init__(trick=lambda conn, method: None)
        self.limit, self.work, self.bad = limit, work, bad
        self.log: list[tuple[str, str, str]] = []
        self.busy = 0
        self.lock = threading.Lock()

    def page(self, path: str) -> bytes:
        if path == "/":
            return "".join(f'<a href="/p{i}">p{i}</a>\n' for i in range(PAGES)).encode()
        return f"<html><title>{path}</title><p>{path}</p></html>".encode()

    def _handle(self, conn: socket.socket) -> None:
        with conn:
            conn.settimeout(10)
            data = b""
            try:
                while b"\r\n\r\n" not in data:
                    chunk = conn.recv(65536)
                    if not chunk:
                        return
                    data += chunk
            except OSError:
                return
            method, path, _ = data.split(b"\r\n", 1)[0].decode("latin-1").split(" ", 2)
            if path == "/robots.txt":
                conn.sendall(
                    b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                )
                return
            with self.lock:
                over = self.busy >= self.limit or path in self.bad
                self.log.append((method, path, "reset" if over else "ok"))
                self.busy += 0 if over else 1
            if over:
                # SO_LINGER 0: close() sends RST, no answer at all
                conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                return
            try:
                time.sleep(self.work)
                body = self.page(path)
                head = (
                    f"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n"
                    f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
                ).encode()
                conn.sendall(head if method == "HEAD" else head + body)
            except OSError:
                pass
            finally:
                with self.lock:
                    self.busy -= 1


def asks(log: list[tuple[str, str, str]]) -> Counter[str]:
    return Counter(path for _method, path, _what in log)


def test_a_host_that_resets_connections_beyond_two_has_every_url_ok(tmp_path):
    with LimitConn(limit=2) as site:
        crawl = run_crawl(
            tmp_path,
            "-a",
            f"start={site.url}/",
            settings={"CONCURRENT_REQUESTS_PER_DOMAIN": "4", "DOWNLOAD_TIMEOUT": "5"},
            timeout=90,
        )
    assert crawl.report is not None, crawl.stderr[-3000:]
    resets = [entry for entry in site.log if entry[2] == "reset"]
    assert resets, "the server never had to reset: the test tests nothing"
    for path in ["/", *(f"/p{i}" for i in range(PAGES))]:
        entry = crawl.url(f"{site.url}{path}")
        assert entry["outcome"] == "ok", entry
    # a HEAD and the GET that scans, and one of them asked again at most
    most = max(asks(site.log).values())
    assert most <= 3, asks(site.log)
    summary = crawl.report["summary"]
    assert summary["broken"] == 0 and summary["retries"] >= len(resets), summary
    assert "127.0.0.1 throttles (closed connections)" in crawl.stderr


class Burst:
    """A fault of a TestServer: after ``ok`` answers (robots.txt aside), the
    next ``count`` requests answer ``status``, then all is well again."""

    def __init__(self, status: int, ok: int, count: int):
        self.status, self.ok, self.count = status, ok, count
        self.seen = 0
        self.lock = threading.Lock()

    def __call__(self, path: str) -> Route | None:
        if path == "/robots.txt":
            return None
        with self.lock:
            self.seen += 1
            n = self.seen
        if self.ok < n <= self.ok + self.count:
            return Route(self.status, "<h1>Slow down</h1>")
        return None


@pytest.mark.parametrize("status", [503, 429, 430])
def test_a_burst_part_way_through_leaves_every_url_ok(tmp_path, status):
    with TestServer() as server:
        server.add("/", "".join(f'<a href="/p{i}">p{i}</a>' for i in range(PAGES)))
        for i in range(PAGES):
            server.add(f"/p{i}", f"<p>page {i}</p>")
        server.fault = Burst(status, ok=10, count=6)
        crawl = run_crawl(
            tmp_path,
            "-a",
            f"start={server.url}/",
            # one GET a page (no HEAD whose failure a GET would make good);
            # a 429's own wait (no Retry-After) short: the burst is the test
            settings={"LINKAUDIT_HEAD_FIRST": "False", "LINKAUDIT_RETRY_AFTER_DEFAULT": "0.2"},
            timeout=90,
        )
    assert crawl.report is not None, crawl.stderr[-3000:]
    assert sum(1 for hit in server.log if hit.status == status) == 6
    for i in range(PAGES):
        entry = crawl.url(f"{server.url}/p{i}")
        assert entry["outcome"] == "ok", entry
    summary = crawl.report["summary"]
    assert summary["broken"] == 0 and summary["unchecked"] == 0, summary
    assert summary["retries"] >= 6, summary
    per_path = Counter(hit.path for hit in server.log if hit.path != "/robots.txt")
    assert max(per_path.values()) <= 1 + THROTTLE_TRIES, per_path


def test_a_url_that_fails_even_alone_gets_its_verdict(tmp_path):
    """``/p3`` resets every connection and ``/gone`` answers 503 always; the
    host answers the rest: those two are broken, each asked again while
    alone, and not more than three times a request."""
    with LimitConn(limit=2, bad=("/p3",)) as site, TestServer() as far:
        far.add("/fine", "<p>fine</p>")
        far.add("/gone", Route(503, "<h1>Service Unavailable</h1>"))
        far.add("/", '<a href="/fine">a</a><a href="/gone">b</a>')
        original = site.page
        site.page = lambda path: (  # type: ignore[method-assign]
            original(path) + f'<a href="{far.url}/">far</a>'.encode()
            if path == "/"
            else original(path)
        )
        crawl = run_crawl(
            tmp_path,
            "-a",
            f"start={site.url}/",
            "-a",
            f"near={site.url}/,{far.url}/",
            settings={"DOWNLOAD_TIMEOUT": "5"},
            timeout=90,
        )
    assert crawl.report is not None, crawl.stderr[-3000:]
    bad = crawl.url(f"{site.url}/p3")
    assert bad["outcome"] == "broken" and bad["error"].startswith("Connection"), bad
    gone = crawl.url(f"{far.url}/gone")
    assert gone["outcome"] == "broken" and gone["status"] == 503, gone
    for i in range(PAGES):
        if i != 3:
            assert crawl.url(f"{site.url}/p{i}")["outcome"] == "ok"
    assert crawl.url(f"{far.url}/fine")["outcome"] == "ok"
    resets = asks(site.log)["/p3"]
    assert 2 <= resets <= 1 + THROTTLE_TRIES, site.log
    gone_asks = [hit.method for hit in far.log if hit.path == "/gone"]
    # HEAD, asked again alone (the host answers the rest), then the GET:
    # the URL already failed alone, its GET's 503 is the verdict
    assert gone_asks == ["HEAD", "HEAD", "GET"], gone_asks
    assert crawl.report["summary"]["retries"] >= 2


# -- the rules alone ---------------------------------------------------------


def test_rules_a_throttle_drops_to_one_connection_and_climbs_back_to_half():
    host = HostBackoff(BackoffPolicy(window=4))
    assert host.throttle(6) is True and host.lanes == 1 and host.ceiling == 3
    assert host.delay >= 0.25  # unhurried, even with no delay of its own
    assert host.throttle(1) is False and host.throttles == 1  # the same spell
    lanes = [host.calm_answer() for _ in range(12)]
    assert [n for n in lanes if n is not None] == [2, 3]  # a window of calm each
    assert host.lanes == 3  # half the 6 it throttled at, no more
    host.throttle(3)
    assert host.lanes == 1 and host.ceiling == 1
    assert [host.calm_answer() for _ in range(8)] == [None] * 8


def test_rules_a_verdict_only_once_asked_alone_or_the_tries_spent():
    # a first failure is always asked again, alone or not
    assert not throttle_verdict(0, alone=True, fine_since=True)
    assert not throttle_verdict(1, alone=False, fine_since=True)
    # the host failed everything meanwhile: a burst, not the URL
    assert not throttle_verdict(1, alone=True, fine_since=False)
    assert throttle_verdict(1, alone=True, fine_since=True)
    # the URL's tries spent (its HEAD's and GET's together): the verdict
    assert throttle_verdict(THROTTLE_TRIES, alone=False, fine_since=False)
