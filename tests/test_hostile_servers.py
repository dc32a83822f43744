"""Servers that attack the crawl's memory and time: robots.txt bombs and
endless robots.txt on a far host, a page of many tiny gzip members, endless
redirect chains near and far.  Each crawl runs as a user runs it, its peak
memory measured on its own (never the test worker's cumulative
RUSAGE_CHILDREN) and its wall time bounded."""

from __future__ import annotations

import gzip
import itertools
import json
import os
import socket
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import brotli
import pytest

from tests.conftest import (
    ROOT,
    Crawl,
    Spawned,
    check_no_fault,
    crawl_command,
    validate,
)
from tests.peak import measure
from tests.rawserver import HOLD, RawServer
from tests.redisserver import RedisServer
from tests.server import Route, TestServer
from tests.shared import QUICK, Worker, finish, the_report
from tests.sitegen import LINKAUDIT

KiB, MiB = 1024, 1024 * 1024
PEAK_LIMIT = 300 * MiB  # a crawl of a few URLs is about 100 MB
RULES = b"User-agent: *\nDisallow: /private\n"
FILLER = b"# " + b"x" * 60 + b"\n"
LIMIT = 60  # seconds any crawl here may take (they take a few)


@dataclass
class Measured(Crawl):
    peak: int = 0  # bytes
    seconds: float = 0.0


def measured_crawl(tmp_path: Path, *args: str, settings: dict | None = None) -> Measured:
    """A crawl (tests/conftest.py's command), with its peak memory and wall time."""
    cmd = crawl_command(tmp_path, *args, settings=settings)
    run = measure(cmd, limit=LIMIT, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    report_file = tmp_path / "report.json"
    report = json.loads(report_file.read_text()) if report_file.exists() else None
    if report is not None:
        validate(report)
        check_no_fault(report=report)
    proc = run.proc
    return Measured(
        proc.returncode, proc.stdout, proc.stderr, report, run.peak_kib * KiB, run.seconds
    )


def _open_seconds(stderr: str) -> int:
    """Seconds from "Spider opened" to "Spider closed" in the crawl's log
    (the start-up of Python and Scrapy left out: it varies with the load)."""
    stamps = {}
    for line in stderr.splitlines():
        for event in ("Spider opened", "Spider closed"):
            if event in line:
                stamps[event] = datetime.strptime(line[:19], "%Y-%m-%d %H:%M:%S")
    return int((stamps["Spider closed"] - stamps["Spider opened"]).total_seconds())


def _site(near: TestServer, far: str) -> str:
    near.add("/", f'<a href="{far}/private">p</a> <a href="{far}/public">o</a>')
    return f"{near.url}/"


def _assert_far_rules_read(crawl: Measured, far: str) -> None:
    """The rules at the top of the far robots.txt were read and obeyed."""
    assert crawl.peak < PEAK_LIMIT, crawl.peak
    assert crawl.seconds < 30
    assert crawl.url(f"{far}/private")["outcome"] == "blocked"
    assert crawl.url(f"{far}/public")["outcome"] == "ok"


# -- robots.txt of a far host ------------------------------------------------
def _gzip_bomb(size: int) -> bytes:
    """``RULES`` then ``size`` bytes of empty lines, gzipped: about 1 MB
    per GiB.  Each MiB is compressed once and repeated (a full flush resets
    the dictionary); the stream ends without its trailer, as a cut download."""
    comp = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    head = comp.compress(RULES) + comp.flush(zlib.Z_FULL_FLUSH)
    block = comp.compress(b"\n" * MiB) + comp.flush(zlib.Z_FULL_FLUSH)
    return head + block * (size // MiB)


def _brotli_bomb(size: int) -> bytes:
    comp = brotli.Compressor(quality=5)
    block = b"\n" * MiB
    return (
        comp.process(RULES)
        + b"".join(comp.process(block) for _ in range(size // MiB))
        + comp.finish()
    )


@pytest.mark.parametrize(
    "encoding, bomb",
    [("gzip", lambda: _gzip_bomb(1024 * MiB)), ("br", lambda: _brotli_bomb(256 * MiB))],
)
def test_compressed_robots_bomb_of_a_far_host(tmp_path, server, encoding, bomb):
    body = bomb()
    assert len(body) < 2 * MiB
    with TestServer(host="127.0.0.2") as far:
        far.add(
            "/robots.txt",
            Route(body=body, content_type="text/plain", headers={"Content-Encoding": encoding}),
        )
        far.add("/*", "ok")
        crawl = measured_crawl(tmp_path, "-a", f"start={_site(server, far.url)}")
    _assert_far_rules_read(crawl, far.url)
    assert "is larger than 512000 bytes" in crawl.stderr


def _endless_plain():
    yield RULES
    for _ in itertools.count():
        yield FILLER * 1024


def test_endless_robots_of_a_far_host_is_read_to_its_cap(tmp_path, server):
    with TestServer(host="127.0.0.2") as far:
        far.add("/robots.txt", Route(stream=_endless_plain, content_type="text/plain"))
        far.add("/*", "ok")
        crawl = measured_crawl(tmp_path, "-a", f"start={_site(server, far.url)}")
        (robots,) = far.hits("/robots.txt")
    _assert_far_rules_read(crawl, far.url)
    # the download stopped at the cap: only socket buffers more were sent
    assert robots.body_bytes < 16 * MiB


def _endless_chunked(conn: socket.socket, method: str) -> None:
    """HEAD: 200.  GET (robots.txt): "1 GiB" announced, chunked, never ending."""
    if method == "HEAD":
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        return
    conn.sendall(
        b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n"
    )
    deadline = time.monotonic() + HOLD
    chunk = FILLER * 1024
    for piece in itertools.chain([RULES], itertools.repeat(chunk)):
        if time.monotonic() > deadline:
            return
        conn.sendall(b"%x\r\n%s\r\n" % (len(piece), piece))


def test_endless_chunked_robots_of_a_far_host(tmp_path, server):
    with RawServer(_endless_chunked, robots=False) as far:
        crawl = measured_crawl(tmp_path, "-a", f"start={_site(server, far.url)}")
    _assert_far_rules_read(crawl, far.url)


def test_robots_cap_is_a_setting(tmp_path, server):
    """Rules past the cap are not read (RFC 9309 2.5: a crawler may stop there)."""
    with TestServer(host="127.0.0.2") as far:
        body = b"User-agent: *\n" + FILLER * 200 + b"Disallow: /private\n"
        far.add("/robots.txt", Route(body=body, content_type="text/plain"))
        far.add("/*", "ok")
        crawl = measured_crawl(
            tmp_path,
            "-a",
            f"start={_site(server, far.url)}",
            settings={"LINKAUDIT_ROBOTSTXT_MAXSIZE": str(8 * KiB)},
        )
    assert crawl.url(f"{far.url}/private")["outcome"] == "ok"
    assert "is larger than 8192 bytes" in crawl.stderr


# -- many gzip members -------------------------------------------------------
def _many_members(first: bytes, total: int, each: bytes = b"") -> bytes:
    """``first`` gzipped, then gzip members of ``each`` (20 bytes when
    empty) up to ``total`` bytes."""
    member = gzip.compress(each, mtime=0)
    return gzip.compress(first, mtime=0) + member * (total // len(member))


def test_page_of_many_gzip_members_does_not_stall_the_crawl(tmp_path, server):
    html = b'<html><body><a href="/inside">in</a></body></html>'
    server.add("/", Route(body=_many_members(html, 5 * MiB), headers={"Content-Encoding": "gzip"}))
    server.add("/inside", "ok")
    crawl = measured_crawl(
        tmp_path, "-a", f"start={server.url}/", settings={"CLOSESPIDER_TIMEOUT": "5"}
    )
    assert crawl.seconds < 30  # the old quadratic inflation took 48 s of CPU
    assert _open_seconds(crawl.stderr) <= 8  # --max-time 5 holds (it was ignored for 31 s)
    home = crawl.url(f"{server.url}/")
    assert home["outcome"] == "ok" and home["truncated"] is True
    assert crawl.url(f"{server.url}/inside")["outcome"] == "ok"
    assert crawl.report["finish_reason"] == "finished"


GiB = 1024 * MiB


def _announces_more_than_scrapy_takes(far: str) -> Callable[[socket.socket, str], None]:
    """A page whose ``Content-Length`` is over Scrapy's ``DOWNLOAD_MAXSIZE``
    (1 GiB + 1 byte): its link, then filler until the client hangs up."""
    head = (
        f"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {GiB + 1}\r\n\r\n"
    ).encode()

    def trick(conn: socket.socket, method: str) -> None:
        conn.sendall(head)
        if method == "HEAD":
            return
        conn.sendall(f'<a href="{far}/missing">a link past the headers</a>\n'.encode())
        deadline = time.monotonic() + HOLD
        try:
            while time.monotonic() < deadline:
                conn.sendall(FILLER * 1024)
        except OSError:  # the client read its cap and hung up
            pass

    return trick


def test_a_near_page_announcing_more_than_download_maxsize_is_read_to_its_cap(tmp_path, server):
    """As a build's page is (tests/test_doors_parity.py): read to the page
    cap, scanned, ``truncated``, never "Download cancelled"."""
    server.add("/missing", Route(404, "no"))
    with RawServer(_announces_more_than_scrapy_takes(server.url)) as near:
        crawl = measured_crawl(
            tmp_path, "-a", f"start={near.url}/", settings={"LINKAUDIT_PAGE_MAXSIZE": "200000"}
        )
    assert crawl.peak < PEAK_LIMIT and crawl.seconds < 30
    home = crawl.url(f"{near.url}/")
    assert (home["outcome"], home.get("error"), home.get("truncated")) == ("ok", None, True)
    missing = crawl.url(f"{server.url}/missing")
    assert missing["outcome"] == "broken"
    assert missing["referrers"] == [{"url": f"{near.url}/", "line": 1}]
    assert "larger than 200000 bytes: the rest was not read" in crawl.stderr


def test_sitemap_of_many_gzip_members(tmp_path, server):
    urlset = b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>/a</loc></url></urlset>'
    server.add("/", "home")
    server.add(
        "/sitemap.xml.gz",
        Route(body=_many_members(urlset, 16 * MiB, b"\n"), content_type="application/gzip"),
    )
    crawl = measured_crawl(
        tmp_path, "-a", f"start={server.url}/", "-a", f"sitemap={server.url}/sitemap.xml.gz"
    )
    assert crawl.seconds < 30  # the old inflation: minutes (4 MiB took 10 to 30 s)
    assert "more than 10000 gzip members" in crawl.stderr
    assert crawl.url(f"{server.url}/sitemap.xml.gz")["outcome"] == "ok"


# -- endless redirect chains ---------------------------------------------------
class EndlessRedirects(TestServer):
    """``/r/N`` redirects to ``/r/N+1`` (on ``other``, if set), for ever;
    other paths as routed."""

    __test__ = False
    other: TestServer | None = None

    def route_for(self, path: str) -> Route | None:
        if path.startswith("/r/") and path[3:].isdigit():
            origin = self.other.url if self.other is not None else ""
            return Route(302, "", headers={"Location": f"{origin}/r/{int(path[3:]) + 1}"})
        return super().route_for(path)


@pytest.mark.parametrize("where", ["near", "far"])
def test_endless_redirect_chain_is_broken_at_twenty_hops(tmp_path, where):
    with EndlessRedirects() as near, EndlessRedirects(host="127.0.0.2") as far:
        chain = near if where == "near" else far
        near.add("/", f'<a href="/ok">ok</a>\n<a href="{chain.url}/r/0">chain</a>')
        near.add("/ok", "ok")
        crawl = measured_crawl(tmp_path, "-a", f"start={near.url}/")
        requested = {h.path for h in chain.hits() if h.path.startswith("/r/")}
    assert crawl.seconds < 30 and crawl.peak < PEAK_LIMIT
    assert crawl.report["finish_reason"] == "finished"
    assert crawl.report["summary"]["broken"] == 1
    # /r/0 .. /r/19 are 20 redirects followed; /r/20's would be the 21st
    for n in range(20):
        assert crawl.url(f"{chain.url}/r/{n}")["outcome"] == "redirect"
    last = crawl.url(f"{chain.url}/r/20")
    assert last["outcome"] == "broken" and last["status"] == 302
    assert last["error"] == "Too many redirects: 21 in a row, more than 20 (REDIRECT_MAX_TIMES)"
    assert last["location"] == f"{chain.url}/r/21"
    assert requested == {f"/r/{n}" for n in range(21)}
    assert crawl.url(f"{near.url}/ok")["outcome"] == "ok"
    # the fix-list resolves the link on the page to the chain's broken end
    (fix,) = [f for f in crawl.report["redirect_fixes"] if f["from"] == f"{chain.url}/r/0"]
    assert (fix["to"], fix["hops"], fix["final_outcome"]) == (f"{chain.url}/r/20", 20, "broken")


def test_redirect_limit_is_a_setting(tmp_path):
    with EndlessRedirects() as near:
        near.add("/", '<a href="/r/0">chain</a>')
        crawl = measured_crawl(
            tmp_path, "-a", f"start={near.url}/", settings={"REDIRECT_MAX_TIMES": "3"}
        )
    assert [crawl.url(f"{near.url}/r/{n}")["outcome"] for n in range(4)] == ["redirect"] * 3 + [
        "broken"
    ]
    assert crawl.url(f"{near.url}/r/3")["error"].startswith("Too many redirects: 4 in a row")


def test_endless_redirect_chain_in_a_shared_audit(tmp_path):
    """Two workers on one Redis audit, a chain that goes back and forth
    between two hosts (workers lease hosts): the hops of a chain are counted
    in Redis, whichever worker checks each URL."""
    with (
        EndlessRedirects() as near,
        EndlessRedirects(host="127.0.0.2") as far,
        RedisServer(tmp_path / "redis") as redis,
    ):
        near.other, far.other = far, near
        near.add("/", '<a href="/r/0">chain</a>')
        workers = []
        for i in range(2):
            report = tmp_path / f"worker{i}.json"
            cmd = [LINKAUDIT, f"{near.url}/", "--delay", "0", "--report", str(report)]
            cmd += ["--redis", redis.url, "--audit", "chain"]
            for name, value in QUICK.items():
                cmd += ["-s", f"{name}={value}"]
            workers.append(Worker(Spawned(cmd), report))
        report = the_report(finish(workers, timeout=60))
    entries = {u["url"]: u for u in report["urls"]}
    assert entries[f"{far.url}/r/19"]["outcome"] == "redirect"
    assert entries[f"{near.url}/r/20"]["error"].startswith("Too many redirects: 21 in a row")
    assert f"{far.url}/r/21" not in entries
