"""--render is as polite as the crawl: a page's render waits for the
host's delay as a request does, and what the browser asks of another host
goes through that host's robots.txt (fetched for it), with linkaudit's
User-Agent; the page's document is never asked for by the browser."""

from __future__ import annotations

import itertools
import json
import threading
import time

import pytest

from tests.conftest import validate
from tests.helpers.command import run
from tests.rawserver import RawServer, _read_request
from tests.server import Route, TestServer

DELAY = 0.5
# LINKAUDIT_DELAY_MARGIN, added to the delay for the audit's own lag between
# timing a request and sending it (0.1 s by default): under the suite's load
# that lag can reach tenths of a second, and the delay is judged on the
# server's log of arrivals (tests/test_politeness.py says why)
MARGIN = 0.5


def shell(script: str) -> str:
    return f'<!DOCTYPE html><title>App</title><div id="root"></div><script src="{script}"></script>'


# a robots.txt that keeps /private/ out
NO_PRIVATE = Route(body="User-agent: *\nDisallow: /private/\n", content_type="text/plain")


def fetch_and_link(cdn: str) -> str:
    """A script that asks the other host for data it may and may not read,
    then links one page."""
    return (
        f"fetch('{cdn}/data.json').catch(() => {{}});"
        f"fetch('{cdn}/private/secret.json').catch(() => {{}});"
        "document.getElementById('root').innerHTML = '<a href=\"/next\">next</a>';"
    )


def by_browser(hit) -> bool:
    """Chromium's requests carry Fetch Metadata; linkaudit's own do not."""
    return any(k.lower() == "sec-fetch-mode" for k in hit.headers)


def test_renders_wait_for_the_delay_and_ask_robots_of_every_host(tmp_path):
    cdn_routes = {
        "/robots.txt": NO_PRIVATE,
        "/data.json": Route(
            body="{}", content_type="application/json", headers={"Access-Control-Allow-Origin": "*"}
        ),
        "/private/secret.json": Route(body="{}", content_type="application/json"),
    }
    with TestServer(cdn_routes, host="127.0.0.2") as cdn:
        site_routes = {
            "/": shell("/app.js"),
            "/next": shell("/app.js"),
            "/app.js": Route(body=fetch_and_link(cdn.url), content_type="text/javascript"),
        }
        with TestServer(site_routes) as site:
            # the other host is on a loopback address as the site is: the
            # site's network, reached (never another port of the site's address)
            out = run(
                tmp_path, f"{site.url}/", "--render", "auto", "--delay", str(DELAY),
                "-s", f"LINKAUDIT_DELAY_MARGIN={MARGIN}", "--report", "r.json", timeout=120,
            )  # fmt: skip
            log = list(site.log)
    assert out.returncode == 0, out.stdout + out.stderr[-2000:]
    report = json.loads((tmp_path / "r.json").read_text())
    validate(report)
    assert report["summary"]["rendered_pages"] == 2
    # each page: the crawl's GET, then its render, a delay later (the
    # render's first browser request is its script, /app.js)
    for page in ("/", "/next"):
        (get,) = [h for h in log if h.path == page and h.method == "GET"]
        assert not [h for h in log if h.path == page and by_browser(h)]  # its own answer
        after = [h for h in log if by_browser(h) and h.path == "/app.js" and h.arrived > get.at]
        assert after and after[0].arrived - get.arrived >= DELAY - 0.05, (page, after[:1], get)
    # the other host: its robots.txt read (by the crawl's rules), what it
    # allows asked with linkaudit's User-Agent, what it disallows never
    paths = [h.path for h in cdn.log]
    assert "/robots.txt" in paths and "/data.json" in paths
    assert "/private/secret.json" not in paths
    agents = {
        v
        for h in cdn.log
        if h.path == "/data.json"
        for k, v in h.headers.items()
        if k.lower() == "user-agent"
    }
    assert len(agents) == 1 and agents.pop().startswith("linkaudit/")


# the browser's own requests, at their host's pace -----------------------------
PACED_APP = """
var cdn = "CDN";
Promise.all([
  fetch("/d1.json"), fetch("/d2.json"), fetch("/d3.json"),
  fetch(cdn + "/a.json"), fetch(cdn + "/b.json"), fetch(cdn + "/slow.json"),
]).then(function (answers) {
  if (answers.every(function (r) { return r.ok; })) {
    document.getElementById("root").innerHTML = '<a href="/all-answered">next</a>';
  }
});
"""
CRAWL_DELAY = 1.5
HOLD = 2  # the CDN's Retry-After, on its first answer for /slow.json


def test_the_browsers_own_requests_wait_for_their_hosts_pace(tmp_path):
    """What a rendered page's scripts ask for goes at its host's pace: the
    site's delay between the page's data requests, the other host's
    Crawl-delay, and its Retry-After (the host held: nothing sent to it
    before the wait is over, then the request asked again); the answers
    reach the script (the link it adds once all answered is checked), and
    every one is counted as a request of the audit."""
    cors = {"Access-Control-Allow-Origin": "*"}
    cdn_routes = {
        "/robots.txt": Route(
            body=f"User-agent: *\nCrawl-delay: {CRAWL_DELAY}\n", content_type="text/plain"
        ),
        "/a.json": Route(body="{}", content_type="application/json", headers=cors),
        "/b.json": Route(body="{}", content_type="application/json", headers=cors),
        "/slow.json": Route(
            body="{}",
            content_type="application/json",
            headers=cors,
            sequence=[(429, {"Retry-After": str(HOLD), **cors}), (200, cors)],
        ),
    }
    with TestServer(cdn_routes, host="127.0.0.2") as cdn:
        data = Route(body="{}", content_type="application/json")
        site_routes = {
            "/": shell("/app.js"),
            "/app.js": Route(
                body=PACED_APP.replace("CDN", cdn.url), content_type="text/javascript"
            ),
            "/d1.json": data,
            "/d2.json": data,
            "/d3.json": data,
            "/all-answered": "<p>all answered</p>",
        }
        with TestServer(site_routes) as site:
            out = run(
                tmp_path, f"{site.url}/", "--render", "always", "--delay", str(DELAY),
                "-s", f"LINKAUDIT_DELAY_MARGIN={MARGIN}", "-s", "LINKAUDIT_RENDER_TIMEOUT=30",
                "--report", "r.json", timeout=120,
            )  # fmt: skip
            site_log, cdn_log = list(site.log), list(cdn.log)
    assert out.returncode == 0, out.stdout + out.stderr[-2000:]
    report = json.loads((tmp_path / "r.json").read_text())
    validate(report)
    urls = {u["url"][len(site.url) :]: u for u in report["urls"] if u["url"].startswith(site.url)}
    assert urls["/all-answered"]["outcome"] == "ok"  # every answer reached the script
    # the site: its requests, the browser's among them, a delay apart as the server saw them
    arrivals = sorted(h.arrived for h in site_log)
    gaps = [b - a for a, b in itertools.pairwise(arrivals)]
    assert [h for h in site_log if h.path.startswith("/d")] and min(gaps) >= DELAY - 0.05, gaps
    # the other host: robots.txt's Crawl-delay between each two of its requests ...
    cdn_arrivals = [h.arrived for h in cdn_log]
    cdn_gaps = [b - a for a, b in itertools.pairwise(cdn_arrivals)]
    assert min(cdn_gaps) >= CRAWL_DELAY - 0.05, [(h.path, h.status, h.arrived) for h in cdn_log]
    # ... and its Retry-After: asked again, with nothing sent to it before the wait was over
    (held,) = [h for h in cdn_log if h.status == 429]
    after = [h for h in cdn_log if h.arrived > held.arrived]
    assert [h.path for h in after if h.path == "/slow.json"] == ["/slow.json"]
    assert after[0].arrived - held.arrived >= HOLD - 0.05, after
    # counted as the audit's requests, the browser's too
    summary = report["summary"]
    assert summary["requests"] == len(site_log) + len(cdn_log), summary


def test_a_burst_of_requests_ends_with_its_pages_render(tmp_path):
    """A script that asks its host for a hundred things at once: they go at
    the host's pace while the page renders, and what was not sent when the
    render ended never is: the settle wait does not count the time they
    wait for their turn, up to four fifths of the render's time cap
    (LINKAUDIT_RENDER_TIMEOUT), when the page is read as it is."""
    burst = "for (var i = 0; i < 100; i++) fetch('/burst/' + i).catch(function () {});"
    routes = {
        "/": shell("/app.js"),
        "/app.js": Route(body=burst, content_type="text/javascript"),
        "/burst/*": Route(body="{}", content_type="application/json"),
    }
    cap, settle = 8.0, 1.0
    with TestServer(routes) as site:
        out = run(
            tmp_path, f"{site.url}/", "--render", "always", "--delay", "0.3",
            "-s", "LINKAUDIT_DELAY_MARGIN=0.2", "-s", f"LINKAUDIT_RENDER_TIMEOUT={cap}",
            "-s", f"LINKAUDIT_RENDER_SETTLE={settle}",
            "--report", "r.json", timeout=120,
        )  # fmt: skip
        log = list(site.log)
    assert out.returncode == 0, out.stdout + out.stderr[-2000:]
    report = json.loads((tmp_path / "r.json").read_text())
    validate(report)
    sent = [h for h in log if h.path.startswith("/burst/")]
    # about 0.8 * cap / delay of them (6.4 s at 0.5 s: about twelve),
    # never the hundred; the page read as it was then, not failed
    assert report["summary"]["rendered_pages"] == 1
    assert 2 <= len(sent) <= 40, len(sent)
    arrivals = [h.arrived for h in sent]
    assert min(b - a for a, b in itertools.pairwise(arrivals)) >= 0.3 - 0.05
    assert report["summary"]["requests"] == len(log), (
        str([(h.method, h.path) for h in log]),
        report["summary"],
    )


def _rendered(tmp_path, routes: dict, mode: str):
    """The audit of a site of ``routes`` rendered (``--render MODE``, no
    delay): its run, the server's log and the report (validated)."""
    with TestServer(routes) as site:
        out = run(tmp_path, f"{site.url}/", "--render", mode, "--delay", "0", "--report", "r.json")
        log = list(site.log)
    report = json.loads((tmp_path / "r.json").read_text())
    validate(report)
    return out, log, report


def test_a_redirect_the_browser_meets_is_asked_of_robots_txt_too(tmp_path):
    """A script's request that redirects: the target is one more request of
    the page, asked of the audit's rules first: an allowed one reaches the
    script (the link it builds from it is checked), one robots.txt
    disallows is never requested."""
    app = (
        "fetch('/moved').then(function (r) { return r.json(); }).then(function (j) {"
        "  document.getElementById('root').innerHTML = '<a href=\"/' + j.next + '\">n</a>';"
        "});"
        "fetch('/moved-private').catch(function () {});"
    )
    routes = {
        "/": shell("/app.js"),
        "/app.js": Route(body=app, content_type="text/javascript"),
        "/moved": Route(status=302, headers={"Location": "/data.json"}),
        "/moved-private": Route(status=302, headers={"Location": "/private/x.json"}),
        "/data.json": Route(body='{"next": "target"}', content_type="application/json"),
        "/private/x.json": Route(body="{}", content_type="application/json"),
        "/target": "<p>the target</p>",
        "/robots.txt": NO_PRIVATE,
    }
    out, log, report = _rendered(tmp_path, routes, "always")
    assert out.returncode == 0, out.stdout + out.stderr[-2000:]
    paths = [h.path for h in log]
    assert "/data.json" in paths and "/private/x.json" not in paths
    assert [u["outcome"] for u in report["urls"] if u["url"].endswith("/target")] == ["ok"]
    (home,) = [r for r in report["rendered"] if not r["page"].endswith("/target")]
    assert home["requests"] == 4 and home["refused"] == 1  # app.js, 2 redirects, 1 target
    assert report["summary"]["requests"] == len(log), (
        str([(h.method, h.path) for h in log]),
        report["summary"],
    )


def test_a_websocket_is_asked_of_robots_txt_too(tmp_path):
    script = (
        "new WebSocket('ws://' + location.host + '/live');"
        "new WebSocket('ws://' + location.host + '/private/live');"
        "document.getElementById('root').innerHTML = '<a href=\"/next\">next</a>';"
    )
    routes = {
        "/": shell("/app.js"),
        "/app.js": Route(body=script, content_type="text/javascript"),
        "/robots.txt": NO_PRIVATE,
    }
    out, log, report = _rendered(tmp_path, routes, "auto")
    assert out.returncode == 1, out.stderr[-2000:]  # /next is a 404: found by the render
    upgrades = [h.path for h in log if h.headers.get("Upgrade") == "websocket"]
    assert upgrades == ["/live"]  # the allowed one's handshake; never the disallowed one
    assert not [h for h in log if h.path.startswith("/private/")]
    (render,) = [u["render"] for u in report["urls"] if u.get("render")]
    assert render["refused"] >= 1 and render["requests"] >= 2  # app.js and /live


# A hostile page's scripts: what the audit would never request ------------------
HOSTILE_APP = """
var root = document.getElementById("root");
function tell(what) {  // what the page managed to read, sent on (to the site: logged)
  fetch("/app/told?" + encodeURIComponent(what)).catch(function () {});
}
function steal(url) {
  fetch(url).then(function (r) { return r.text(); }).then(tell, function () {});
}
steal("http://127.0.0.1:SECRET/secret");      // a local service nobody links to
steal("http://localhost:SECRET/by-name");      // the same, by a name that resolves there
steal("http://[::ffff:127.0.0.1]:SECRET/mapped");
steal("http://127.0.0.2:SECRET/another-address");  // it listens on every address
fetch("/app/post", {method: "POST", body: "stolen"}).catch(function () {});
fetch("/app/put", {method: "PUT"}).catch(function () {});
fetch("/app/excluded.json").catch(function () {});  // --exclude
fetch("/outside/far.json").catch(function () {});   // outside the site: --skip-far
try { new WebSocket("ws://127.0.0.1:SECRET/live"); } catch (e) {}
try { new SharedWorker("/app/worker.js"); } catch (e) {}  // out of page.route's sight
fetch("/app/ok.json").then(function () {
  root.innerHTML = '<a href="/app/next">next</a>';
});
"""


@pytest.mark.parametrize("scope", ["--skip-far", "none"])
def test_a_hostile_page_reaches_only_what_the_audit_would(tmp_path, scope):
    """The browser's requests follow the audit's scope and rules: only GET
    and HEAD, no body, --exclude and --skip-far applied, no loopback address
    that is not the site's (by its resolved address, not its name: the site
    itself is on 127.0.0.1, another port of it is another program),
    WebSockets included; the service nobody links to never sees a byte, its
    robots.txt included; the refusals are counted, the local ones said."""
    cors = {"Access-Control-Allow-Origin": "*"}
    secret_routes = {
        path: Route(body="TOP SECRET", content_type="text/plain", headers=cors)
        for path in ("/secret", "/by-name", "/mapped", "/live")
    }
    secret_routes["/robots.txt"] = Route(
        body="User-agent: *\nAllow: /\n", content_type="text/plain"
    )
    flags = ["--skip-far", "--exclude", "excluded"] if scope == "--skip-far" else []
    secret_routes["/another-address"] = secret_routes["/secret"]
    with TestServer(secret_routes, host="0.0.0.0") as secret:  # as a CI job's services do
        script = HOSTILE_APP.replace("SECRET", str(secret.port))
        json_route = Route(body="{}", content_type="application/json")
        site_routes = {
            "/app/": shell("/app/app.js"),
            "/app/app.js": Route(body=script, content_type="text/javascript"),
            "/app/worker.js": Route(
                body=f"fetch('http://127.0.0.1:{secret.port}/secret');",
                content_type="text/javascript",
            ),
            "/app/ok.json": json_route,
            "/app/excluded.json": json_route,
            "/outside/far.json": json_route,
            "/app/post": json_route,
            "/app/put": json_route,
        }
        with TestServer(site_routes) as site:
            out = run(
                tmp_path, f"{site.url}/app/", "--render", "auto", "--delay", "0",
                *flags, "--report", "r.json",
            )  # fmt: skip
            log = [(h.method, h.path) for h in site.log if by_browser(h)]
        reached = list(secret.arrivals)
    assert out.returncode == 1, out.stdout + out.stderr[-2000:]  # /app/next: a 404, rendered
    report = json.loads((tmp_path / "r.json").read_text())
    validate(report)
    assert reached == []  # not one request, not even its robots.txt
    assert ("GET", "/app/ok.json") in log  # the page's own data: asked
    assert [m for m, _ in log if m not in ("GET", "HEAD")] == [], log
    paths = {p for _, p in log}
    assert not paths & {"/app/post", "/app/put"}
    assert not [p for p in paths if p.startswith("/app/told")], log  # nothing read to tell
    (entry,) = [u for u in report["urls"] if u.get("render")]
    if scope == "--skip-far":  # outside /app/ is far: refused as the audit refuses it
        assert not paths & {"/app/excluded.json", "/outside/far.json"}
        assert entry["render"]["refused"] == 9, entry["render"]
    else:  # the same host, the same address: the site's own; the service's port is not
        assert {"/app/excluded.json", "/outside/far.json"} <= paths
        assert entry["render"]["refused"] == 7, entry["render"]
        for path in ("/secret", "/by-name", "/mapped", "/another-address"):
            said = f":{secret.port}{path}: another port of the site's own address"
            assert said in out.stderr, out.stderr[-2000:]


# A page that names many hosts: robots.txt asked within the audit's bounds ----
MANY_HOSTS = 40  # 127.0.0.2 ... each a host of its own, one server behind them all
ASKED_AT_ONCE = 3  # CONCURRENT_REQUESTS of the audit
HOSTS_PER_RENDER = 12


def test_a_page_naming_many_hosts_asks_robots_within_the_audits_bounds(tmp_path):
    """Each host's robots.txt is held 0.3 s: at most CONCURRENT_REQUESTS are
    asked at once for the browser (it opened one connection per host at
    once, 3,001 for a page that named 3,001), and one render asks at most
    LINKAUDIT_RENDER_HOSTS hosts; those past it are refused, not asked."""
    flight = InFlight()
    hosts = [f"127.0.0.{n}" for n in range(2, 2 + MANY_HOSTS)]
    robots = Route(body="User-agent: *\nAllow: /\n", content_type="text/plain", gate=flight.gate)
    with TestServer({"/robots.txt": robots}, host="0.0.0.0") as srv:  # every 127.0.0.X
        port = srv.port
        script = "".join(f"fetch('http://{h}:{port}/data.json').catch(() => {{}});" for h in hosts)
        srv.add("/", shell("/app.js"))
        srv.add("/app.js", Route(body=script, content_type="text/javascript"))
        srv.add("/data.json", Route(body="{}", content_type="application/json"))
        site = f"http://127.0.0.1:{port}/"
        near = ",".join([site] + [f"http://{h}:{port}/" for h in hosts])  # the site's own
        out = run(
            tmp_path, site, "--render", "auto", "--delay", "0", "--report", "r.json",
            "-s", f"LINKAUDIT_NEAR={near}", "-s", f"CONCURRENT_REQUESTS={ASKED_AT_ONCE}",
            "-s", f"LINKAUDIT_RENDER_HOSTS={HOSTS_PER_RENDER}",
            "-s", "LINKAUDIT_RENDER_SETTLE=15", "-s", "LINKAUDIT_RENDER_TIMEOUT=30",
        )  # fmt: skip
        asked = [h.headers.get("Host", "") for h in srv.log if h.path == "/robots.txt"]
    assert out.returncode == 0, out.stdout + out.stderr[-2000:]
    report = json.loads((tmp_path / "r.json").read_text())
    validate(report)
    assert flight.most <= ASKED_AT_ONCE, flight.most
    # the site's own robots.txt (the crawl's) and HOSTS_PER_RENDER - 1 others
    assert len(asked) == HOSTS_PER_RENDER, asked
    (render,) = [u["render"] for u in report["urls"] if u.get("render")]
    assert render["refused"] == MANY_HOSTS - (HOSTS_PER_RENDER - 1), render


class InFlight:
    """A route's gate that counts the requests it holds at once."""

    def __init__(self):
        self.now = self.most = 0
        self.lock = threading.Lock()

    def gate(self) -> None:
        with self.lock:
            self.now += 1
            self.most = max(self.most, self.now)
        time.sleep(0.3)
        with self.lock:
            self.now -= 1


class NoRobotsAnswer(RawServer):
    """Hangs up on ``/robots.txt`` without a word; answers anything else
    (data a page may read, from any origin)."""

    def __init__(self):
        super().__init__(lambda conn, method: None, robots=False)

    def _handle(self, conn) -> None:
        with conn:
            try:
                request = _read_request(conn)
                if request is None:
                    return
                self.requests.append(request)
                if request[1] != "/robots.txt":
                    conn.sendall(
                        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                        b"Access-Control-Allow-Origin: *\r\nContent-Length: 2\r\n"
                        b"Connection: close\r\n\r\n{}"
                    )
            except OSError:
                pass


def test_a_robots_txt_without_an_answer_allows_the_browser_nothing(tmp_path):
    """A robots.txt that could not be fetched (the server hung up; out of
    file descriptors is the same to the browser) is no answer: the browser
    asks nothing of that host (the audit's own checks still report it)."""
    with NoRobotsAnswer() as data:
        script = f"fetch('{data.url}/data.json').catch(() => {{}});"
        routes = {
            "/": shell("/app.js"),
            "/app.js": Route(body=script, content_type="text/javascript"),
        }
        with TestServer(routes) as site:
            out = run(
                tmp_path, f"{site.url}/", "--near", f"{site.url}/", "--near", f"{data.url}/",
                "--render", "auto", "--delay", "0", "--report", "r.json",
            )  # fmt: skip
        asked = list(data.requests)
    assert out.returncode == 0, out.stdout + out.stderr[-2000:]
    assert asked and {path for _, path in asked} == {"/robots.txt"}, asked
    report = json.loads((tmp_path / "r.json").read_text())
    (render,) = [u["render"] for u in report["urls"] if u.get("render")]
    assert render["refused"] == 1, render
