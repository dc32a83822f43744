"""Servers that misbehave: each fault ends as one broken URL with words that
say what happened, within the timeout, and the crawl goes on."""

from __future__ import annotations

import contextlib
import re
import time
from contextlib import ExitStack

from tests import rawserver
from tests.conftest import bound_ports, run_crawl

TIMEOUT = 2  # DOWNLOAD_TIMEOUT for these crawls

TRICKS = {
    "silent": (rawserver.silent, "Timed out after 2 s"),
    "stall_body": (rawserver.stall_body, "Timed out after 2 s"),
    "drip": (rawserver.drip, "Timed out after 2 s"),
    "reset_mid_body": (rawserver.reset_mid_body, "Connection reset"),
    "close_without_response": (
        rawserver.close_without_response,
        "Connection closed without a response",
    ),
    "garbage": (rawserver.garbage, "Invalid HTTP response"),
}


def test_each_fault_is_a_broken_link_that_says_what_happened(tmp_path, server):
    with ExitStack() as stack:
        raw = {name: stack.enter_context(rawserver.RawServer(t)) for name, (t, _) in TRICKS.items()}
        # near, so that HTML pages are fetched with GET and their bodies met
        links = [f'<a href="{r.url}/page">{n}</a>' for n, r in raw.items()]
        links.append('<a href="/fine">fine</a>')
        server.add("/", "\n".join(links))
        server.add("/fine", "ok")
        near = ",".join([f"{server.url}/", *(f"{r.url}/" for r in raw.values())])
        started = time.monotonic()
        crawl = run_crawl(
            tmp_path,
            "-a",
            f"start={server.url}/",
            "-a",
            f"near={near}",
            settings={"DOWNLOAD_TIMEOUT": str(TIMEOUT)},
        )
        elapsed = time.monotonic() - started
    assert crawl.url(f"{server.url}/fine")["outcome"] == "ok"
    for name, (_, words) in TRICKS.items():
        entry = crawl.url(f"{raw[name].url}/page")
        assert entry["outcome"] == "broken", (name, entry)
        assert entry["error"].startswith(words), (name, entry)
        assert entry["referrers"] == [
            {"url": f"{server.url}/", "line": list(TRICKS).index(name) + 1}
        ]
    assert crawl.report["complete"] is True
    assert "Traceback" not in crawl.stderr
    # a HEAD and a GET fallback at most, each within the timeout; the
    # connection closed without an answer is a throttling host's (all the
    # tricks are one host, 127.0.0.1): from then on it is asked one
    # connection at a time, so the three timing-out tricks wait in turn
    assert elapsed < 3 * 2 * TIMEOUT + 10


def test_a_dead_host_fails_fast_after_its_first_failure(tmp_path, server, closed_port):
    blackhole = rawserver.RawServer(rawserver.silent, robots=False)
    with blackhole:
        links = [f'<a href="{blackhole.url}/b{i}">b</a>' for i in range(10)]
        links += [f'<a href="http://127.0.0.1:{closed_port}/r{i}">r</a>' for i in range(10)]
        links += [f'<a href="http://nosuch.invalid/d{i}">d</a>' for i in range(10)]
        server.add("/", "\n".join(links))
        started = time.monotonic()
        crawl = run_crawl(
            tmp_path,
            "-a",
            f"start={server.url}/",
            # one at a time per host: without the cache, 10 x (HEAD + GET) timeouts
            settings={
                "DOWNLOAD_TIMEOUT": str(TIMEOUT),
                "CONCURRENT_REQUESTS_PER_DOMAIN": "1",
                "DOWNLOAD_DELAY": "0.01",
            },
        )
        elapsed = time.monotonic() - started
    for i in range(10):
        # its robots.txt never answered: not requested, not a verdict (RFC 9309)
        silent = crawl.url(f"{blackhole.url}/b{i}")
        assert silent["outcome"] == "unchecked", silent
        assert silent["error"].startswith(
            f"robots.txt of 127.0.0.1:{blackhole.port} did not answer within 2 s"
        )
        assert crawl.url(f"http://127.0.0.1:{closed_port}/r{i}")["error"] == "Connection refused"
        assert crawl.url(f"http://nosuch.invalid/d{i}")["error"] == (
            "DNS lookup failed for nosuch.invalid"
        )
    # only robots.txt reached the black hole; everything after it failed at once
    assert blackhole.requests == [("GET", "/robots.txt")]
    assert elapsed < 4 * TIMEOUT + 10
    hits = re.search(r"'linkaudit/host_failure_cache/hit': (\d+)", crawl.stderr)
    # the black hole's URLs stop at its robots.txt, before the cache
    assert hits and 18 <= int(hits.group(1)) <= 20, crawl.stderr[-2000:]
    # one clear line per dead host, no traceback
    assert "Traceback" not in crawl.stderr


def test_many_dead_hosts_cost_next_to_nothing(tmp_path, server):
    """100 hosts that do not exist (``.invalid`` never resolves, RFC 6761:
    answered without a query) and 100 closed ports (refused at once, and
    reported at once: Twisted's address race used to add 0.3 s per host).
    Before: about 16 s and 5 s; now the crawl takes about a second."""
    stack = contextlib.ExitStack()
    ports = bound_ports(stack, 100)
    links = [f'<a href="http://h{i}.invalid/x">d</a>' for i in range(100)]
    links += [f'<a href="http://127.0.0.1:{port}/x">r</a>' for port in ports]
    # names DNS cannot carry: the system resolver refused them in a thread
    # (a CRITICAL traceback) and each waited out the download timeout
    long_names = ["a" * 64 + ".example", "b." * 127 + "example"]
    links += [f'<a href="http://{name}/">n</a>' for name in long_names]
    server.add("/", "\n".join(links))
    started = time.monotonic()
    with stack:
        crawl = run_crawl(tmp_path, "-a", f"start={server.url}/")
    elapsed = time.monotonic() - started
    for i in range(100):
        assert crawl.url(f"http://h{i}.invalid/x")["error"] == f"DNS lookup failed for h{i}.invalid"
    refused = [u for u in crawl.report["urls"] if u["error"] == "Connection refused"]
    assert len(refused) == 100
    for name in long_names:
        assert crawl.url(f"http://{name}/")["error"] == f"DNS lookup failed for {name}"
    assert elapsed < 10, elapsed  # generous: a loaded CI machine
