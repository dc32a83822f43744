"""Issue 16's features through every door and mode: one site with
fragments (near, far, through a redirect), CSS links, a robots.txt sitemap
and an exclusion gives the same report from the command, scrapy crawl, fast
mode, the audit database (fresh and again) and two workers on Redis.  And
issue 35's hostile local build through its three routes (walked, read by
the crawl, served)."""

from __future__ import annotations

import gzip
import json
import os
import shutil
from contextlib import ExitStack
from pathlib import Path

import pytest

from tests.conftest import run_crawl, run_process
from tests.redisserver import RedisServer
from tests.server import Route, TestServer
from tests.shared import finish, start_workers, the_report
from tests.sitegen import LINKAUDIT, GeneratedSite, audit, comparable

CSS = "text/css; charset=utf-8"
OPTIONS = ("--check-fragments", "--exclude", "excluded-by-regex")
FOOTER = '<footer>\n<a href="/old-pricing">pricing</a>\n</footer>'  # template links


def _site(near: TestServer, far: TestServer) -> None:
    n, f = near.url, far.url
    near.add(
        "/robots.txt",
        Route(
            200, f"User-agent: *\nDisallow: /private/\nSitemap: {n}/sitemap.xml.gz\n", "text/plain"
        ),
    )
    near.add(
        "/",
        "\n".join(
            [
                '<link rel="stylesheet" href="/site.css">',
                '<a href="/doc#present">a</a> <a href="/doc#missing">b</a>',
                '<a href="/old#present">c</a> <a href="/old#gone">d</a>',
                f'<a href="{f}/page#there">e</a> <a href="{f}/page#nothere">f</a>',
                '<a href="/private/x">blocked</a> <a href="/excluded-by-regex">x</a>',
                '<div style="background: url(/hero.png)"></div>',
                "<style>@import url(/print.css);</style>",
                FOOTER,
            ]
        ),
    )
    near.add("/doc", '<h1 id="present">doc</h1><a href="/site.css">css</a>\n' + FOOTER)
    near.add("/old", Route(301, "", headers={"Location": "/doc"}))
    near.add("/site.css", Route(200, "a {}\n@font-face { src: url(/font.woff2) }\n", CSS))
    near.add("/print.css", Route(200, "p { background: url(/paper.png) }", CSS))
    near.add("/paper.png", Route(200, b"PNG", "image/png"))
    urlset = (
        '<?xml version="1.0"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
        f"<url><loc>{n}/orphan</loc></url>\n<url><loc>{n}/gone-from-sitemap</loc></url>\n"
        "</urlset>\n"
    )
    near.add("/sitemap.xml.gz", Route(200, gzip.compress(urlset.encode()), "application/gzip"))
    near.add("/orphan", '<a href="/doc#orphan-missing">o</a>\n' + FOOTER)
    far.add("/page", '<p id="there">far</p>')


def _same(report: dict) -> tuple:
    gaps = {
        u["url"]: [(g["fragment"], [(r["url"], r["line"]) for r in g["referrers"]]) for g in m]
        for u in report["urls"]
        if (m := u.get("missing_fragments"))
    }
    fixes = report.get("redirect_fixes"), report.get("groups")
    return comparable(report), gaps, report["summary"], report.get("sitemap"), fixes


@pytest.fixture(scope="module")
def site():
    with ExitStack() as stack:
        near = stack.enter_context(TestServer(conditional=True))
        far = stack.enter_context(TestServer(conditional=True, host="127.0.0.2"))
        _site(near, far)
        yield stack, GeneratedSite(near, far, {}, f"{near.url}/")


@pytest.fixture(scope="module")
def plain(site, tmp_path_factory):
    _stack, s = site
    return audit(s, tmp_path_factory.mktemp("plain"), *OPTIONS)


def test_the_plain_audit_finds_everything(site, plain):
    _stack, s = site
    n = s.near.url
    comparable_, gaps, summary, sitemap, (fixes, groups) = _same(plain)
    assert [(f["line"], f["kind"], f["to"]) for f in fixes] == [(3, "permanent", f"{n}/doc")] * 2
    template = [(g["target"], g["block"], g["pages"]) for g in groups if g["kind"] == "template"]
    assert template == [(f"{n}/old-pricing", "footer", 3)]
    assert len(groups) == summary["broken"]  # every other broken URL: one page group
    assert sitemap is not None and sitemap["orphans"] == [f"{n}/gone-from-sitemap", f"{n}/orphan"]
    assert summary["missing_fragments"] == 4
    assert set(gaps) == {f"{n}/doc", f"{n}/old", f"{s.far.url}/page"}
    for url, outcome in [
        (f"{n}/font.woff2", "broken"),  # in a near stylesheet
        (f"{n}/hero.png", "broken"),  # in a style attribute
        (f"{n}/paper.png", "ok"),  # in a stylesheet a <style> @imports
        (f"{n}/gone-from-sitemap", "broken"),
        (f"{n}/orphan", "ok"),
        (f"{n}/private/x", "blocked"),
        (f"{n}/excluded-by-regex", "excluded"),
    ]:
        assert comparable_[url][0] == outcome, url


def test_scrapy_crawl(site, plain, tmp_path):
    _stack, s = site
    crawl = run_crawl(
        tmp_path,
        "-a",
        f"start={s.start}",
        "-a",
        "check_fragments=true",
        "-a",
        "exclude=excluded-by-regex",
    )
    got, want = _same(crawl.report), _same(plain)
    assert (got[:2], got[3:]) == (want[:2], want[3:])


@pytest.mark.parametrize(
    "options",
    [("-s", "LINKAUDIT_HEAD_FIRST=False"), ("--db", "DB"), ("--db", "DB", "--again")],
    ids=["fast", "db", "db-again"],
)
def test_fast_mode_and_the_database(site, plain, tmp_path, options):
    _stack, s = site
    options = tuple(str(tmp_path / "audit.db") if o == "DB" else o for o in options)
    again = "--again" in options
    options = tuple(o for o in options if o != "--again")
    report = audit(s, tmp_path / "first", *OPTIONS, *options)
    if again:
        report = audit(s, tmp_path / "second", *OPTIONS, *options)
    got, want = _same(report), _same(plain)
    assert (got[:2], got[3:]) == (want[:2], want[3:])
    assert got[2]["missing_fragments"] == want[2]["missing_fragments"]


def test_two_workers_on_redis(site, plain, tmp_path):
    _stack, s = site
    with RedisServer(tmp_path / "redis") as redis:
        workers = finish(start_workers(s, redis.url, "parity", tmp_path / "w", 2, *OPTIONS))
    report = the_report(workers)
    got, want = _same(report), _same(plain)
    assert (got[:2], got[3:]) == (want[:2], want[3:])
    assert got[2]["missing_fragments"] == want[2]["missing_fragments"]


# -- a local build: its files read by the walk, read by the crawl, or served -------------
BUILD_ROUTES = {
    "walk": (),
    "crawl": ("--db", "DB"),  # the crawl reads the build (file-reading download handler)
    "served": ("-s", "LINKAUDIT_LOCAL_READ=false"),  # the crawl requests it over HTTP
    # Scrapy's size limit bounds requests to other hosts only: still walked
    "walk, small DOWNLOAD_MAXSIZE": ("-s", "DOWNLOAD_MAXSIZE=1000"),
    "served, small DOWNLOAD_MAXSIZE": (
        "-s",
        "LINKAUDIT_LOCAL_READ=false",
        "-s",
        "DOWNLOAD_MAXSIZE=1000",
    ),
}
GIB = 1024**3
# as root, an unreadable file is read anyway: the audit runs without the
# capabilities that let root read any file (setpriv, util-linux)
UNPRIVILEGED = (
    "setpriv",
    "--inh-caps=-dac_override,-dac_read_search",
    "--bounding-set=-dac_override,-dac_read_search",
)


def _unreadable_files() -> tuple[str, ...] | None:
    """How to run an audit that cannot read a file of mode 000 (None: no way)."""
    if os.geteuid() != 0:
        return ()
    return UNPRIVILEGED if shutil.which("setpriv") else None


def _hostile_build(build: Path, locked: bool) -> None:
    build.mkdir()
    links = ["big.html", "fifo.html", "dir.html", ".env", ".git/config", ".well-known/x.txt"]
    if locked:
        links += ["locked.html", "locked.png"]
    (build / "index.html").write_text("\n".join(f'<a href="{link}">x</a>' for link in links))
    # a page over the cap, and over Scrapy's DOWNLOAD_MAXSIZE (1 GiB): sparse, no disk
    with open(build / "big.html", "wb") as big:
        big.write(b'<a href="early.html">read</a>\n')
        os.truncate(big.fileno(), GIB + 1)
    os.mkfifo(build / "fifo.html")  # a page no host can send (never opened: it would block)
    (build / "dir.html").mkdir()  # a directory named like a page: 301 to its slash, then 404
    (build / ".git").mkdir()
    (build / ".git" / "config").write_text("secret")
    (build / ".env").write_text("secret")
    (build / ".well-known").mkdir()
    (build / ".well-known" / "x.txt").write_text("published")
    if locked:
        for name in ("locked.html", "locked.png"):
            (build / name).write_text("unreadable")
            (build / name).chmod(0)


def _by_path(report: dict) -> dict:
    """Per path in the build (the report names the build's files, whatever
    the route): what every route must agree on."""
    fields = ("outcome", "status", "error", "truncated", "method", "content_type", "depth")
    root = report["start_urls"][0][:-1]  # file:///.../public
    return {u["url"][len(root) :]: tuple(u.get(f) for f in fields) for u in report["urls"]}


def test_a_hostile_build_by_every_route(tmp_path):
    """A page over the size cap (and over DOWNLOAD_MAXSIZE) is truncated and
    scanned, a FIFO and a directory named like a page are 404s, dotfiles
    are 404s (``.well-known/`` is published), and an unreadable page or
    file a 404: the same report whether the walk reads the build, the crawl
    reads it, or the crawl requests it from the build's server."""
    prefix = _unreadable_files()
    build = tmp_path / "public"
    _hostile_build(build, locked=prefix is not None)
    reports = {}
    for route, options in BUILD_ROUTES.items():
        options = tuple(str(tmp_path / "audit.db") if o == "DB" else o for o in options)
        report = tmp_path / f"{len(reports)}.json"
        cap = ("-s", "LINKAUDIT_PAGE_MAXSIZE=100000", "--report", str(report), "-v")
        out = run_process([*(prefix or ()), LINKAUDIT, str(build), *options, *cap], cwd=tmp_path)
        assert out.returncode == 1, out.stderr[-3000:]
        assert ("Walked the build" in out.stderr) == route.startswith("walk"), route
        reports[route] = _by_path(json.loads(report.read_text()))
    for route, report in reports.items():
        assert report == reports["walk"], route
    got = {path: entry[:4] for path, entry in reports["walk"].items()}
    not_found = ("broken", 404, "404 Not Found", None)
    assert got["/big.html"] == ("ok", 200, None, True)
    assert got["/early.html"] == not_found  # the big page's link, scanned
    assert got["/dir.html"][:2] == ("redirect", 301) and got["/dir.html/"] == not_found
    for path in ("/fifo.html", "/.env", "/.git/config"):
        assert got[path] == not_found, path
    assert got["/.well-known/x.txt"] == ("ok", 200, None, None)
    if prefix is not None:
        assert got["/locked.html"] == got["/locked.png"] == not_found
