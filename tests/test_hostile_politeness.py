"""Hostile servers against politeness: header values our parsers used to
fail on, a robots.txt that never answers, a host that asks for long waits.
Each a real server on 127.0.0.1; assertions on the report, the exit code
and the servers' request logs."""

from __future__ import annotations

import json
import threading
import time

from tests.conftest import check_no_fault, validate
from tests.helpers import run
from tests.server import Route, TestServer

BOUND = 60  # seconds: every crawl here is bounded


def utf8(text: str) -> str:
    """``text`` as a server sends it, UTF-8 on the wire (the test server
    writes header values as latin-1)."""
    return text.encode().decode("latin-1")


# Header values Python's parsers take for numbers or dates and then fail
# on: str.isdigit() accepts "²" (one byte, 0xB2), int() "٣"; a date whose
# offset carries it past year 9999 overflows when converted; int() refuses
# more than 4300 digits.  Each is read as absent.
ODD_HEADERS = {
    "Last-Modified": "Fri, 31 Dec 9999 23:59:59 -2359",
    "Date": "Fri, 31 Dec 9999 23:59:59 -2359",
    "Expires": utf8("Fri, ٣1 Dec 2099 23:59:59 GMT"),
    "Age": "²",
}


def test_odd_numbers_and_dates_in_headers_are_read_as_absent(tmp_path, server):
    """Before: ``Retry-After: ²`` and that Last-Modified were an internal
    error of each URL answering them (exit 4, the pages never scanned)."""
    pages = ["/retry-super", "/retry-arabic", "/dated", "/odd-date", "/fine"]
    links = [*pages, "/length", "/retry-huge"]
    server.add("/", "".join(f'<a href="{p}">{p}</a>' for p in links))
    server.add(
        "/robots.txt", Route(body="User-agent: *\nCrawl-delay: ²\n", content_type="text/plain")
    )
    # the first answer a 429 whose Retry-After is no number: the default wait
    for path, value in [("/retry-super", "²"), ("/retry-arabic", utf8("٣"))]:
        server.add(
            path,
            Route(
                sequence=[(429, {"Retry-After": value}), (200, {})],
                body=f'<a href="{path}/next">next</a>',
            ),
        )
        server.add(f"{path}/next", "next")
    # 10**5000 seconds: longer than LINKAUDIT_RETRY_AFTER_MAX, not waited for
    server.add("/retry-huge", Route(429, "busy", headers={"Retry-After": "9" * 5000}))
    server.add("/dated", Route(body='<a href="/dated/next">n</a>', headers=dict(ODD_HEADERS)))
    server.add("/dated/next", "next")
    odd = {"Last-Modified": utf8("Wed, ٢1 Oct 2015 07:28:00 GMT")}  # Arabic-Indic digits
    server.add("/odd-date", Route(body='<a href="/odd-date/next">n</a>', headers=odd))
    server.add("/odd-date/next", "next")
    server.add(
        "/fine", Route(body="fine", headers={"Last-Modified": "Wed, 21 Oct 2015 07:28:00 GMT"})
    )
    # a Content-Length Twisted must refuse (RFC 9112, 6.3): that URL alone is
    # broken, in words (no Content-Length of the test server's own: streamed)
    server.add(
        "/length", Route(headers={"Content-Length": "²"}, stream=lambda: iter([b"<p>x</p>"]))
    )
    report = tmp_path / "report.json"
    out = run(
        tmp_path,
        f"{server.url}/",
        "--delay",
        "0",
        "--report",
        str(report),
        "-s",
        "LINKAUDIT_RETRY_AFTER_DEFAULT=0.5",
        "--format",
        "json",
        timeout=BOUND,
    )

    data = json.loads(report.read_text())
    validate(data)
    check_no_fault(out.stdout, out.stderr, report=data)
    entries = {u["url"].removeprefix(server.url): u for u in data["urls"]}
    length, huge = entries.pop("/length"), entries.pop("/retry-huge")
    assert (length["outcome"], length["error"]) == (
        "broken",
        "Invalid HTTP response: Value contains non-decimal digits: b'\\xb2'",
    ), length
    assert out.returncode == 1, out.stderr[-3000:]  # that broken link, no internal error
    # every other page answered and was scanned: its link was found and checked
    assert {u: e["outcome"] for u, e in entries.items()} == {
        u: "ok" for u in ["/", *pages, *(f"{p}/next" for p in pages if p != "/fine")]
    }
    assert entries["/dated"]["page"]["last_modified"] is None
    assert entries["/odd-date"]["page"]["last_modified"] is None
    assert entries["/fine"]["page"]["last_modified"] == "2015-10-21T07:28:00+00:00"
    for path in ["/retry-super", "/retry-arabic"]:  # waited the default, then asked again
        heads = server.hits(path, "HEAD")
        assert [h.status for h in heads] == [429, 200], path
        assert heads[1].arrived - heads[0].at >= 0.45, path
    assert (huge["outcome"], huge["status"]) == ("unchecked", 429), huge


def test_a_robots_txt_that_never_answers_leaves_its_urls_unchecked(tmp_path, server):
    """Before: the robots.txt's timeout made the host failure cache take the
    host for dead, and its URLs, never requested, were ``broken: Timed out
    after 2 s``.  Now they are ``unchecked``, the reason naming robots.txt,
    and still never requested (RFC 9309: an unreachable robots.txt means
    no crawling)."""
    release = threading.Event()
    with TestServer(host="127.0.0.2") as slow:
        # answers only once the test is over (bounded: the crawl's own bound)
        slow.add("/robots.txt", Route(body="", gate=lambda: release.wait(BOUND)))
        for i in range(3):
            slow.add(f"/p{i}", "page")
        far = [f'<a href="{slow.url}/p{i}">p</a>' for i in range(3)]
        server.add("/", "\n".join([*far, '<a href="/near">n</a>']))
        server.add("/near", "near")
        report = tmp_path / "report.json"
        started = time.monotonic()
        try:
            out = run(
                tmp_path,
                f"{server.url}/",
                "--delay",
                "0",
                "--report",
                str(report),
                "-s",
                "DOWNLOAD_TIMEOUT=2",
                timeout=BOUND,
            )
        finally:
            release.set()
        elapsed = time.monotonic() - started
    data = json.loads(report.read_text())
    validate(data)
    check_no_fault(out.stdout, out.stderr, report=data)
    assert slow.arrivals == ["/robots.txt"]  # nothing else was asked
    for i in range(3):
        entry = next(u for u in data["urls"] if u["url"] == f"{slow.url}/p{i}")
        assert entry["outcome"] == "unchecked", entry
        assert entry["error"].startswith(
            f"robots.txt of 127.0.0.2:{slow.port} did not answer within 2 s"
        ), entry
    assert not [u for u in data["urls"] if u["outcome"] == "broken"]
    assert {u["url"]: u["outcome"] for u in data["urls"] if u["url"].startswith(server.url)} == {
        f"{server.url}/": "ok",
        f"{server.url}/near": "ok",
    }
    assert data["complete"] is False and out.returncode == 3, out.stderr[-3000:]
    assert elapsed < 2 * 2 + 15  # one robots.txt timeout, not one per URL
