"""Politeness end to end: delays, robots.txt Crawl-delay, Retry-After."""

from __future__ import annotations

import time
from email.utils import formatdate

from tests.conftest import run_crawl
from tests.server import Route, TestServer

# Judged on the server's log of when requests arrived (``Hit.arrived``), by
# bounds the server cannot miss however loaded the machine is:
# - a wait asked for (Retry-After) is counted by the audit from the answer,
#   which the server writes after the request arrived: from one arrival to
#   the next is at least the wait;
# - a delay between two requests to a host is timed by the downloader from
#   when it takes a request, which then reaches the server later by however
#   long the audit's event loop is busy (up to tenths of a second under the
#   suite's load).  ``LINKAUDIT_DELAY_MARGIN``, added to every delay for that
#   lag (0.1 s by default: tests/unit/test_hosts.py), is MARGIN here, so that
#   the delay asked for is a floor of the gaps between arrivals.
MARGIN = 0.5
EPSILON = 0.05  # the clocks' resolution, a timer firing a little early
POLITE = {"LINKAUDIT_DELAY_MARGIN": str(MARGIN)}


def _gaps(hits):
    times = [h.arrived for h in hits]
    return [b - a for a, b in zip(times, times[1:], strict=False)]


def _three_pages(server):
    server.add("/", '<a href="/a">a</a> <a href="/b">b</a>')
    server.add("/a", "a")
    server.add("/b", "b")


def test_default_delay_is_at_least_one_second_per_host(tmp_path, server):
    _three_pages(server)
    settings = {"DOWNLOAD_DELAY": None, **POLITE}  # None: the default delay
    crawl = run_crawl(tmp_path, "-a", f"start={server.url}/", settings=settings)
    assert crawl.report["complete"]
    assert len(server.log) == 7  # robots.txt, then HEAD and GET of each page
    assert min(_gaps(sorted(server.log, key=lambda h: h.arrived))) >= 1 - EPSILON


def test_robots_crawl_delay_raises_the_host_delay(tmp_path, server):
    _three_pages(server)
    server.add(
        "/robots.txt", Route(body="User-agent: *\nCrawl-delay: 1\n", content_type="text/plain")
    )
    crawl = run_crawl(tmp_path, "-a", f"start={server.url}/", settings=POLITE)  # no delay
    assert crawl.report["complete"]
    hits = sorted(server.log, key=lambda h: h.arrived)
    assert hits[0].path == "/robots.txt" and len(hits) == 7
    assert min(_gaps(hits[1:])) >= 1 - EPSILON  # after robots.txt was read


def test_malformed_robots_keeps_its_meaning(tmp_path, server):
    # records without blank lines between them (the WWW::RobotRules example)
    server.add(
        "/robots.txt",
        Route(
            body="User-agent: linkaudit\nDisallow: /secret\nUser-agent: *\nDisallow: /\n",
            content_type="text/plain",
        ),
    )
    server.add("/", '<a href="/secret/x">s</a> <a href="/open">o</a>')
    server.add("/open", "open")
    crawl = run_crawl(tmp_path, "-a", f"start={server.url}/")
    assert crawl.url(f"{server.url}/secret/x")["outcome"] == "blocked"
    assert crawl.url(f"{server.url}/open")["outcome"] == "ok"
    assert not server.hits("/secret/x")


def test_retry_after_is_honoured_then_gives_up(tmp_path, server):
    server.add("/", '<a href="/busy">busy</a> <a href="/always">always</a> <a href="/dated">d</a>')
    server.add("/busy", Route(sequence=[(429, {"Retry-After": "1"}), (200, {})], body="ok"))
    server.add("/always", Route(status=429, headers={"Retry-After": "0"}, body="slow down"))
    crawl = run_crawl(tmp_path, "-a", f"start={server.url}/")
    busy = crawl.url(f"{server.url}/busy")
    assert (busy["outcome"], busy["status"]) == ("ok", 200)
    heads = server.hits("/busy", "HEAD")
    assert len(heads) == 2 and heads[1].arrived - heads[0].arrived >= 1 - EPSILON
    always = crawl.url(f"{server.url}/always")
    assert (always["outcome"], always["status"]) == ("unchecked", 429)
    assert "kept refusing" in always["error"]
    assert server.methods("/always") == ["HEAD"] * 3  # one try and LINKAUDIT_RETRY_AFTER_TIMES more
    assert crawl.report["complete"] is False


def test_redirecting_robots_txt_is_followed(tmp_path, server):
    server.add("/robots.txt", Route(301, "", headers={"Location": "/real-robots.txt"}))
    server.add(
        "/real-robots.txt", Route(body="User-agent: *\nDisallow: /no\n", content_type="text/plain")
    )
    server.add("/", '<a href="/no">no</a>')
    crawl = run_crawl(tmp_path, "-a", f"start={server.url}/")
    assert crawl.url(f"{server.url}/no")["outcome"] == "blocked"
    assert server.methods("/real-robots.txt") == ["GET"]


def test_robots_txt_statuses_follow_rfc_9309(tmp_path, server, far_server, closed_port):
    # far_server's robots.txt fails with 503: that host counts as disallowed;
    # the closed port has no robots.txt answer at all: its URL reports that.
    far_server.add("/robots.txt", Route(503, "down", content_type="text/plain"))
    server.add("/robots.txt", Route(404, "no robots here"))
    server.add(
        "/",
        f'<a href="/page">p</a> <a href="{far_server.url}/x">x</a> '
        f'<a href="http://127.0.0.1:{closed_port}/y">y</a>',
    )
    server.add("/page", "page")
    crawl = run_crawl(tmp_path, "-a", f"start={server.url}/")
    assert crawl.url(f"{server.url}/page")["outcome"] == "ok"  # 404 robots.txt: allow all
    far = crawl.url(f"{far_server.url}/x")
    assert far["outcome"] == "blocked" and "robots.txt answered 503" in far["error"]
    assert [h.path for h in far_server.log] == ["/robots.txt"]
    closed = crawl.url(f"http://127.0.0.1:{closed_port}/y")
    assert (closed["outcome"], closed["error"]) == ("broken", "Connection refused")
    assert "Traceback" not in crawl.stderr
    assert "could not be fetched" in crawl.stderr


def test_retry_after_as_an_http_date_and_on_503(tmp_path, server):
    server.add("/", '<a href="/dated">d</a> <a href="/maint">m</a> <a href="/down">x</a>')
    # an HTTP-date two seconds ahead: computed when the server answers
    retry_at = {"Retry-After": lambda: formatdate(time.time() + 2, usegmt=True)}
    server.add("/dated", Route(sequence=[(429, retry_at), (200, {})], body="ok"))
    server.add("/maint", Route(sequence=[(503, {"Retry-After": "1"}), (200, {})], body="ok"))
    # no Retry-After: asked again once alone (a throttling host's 503), then broken
    server.add("/down", Route(503, "down"))
    crawl = run_crawl(tmp_path, "-a", f"start={server.url}/")
    dated = crawl.url(f"{server.url}/dated")
    assert (dated["outcome"], dated["status"]) == ("ok", 200)
    heads = server.hits("/dated", "HEAD")
    # two seconds from the 429's date (whole seconds: a second may be lost)
    assert len(heads) == 2 and heads[1].arrived - heads[0].arrived >= 1 - EPSILON
    maint = crawl.url(f"{server.url}/maint")
    assert (maint["outcome"], maint["status"]) == ("ok", 200)
    heads = server.hits("/maint", "HEAD")
    assert len(heads) == 2 and heads[1].arrived - heads[0].arrived >= 1 - EPSILON
    down = crawl.url(f"{server.url}/down")
    assert (down["outcome"], down["error"]) == ("broken", "503 Service Unavailable")
    assert server.methods("/down") == ["HEAD", "HEAD", "GET"]


def test_huge_or_binary_robots_txt(tmp_path, server, far_server):
    early = "User-agent: *\nDisallow: /early\n"
    filler = "# comment line to make this robots.txt very large indeed\n" * 12_000  # ~700 KB
    server.add(
        "/robots.txt",
        Route(body=early + filler + "Disallow: /late\n", content_type="text/plain"),
    )
    far_server.add(
        "/robots.txt", Route(body=b"\x89PNG\r\n\x1a\n\0\0\xff" * 500, content_type="image/png")
    )
    server.add(
        "/",
        f'<a href="/early">e</a> <a href="/late">l</a> <a href="{far_server.url}/page">f</a>',
    )
    server.add("/late", "late")
    far_server.add("/page", "page")
    crawl = run_crawl(tmp_path, "-a", f"start={server.url}/")
    assert crawl.url(f"{server.url}/early")["outcome"] == "blocked"
    # rules past LINKAUDIT_ROBOTSTXT_MAXSIZE (500 KiB) are not read
    assert crawl.url(f"{server.url}/late")["outcome"] == "ok"
    # a robots.txt that is not text has no rules: everything is allowed
    assert crawl.url(f"{far_server.url}/page")["outcome"] == "ok"
    assert "Traceback" not in crawl.stderr


def test_requests_waiting_for_robots_txt_all_obey_it(tmp_path, server):
    """Twelve requests to a host wait for its slow robots.txt at once: every
    one is judged by it (Scrapy 2.19 handed the parser to the first waiter
    only, and the others were sent, disallowed or not)."""
    with TestServer(host="127.0.0.2") as far:
        far.add("/robots.txt", Route(200, "User-agent: *\nDisallow: /secret/\n", "text/plain"))
        far.route_for("/robots.txt").delay = 0.5
        links = [f'<a href="{far.url}/secret/{i}">s</a>' for i in range(12)]
        server.add("/", "\n".join([*links, f'<a href="{far.url}/open">o</a>']))
        far.add("/open", "open")
        crawl = run_crawl(tmp_path, "-a", f"start={server.url}/")
    outcomes = {u["url"]: u["outcome"] for u in crawl.report["urls"]}
    assert all(outcomes[f"{far.url}/secret/{i}"] == "blocked" for i in range(12)), outcomes
    assert outcomes[f"{far.url}/open"] == "ok"
    assert [h.path for h in far.log if h.path.startswith("/secret/")] == []
