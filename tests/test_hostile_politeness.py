"""Hostile servers against politeness: header values our parsers used to
fail on, a robots.txt that never answers, a host that asks for long waits.
Each a real server on 127.0.0.1; assertions on the report, the exit code
and the servers' request logs."""

from __future__ import annotations

import contextlib
import json
import signal
import sys
import threading
import time

from tests.conftest import Spawned, check_no_fault, run_crawl, validate, wait_for
from tests.helpers.command import run
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
        # the wait counts from the answer, written after the request arrived
        assert heads[1].arrived - heads[0].arrived >= 0.5 - 0.05, path
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


class Throttle:
    """A server's fault: every request but robots.txt answers 429 with
    ``Retry-After: seconds`` until ``seconds`` after the first one."""

    def __init__(self, seconds: int):
        self.seconds = seconds
        self.until: float | None = None
        self.lock = threading.Lock()

    def __call__(self, path: str) -> Route | None:
        if path == "/robots.txt":
            return None
        now = time.monotonic()
        with self.lock:
            if self.until is None:
                self.until = now + self.seconds
        if now < self.until:
            return Route(429, "slow down", headers={"Retry-After": str(self.seconds)})
        return None


def test_a_host_asking_to_wait_does_not_hold_the_other_hosts(tmp_path, server):
    """One host answers 429 ``Retry-After: 4`` for 4 s; with two download
    places, its waits used to take both (each wait was slept in a place),
    and the healthy host's URLs, listed after its, waited 4 s and more.  Now
    the wait is the host's: the healthy host's URLs are all checked while
    it lasts (six requests: 2.5 s is generous on a loaded machine), and the
    throttled host's are asked again after it, ok."""
    wait = 4
    throttle = Throttle(wait)
    with TestServer(host="127.0.0.2") as busy:
        busy.fault = throttle
        for i in range(6):
            busy.add(f"/b{i}", "busy page")
        healthy = [f"/h{i}" for i in range(6)]
        for path in healthy:
            server.add(path, "healthy page")
        links = [f'<a href="{busy.url}/b{i}">b</a>' for i in range(6)]
        links += [f'<a href="{path}">h</a>' for path in healthy]
        server.add("/", "\n".join(links))
        crawl = run_crawl(
            tmp_path,
            "-a",
            f"start={server.url}/",
            settings={"CONCURRENT_REQUESTS": "2", "CONCURRENT_REQUESTS_PER_DOMAIN": "2"},
            timeout=BOUND,
        )
    throttled = [h for h in busy.log if h.status == 429]
    assert throttled, [(h.path, h.status) for h in busy.log]
    # the server's log of arrivals: the wait counts from the first 429's
    # answer, written after its request arrived
    first_429 = min(h.arrived for h in throttled)
    # every healthy URL was asked and answered well before the wait was over
    done = [h for h in server.log if h.path in healthy]
    assert {h.path for h in done} == set(healthy)
    assert max(h.at for h in done) < first_429 + wait - 1.5, [
        (h.path, round(h.at - first_429, 2)) for h in done
    ]
    # the throttled host's URLs: asked again after the wait, never before it, ok
    for i in range(6):
        entry = crawl.url(f"{busy.url}/b{i}")
        assert (entry["outcome"], entry["status"]) == ("ok", 200), entry
    for h in busy.log:
        if h.path != "/robots.txt" and h.status == 200:
            assert h.arrived >= first_429 + wait - 0.05, (h.path, h.arrived - first_429)
    assert crawl.report["complete"]
    # what the servers received, each request once
    assert crawl.report["summary"]["requests"] == len(server.log) + len(busy.log)


def test_a_host_asking_to_wait_is_sent_nothing_until_the_wait_is_over(tmp_path, server):
    """Ten URLs queued for one host at its pace (0.2 s): the first answers
    429 ``Retry-After: 2``.  Before, the others queued for it were sent on
    at its pace during the wait and each was answered 429 too; now they are
    taken back and wait with it: one 429, then every URL asked once more."""
    wait = 2
    with TestServer(host="127.0.0.2") as busy:
        busy.fault = Throttle(wait)
        for i in range(10):
            busy.add(f"/b{i}", "busy page")
        server.add("/", "\n".join(f'<a href="{busy.url}/b{i}">b</a>' for i in range(10)))
        crawl = run_crawl(
            tmp_path,
            "-a",
            f"start={server.url}/",
            settings={"DOWNLOAD_DELAY": "0.2"},
            timeout=BOUND,
        )
    asked = [h for h in busy.log if h.path != "/robots.txt"]
    assert [h.status for h in asked].count(429) == 1, [(h.path, h.status) for h in asked]
    first_429 = next(h.arrived for h in asked if h.status == 429)  # the wait follows its answer
    assert all(h.arrived >= first_429 + wait - 0.05 for h in asked if h.status == 200)
    assert len(asked) == 11  # one 429, then each URL once
    assert all(crawl.url(f"{busy.url}/b{i}")["outcome"] == "ok" for i in range(10))
    assert crawl.report["summary"]["requests"] == len(server.log) + len(busy.log)


def test_a_host_answering_429_to_every_new_url_is_not_asked_one_url_per_wait(tmp_path, server):
    """A server that answers 429 ``Retry-After: 3`` to the first request of
    each URL.  Each 429 holds the host; were every request set aside for
    every hold, the host would be asked one URL per wait (6 URLs: about
    20 s).  A request waits for one hold only: two rounds of waits, every
    URL ok.  (A guard of the hold's design: the code before it slept each
    wait in a download place, and passes this test.)"""
    wait = 3
    with TestServer(host="127.0.0.2") as busy:
        for i in range(6):
            busy.add(
                f"/b{i}", Route(sequence=[(429, {"Retry-After": str(wait)}), (200, {})], body="b")
            )
        server.add("/", "\n".join(f'<a href="{busy.url}/b{i}">b</a>' for i in range(6)))
        crawl = run_crawl(
            tmp_path,
            "-a",
            f"start={server.url}/",
            settings={"DOWNLOAD_DELAY": "0.2"},
            timeout=BOUND,
        )
    asked = [h for h in busy.log if h.path != "/robots.txt"]
    first_429 = min(h.at for h in asked if h.status == 429)
    assert max(h.at for h in asked) < first_429 + 4 * wait, [
        (h.path, h.status, round(h.at - first_429, 1)) for h in asked
    ]
    assert all(crawl.url(f"{busy.url}/b{i}")["outcome"] == "ok" for i in range(6))


def stop_at_once(servers: list[TestServer]) -> None:
    """Stop many servers together (each takes up to half a second)."""
    threads = [threading.Thread(target=server.httpd.shutdown) for server in servers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)


def test_a_robots_txt_asking_to_wait_holds_its_host_not_a_download_place(tmp_path, server):
    """Twenty far hosts whose robots.txt answers 429 ``Retry-After: 30``.
    Before, each wait was slept inside the robots.txt's download, and every
    request waiting for it held a download place: the sixteen places were
    taken for the whole wait, the other hosts' links waited with them, and
    Ctrl-C waited too (17 s).  Now the wait is the host's: its requests are
    set aside, the other hosts' links are checked at once, a host whose
    robots.txt asks for one short wait is asked again after it and its
    links checked by its rules, and SIGINT ends the audit within a second
    or two, the report written."""
    report = tmp_path / "report.json"
    with contextlib.ExitStack() as stack:
        healthy = stack.enter_context(TestServer(host="127.0.1.1"))
        patient = stack.enter_context(TestServer(host="127.0.1.2"))
        waiting = [stack.enter_context(TestServer(host=f"127.0.1.{i}")) for i in range(3, 23)]
        stack.callback(stop_at_once, [healthy, patient, *waiting])
        for host in waiting:
            host.add("/robots.txt", Route(429, "busy", headers={"Retry-After": "30"}))
        rules = "User-agent: *\nDisallow: /no\n"
        once = [(429, {"Retry-After": "1"}), (200, {})]
        patient.add("/robots.txt", Route(body=rules, content_type="text/plain", sequence=once))
        healthy.add("/h*", "fine")
        patient.add("/p*", "fine")
        links = [f"{host.url}/w{i}" for host in waiting for i in range(2)]
        links += [f"{healthy.url}/h{i}" for i in range(5)]
        links += [f"{patient.url}/p0", f"{patient.url}/p1", f"{patient.url}/no"]
        server.add("/", "".join(f'<a href="{link}">x</a>' for link in links))
        cmd = [sys.executable, "-m", "linkaudit", f"{server.url}/", "--report", str(report)]
        started = time.monotonic()
        crawl = Spawned([*cmd, "--delay", "0"])
        try:
            checked = [f"/h{i}" for i in range(5)]
            wait_for(
                lambda: (
                    {h.path for h in healthy.log} >= set(checked)
                    and {h.path for h in patient.log} >= {"/p0", "/p1"}
                ),
                timeout=20,
                what="the healthy host's and the patient host's links",
            )
            interrupted = time.monotonic()
            crawl.signal(signal.SIGINT)
            code = crawl.wait(timeout=30)
            took = time.monotonic() - interrupted
        finally:
            if crawl.proc.poll() is None:
                crawl.proc.kill()
    # the other hosts' links, checked while the twenty waited
    assert max(h.arrived for h in healthy.log) - started < 10
    # the patient host: asked again after its wait, then checked by its rules
    asked = [(h.path, h.status) for h in patient.log]
    robots = patient.hits("/robots.txt")
    assert [h.status for h in robots] == [429, 200], asked
    assert robots[1].arrived - robots[0].arrived >= 1 - 0.05  # the wait follows the 429
    # its links after its rules were read (their answer written before they were)
    assert all(h.arrived >= robots[1].arrived for h in patient.log if h.path != "/robots.txt")
    assert "/no" not in {path for path, _ in asked}
    # the twenty: their robots.txt asked once, nothing else
    assert all([h.path for h in host.log] == ["/robots.txt"] for host in waiting)
    assert took < 5, took
    data = json.loads(report.read_text())
    validate(data)
    check_no_fault(crawl.stderr, report=data)
    assert data["finish_reason"] == "shutdown" and code == 3, crawl.stderr[-3000:]
    entries = {u["url"]: u for u in data["urls"]}
    for host in waiting:
        for i in range(2):
            entry = entries[f"{host.url}/w{i}"]
            assert entry["outcome"] == "unchecked", entry
    assert all(entries[f"{healthy.url}/h{i}"]["outcome"] == "ok" for i in range(5))
    assert entries[f"{patient.url}/p0"]["outcome"] == "ok"
    assert entries[f"{patient.url}/no"]["outcome"] == "blocked"
