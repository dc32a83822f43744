"""--render in every mode: ``scrapy crawl``, a local build
(``linkaudit DIR --render auto``), the audit database (a remembered page is
rendered again only when it changed) and each worker of a shared audit on
Redis.  A small app of our own: three client routes, each answered with the
same shell, whose script builds the links (a broken one among them) and
drops the one link of the server's HTML."""

from __future__ import annotations

import json
import re
import time
from contextlib import ExitStack
from pathlib import Path
from urllib.parse import urlsplit

from linkaudit.rendering.memory import descendants
from tests.conftest import Spawned, run_crawl, validate, wait_for
from tests.helpers.command import LINKAUDIT, run
from tests.redisserver import RedisServer
from tests.server import Route, TestServer
from tests.shared import Worker, finish, the_report

SHELL = (
    '<!doctype html><title>App</title><div id="root"><a href="/legacy.html">legacy</a></div>'
    '<script src="/app.js"></script>'
)
# the links each route's script makes (OTHER: the other host's home, in a shared audit)
ROUTES = {
    "/": ["/a", "/b", "/ok.html", "/gone-home.html"],
    "/a": ["/b", "/gone-a.html"],
    "/b": ["/"],
}
TEXT = " ".join(f"word{i} of a page written in HTML" for i in range(20))
BROKEN = {"/gone-home.html": "/", "/gone-a.html": "/a"}  # rendered-only, 404: where from
APP_JS = """\
var root = document.getElementById("root"), links = ROUTES[location.pathname] || [];
root.replaceChildren();
links.forEach(function (href) {
  var a = document.createElement("a"); a.href = href; a.textContent = href; root.append(a);
});
"""


def app(other: str | None = None, more: int = 0) -> dict[str, Route | str]:
    """The app's routes; home links ``other`` (another host's home) and
    ``more`` plain pages too."""
    routes = {path: list(links) for path, links in ROUTES.items()}
    extra = {f"/p{i}.html": "<!doctype html><title>P</title><p>More.</p>" for i in range(more)}
    routes["/"] += ([other] if other else []) + list(extra)
    js = APP_JS.replace("ROUTES", json.dumps(routes))
    return {
        **extra,
        **{path: SHELL for path in ROUTES},
        "/app.js": Route(body=js, content_type="text/javascript"),
        "/ok.html": "<!doctype html><title>OK</title><p>A plain page.</p>",
        "/legacy.html": "<!doctype html><title>Legacy</title><p>Before the app.</p>",
    }


def by_browser(server: TestServer, path: str | None = "/app.js") -> list:
    """The browser's requests of ``path`` (None: of any path): Chromium
    sends Sec-Fetch-* headers, linkaudit does not."""
    return server.requested(lambda h: path in (None, h.path) and "Sec-Fetch-Mode" in h.headers)


def entries(report: dict) -> dict[str, dict]:
    return {u["url"]: u for u in report["urls"]}


def rendered_only(origin: str, path: str) -> list[dict]:
    return [{"url": f"{origin}{path}", "line": None, "rendered": True}]


def assert_app_rendered(report: dict, origin: str) -> None:
    """Every route rendered, its broken links found with rendered referrers."""
    urls = entries(report)
    pages = {r["page"] for r in report["rendered"]}
    assert {f"{origin}{p}" for p in ROUTES} <= pages
    for path, page in BROKEN.items():
        entry = urls[f"{origin}{path}"]
        assert (entry["outcome"], entry["status"]) == ("broken", 404)
        assert entry["referrers"] == rendered_only(origin, page)
    home = urls[f"{origin}/"]["render"]
    assert home["removed"] == [f"{origin}/legacy.html"]
    assert f"{origin}/gone-home.html" in home["added"]


def test_scrapy_crawl_renders(tmp_path):
    with TestServer(app()) as srv:
        crawl = run_crawl(tmp_path, "-a", f"start={srv.url}/", "-a", "render=auto")
        assert crawl.report is not None, crawl.stderr[-3000:]
        assert_app_rendered(crawl.report, srv.url)
        assert crawl.report["summary"]["rendered_pages"] == len(ROUTES)
        assert len(by_browser(srv)) == len(ROUTES)  # each render ran the script
        answered = [h for h in srv.log if h.path != "/favicon.ico"]  # Chromium's own, if any
        assert crawl.report["summary"]["requests"] == len(answered)
        # not rendered: the broken links are not found, the shell is named
        srv.log.clear()
        plain = run_crawl(tmp_path, "-a", f"start={srv.url}/", report_name="plain.json")
        assert plain.report is not None, plain.stderr[-3000:]
        assert not set(entries(plain.report)) & {f"{srv.url}{p}" for p in BROKEN}
        assert plain.report["summary"]["app_shells"] == 1
        assert not by_browser(srv) and "rendered" not in plain.report


def build(site: Path, shell: bool = True) -> None:
    """A build: an app shell (or plain pages), a script, a page, a clean URL."""
    (site / "docs").mkdir(parents=True)
    page = "<!doctype html><title>Guide</title><p>The guide.</p>"
    (site / "docs" / "guide.html").write_text(f'{page}<a href="../index.html">home</a>')
    if not shell:
        (site / "index.html").write_text(
            f'<!doctype html><title>Home</title><p>{TEXT}</p><a href="docs/guide.html">guide</a>'
            '<a href="index.html">home</a><script src="app.js"></script>'
        )
        (site / "app.js").write_text("console.log('no links here');\n")
        return
    index = '<!doctype html><title>Home</title><div id="root"></div><script src="app.js"></script>'
    (site / "index.html").write_text(index)
    (site / "settings.html").write_text(index)  # the client route, exported as a page
    routes = {"/": ["docs/guide.html", "missing.html", "/settings"], "/settings": ["/"]}
    (site / "app.js").write_text(APP_JS.replace("ROUTES", json.dumps(routes)))


def local_report(tmp_path: Path, name: str) -> dict:
    report = json.loads((tmp_path / name).read_text())
    validate(report)
    return report


def test_a_local_build_is_served_and_rendered(tmp_path):
    build(tmp_path / "site")
    args = ("site", "--delay", "0", "-s", "LOG_LEVEL=INFO", "--report")
    out = run(tmp_path, *args, "rendered.json", "--render", "auto")
    assert out.returncode == 1, out.stdout + out.stderr[-3000:]
    assert "linkaudit: site served on 127.0.0.1, read as file://" in out.stderr
    assert "Browser started for rendering" in out.stderr
    report = local_report(tmp_path, "rendered.json")
    origin = report["start_urls"][0].rstrip("/")
    urls = entries(report)
    missing = urls[f"{origin}/missing.html"]
    assert (missing["outcome"], missing["status"]) == ("broken", 404)
    assert missing["referrers"] and all(
        (r["line"], r["rendered"], r["file"]) == (None, True, "site/index.html")
        for r in missing["referrers"]
    )
    for path in ("/docs/guide.html", "/settings"):  # a file, a client route: ok
        assert urls[f"{origin}{path}"]["outcome"] == "ok", urls[f"{origin}{path}"]
    assert f"{origin}/settings" in {r["page"] for r in report["rendered"]}
    assert "site/index.html (rendered: only after its scripts ran)" in out.stdout

    out = run(tmp_path, *args, "plain.json")  # not rendered: not found, the shell named
    assert out.returncode == 0, out.stdout + out.stderr[-3000:]
    plain = local_report(tmp_path, "plain.json")
    assert not [u for u in plain["urls"] if u["url"].endswith("/missing.html")]
    # every page of the build is read, linked or not: settings.html, the
    # client route exported, is a shell too, and docs/guide.html links to
    # index.html (the file of /, a shell at its second URL)
    assert plain["summary"]["app_shells"] == 3 and "rendered" not in plain
    assert "3 pages look built by JavaScript" in out.stdout
    assert "Browser started" not in out.stderr


def test_a_build_of_plain_pages_renders_nothing(tmp_path):
    build(tmp_path / "site", shell=False)
    args = ("site", "--delay", "0", "-s", "LOG_LEVEL=INFO", "--report")
    out = run(tmp_path, *args, "auto.json", "--render", "auto")
    assert out.returncode == 0, out.stdout + out.stderr[-3000:]
    report = local_report(tmp_path, "auto.json")
    assert report["summary"]["rendered_pages"] == report["summary"]["render_requests"] == 0
    assert report["rendered"] == [] and not [u for u in report["urls"] if "render" in u]
    assert "Browser started" not in out.stderr  # never started: no page needed it
    assert run(tmp_path, *args, "plain.json").returncode == 0
    plain = local_report(tmp_path, "plain.json")
    verdicts = [(urlsplit(u["url"]).path, u["outcome"]) for u in report["urls"]]
    assert verdicts == [(urlsplit(u["url"]).path, u["outcome"]) for u in plain["urls"]]
    assert len(verdicts) == 4  # the page at / and /index.html, its guide and its script


def test_the_audit_database_renders_a_page_again_only_when_it_changed(tmp_path):
    db = str(tmp_path / "audit.sqlite")
    with TestServer(app(), conditional=True) as srv:

        def audit(name: str) -> dict:
            srv.log.clear()
            args = ("--render", "auto", "--delay", "0", "--db", db, "--report", name)
            out = run(tmp_path, f"{srv.url}/", *args)
            assert out.returncode == 1, out.stdout + out.stderr[-3000:]
            report = local_report(tmp_path, name)
            assert_app_rendered(report, srv.url)  # found, or replayed from the database
            return report

        first = audit("first.json")
        assert len(by_browser(srv)) == len(ROUTES)
        assert first["summary"]["render_requests"] == len(ROUTES)

        second = audit("second.json")  # unchanged: 304, not rendered again
        assert by_browser(srv, None) == [] and srv.hits("/", "GET") == []
        assert [h.status for h in srv.hits("/", "HEAD")] == [304]
        assert second["summary"]["render_requests"] == second["summary"]["rendered_pages"] == 0
        assert second["summary"]["renders_remembered"] == len(ROUTES)
        pages = entries(second)
        for path in ROUTES:
            page = pages[f"{srv.url}{path}"]
            assert page["not_modified"] is True, page
            assert page["render"] == entries(first)[f"{srv.url}{path}"]["render"]

        srv.add("/", SHELL.replace("<title>App", "<title>App 2"))  # home changed
        third = audit("third.json")
        assert len(by_browser(srv)) == 1  # home's render, the others' 304
        assert third["summary"]["render_requests"] == third["summary"]["rendered_pages"] == 1
        assert third["summary"]["renders_remembered"] == len(ROUTES) - 1
        home = entries(third)[f"{srv.url}/"]
        assert "not_modified" not in home and home["render"]["requests"] == 1


def chromium_below(pid: int) -> set[int]:
    """The Chromium processes in the tree below ``pid``."""
    found = set()
    for child in descendants(pid):
        try:
            if b"chromium" in Path(f"/proc/{child}/cmdline").read_bytes():
                found.add(child)
        except OSError:
            continue  # gone meanwhile
    return found


def still_chromium(pid: int) -> bool:
    try:
        return b"chromium" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


def test_each_worker_of_a_shared_audit_renders(tmp_path):
    with ExitStack() as stack:
        one = stack.enter_context(TestServer())
        two = stack.enter_context(TestServer(host="127.0.0.2"))  # another host: another worker
        for server, other, more in ((one, two, 6), (two, one, 0)):
            for path, route in app(f"{other.url}/", more).items():
                server.add(path, route)
        redis = stack.enter_context(RedisServer(tmp_path / "redis"))
        client = redis.client()

        def all_joined() -> None:  # the first page waits for both: the hosts spread
            deadline = time.monotonic() + 60
            while client.scard("la:{spa}:workers") < 2 and time.monotonic() < deadline:
                time.sleep(0.02)

        one.route_for("/").gate = all_joined
        # one request at a time, and host one's owner held at /ok.html (more
        # pages queued behind it) until host two's home is asked for: so
        # host two's home is the other worker's (a worker takes another's
        # share only once its own host has nothing queued)
        one.route_for("/ok.html").gate = lambda: wait_for(
            lambda: "/" in two.arrivals, 60, "host two's home asked for"
        )
        workers = []
        for i in range(2):
            report = tmp_path / f"worker{i}.json"
            cmd = [LINKAUDIT, f"{one.url}/", "--near", f"{one.url}/", "--near", f"{two.url}/"]
            cmd += ["--render", "auto", "--delay", "0", "--report", str(report)]
            cmd += ["--redis", redis.url, "--audit", "spa"]
            cmd += ["-s", "CONCURRENT_REQUESTS=1", "-s", "LINKAUDIT_REDIS_POLL=0.05"]
            workers.append(Worker(Spawned(cmd), report))
        browsers: list[set[int]] = [set(), set()]
        deadline = time.monotonic() + 120
        while any(w.crawl.proc.poll() is None for w in workers) and time.monotonic() < deadline:
            for i, w in enumerate(workers):
                browsers[i] |= chromium_below(w.crawl.proc.pid)
            time.sleep(0.05)
        finish(workers, timeout=30)
        assert [w.code for w in workers] == [1, 1]
        work = client.hgetall("la:{spa}:work")
        assert all(browsers), (browsers, work)  # each worker rendered, in its own browser
        left = set().union(*browsers)
        wait_for(lambda: not any(still_chromium(p) for p in left), 10, "no Chromium left")

        report = the_report(workers)
        for server in (one, two):
            assert_app_rendered(report, server.url)
        assert report["summary"]["rendered_pages"] == 2 * len(ROUTES)
        assert {r["page"] for r in report["rendered"]} == {
            f"{s.url}{p}" for s in (one, two) for p in ROUTES
        }
        broken = {u["url"] for u in report["urls"] if u["outcome"] == "broken"}
        assert broken == {f"{s.url}{p}" for s in (one, two) for p in BROKEN}
        # every request a server answered is counted, the browsers' too
        answered = [h for h in one.log + two.log if h.path != "/favicon.ico"]
        assert report["summary"]["requests"] == len(answered)
        assert report["summary"]["render_requests"] == 2 * len(ROUTES)


def test_always_on_the_demo_gives_the_plain_audits_answer(tmp_path):
    """The bundled demo has far links, a redirect, binaries and robots.txt
    rules: rendered, every page gives the same verdicts and the same
    referrer lines as read from its HTML."""
    answers = []
    for mode in ("never", "always"):
        (tmp_path / mode).mkdir()
        out = run(tmp_path / mode, "--demo", "--render", mode, "--report", "r.json")
        assert out.returncode == 1, out.stderr[-2000:]  # the demo's broken links
        report = json.loads((tmp_path / mode / "r.json").read_text())
        validate(report)
        answers.append((report, {_port_free(u["url"]): _verdict(u) for u in report["urls"]}))
    (plain, plain_urls), (rendered, rendered_urls) = answers
    assert rendered_urls == plain_urls
    assert rendered["summary"]["rendered_pages"] == plain["summary"]["pages"] > 0
    assert all("error" not in r for r in rendered["rendered"])


def _port_free(url: str) -> str:
    return re.sub(r"//127\.0\.0\.1:\d+/", "//127.0.0.1/", url)


def _verdict(entry: dict) -> tuple:
    places = [(_port_free(r["url"]), r["line"], r.get("rendered")) for r in entry["referrers"]]
    return entry["outcome"], entry["status"], entry["error"], places
