"""``linkaudit DIR``: a local build served as static hosts serve it, with
--root-url mapping the site's future address into it, and referrers given
as files as well as URLs (SARIF: the file)."""

from __future__ import annotations

import json

import pytest

from tests.helpers.command import run
from tests.server import TestServer


@pytest.fixture
def build(tmp_path):
    """A site built for https://docs.example.com/v2/ (Sphinx, MkDocs... put
    root-relative links under the site's path)."""
    far = TestServer(host="127.0.0.2")
    far.add("/ok", "far page")
    files = {
        "index.html": "\n".join(
            [
                "<!doctype html>",
                '<a href="guide/">guide</a>',
                '<a href="/v2/guide/install">clean URL</a>',
                '<a href="https://docs.example.com/v2/guide/install.html#setup">own address</a>',
                '<a href="https://docs.example.com/v2/missing.html">own address, missing</a>',
                '<a href="nothere.html">missing</a>',
                '<img src="img/logo.png">',
                f'<a href="{far.url}/ok">far</a>',
            ]
        ),
        "guide/index.html": '<a href="../index.html">home</a>\n<a href="../guide">no slash</a>',
        "guide/install.html": '<h1 id="setup">Setup</h1>\n<a href="/v2/img/gone.png">gone</a>',
        "img/logo.png": "PNG",
        "404.html": "<h1>Our own 404</h1>",
    }
    for name, text in files.items():
        path = tmp_path / "public" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    with far:
        yield tmp_path, far


def test_a_build_directory_is_served_and_mapped(build):
    tmp_path, far = build
    out = run(tmp_path, "public/", "--root-url", "https://docs.example.com/v2/")
    assert out.returncode == 1, out.stdout + out.stderr
    report = json.loads((tmp_path / "linkaudit-report.json").read_text())
    urls = {u["url"]: u for u in report["urls"]}
    (start,) = report["start_urls"]
    # the build named by its deployed address (it was audited on 127.0.0.1,
    # its links to that address mapped into it, never requested)
    assert start == "https://docs.example.com/v2/"
    assert not [u for u in urls if "127.0.0.1" in u and not u.startswith(far.url)]
    outcome = {u[len(start) :]: e["outcome"] for u, e in urls.items() if u.startswith(start)}
    assert outcome == {
        "": "ok",
        "guide/": "ok",  # index.html of a directory
        "guide/install": "ok",  # clean URL: install.html
        "guide/install.html": "ok",
        "guide": "redirect",  # a directory without its slash: 301, as hosts answer
        "index.html": "ok",
        "img/logo.png": "ok",
        "img/gone.png": "broken",
        "missing.html": "broken",
        "nothere.html": "broken",
        "404.html": "ok",  # linked from no page: read too (the host's own 404 page)
    }
    assert urls[f"{far.url}/ok"]["outcome"] == "ok" and far.hits("/ok")
    gone = urls[f"{start}img/gone.png"]
    assert gone["status"] == 404
    files = {(r["file"], r["line"]) for r in gone["referrers"]}
    assert files == {("public/guide/install.html", 2)}
    assert urls[f"{start}missing.html"]["referrers"][0]["file"] == "public/index.html"
    assert "public/guide/install.html:2" in out.stdout
    sarif = json.loads(run(tmp_path, "public", "--format", "sarif", "-q").stdout)
    places = {
        (
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            r["locations"][0]["physicalLocation"]["region"]["startLine"],
        )
        for r in sarif["runs"][0]["results"]
    }
    assert ("public/index.html", 6) in places
    assert len(places) == len(sarif["runs"][0]["results"])  # / and /index.html: one place


def test_without_root_url_the_build_is_served_at_the_root(build):
    tmp_path, _far = build
    out = run(tmp_path, "public", "--format", "json", "-q")
    report = json.loads(out.stdout)
    start = report["start_urls"][0]
    assert start == (tmp_path / "public").as_uri() + "/"  # the build's root, by its path
    assert {u["url"][len(start) :]: u["outcome"] for u in report["urls"]}["guide/"] == "ok"


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("public", "http://127.0.0.1:9/"), "public is a directory: give it alone"),
        (("public", "--root-url", "ftp://x/"), "root_url: 'ftp://x/' is not an http(s) URL"),
        (("./pubic/",), "./pubic/: no such directory (give a URL, or a build directory)"),
    ],
)
def test_bad_directory_use_is_one_line(build, args, words):
    tmp_path, _far = build
    out = run(tmp_path, *args)
    assert out.returncode == 2 and words in out.stderr, out.stderr
    assert out.stderr.strip().count("\n") == 0 or "public read as file://" in out.stderr


# -- read from the directory, or served over HTTP: the same report -----------

PAGE_CAP = 20_000  # LINKAUDIT_PAGE_MAXSIZE of these runs: big.html is cut


@pytest.fixture
def varied(tmp_path):
    """A build with each thing a static host answers differently, and
    symbolic links in and out of it."""
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "lib.js").write_text("var x;")
    (outside / "leak.html").write_text('<a href="never-scanned.html">x</a>')
    files = {
        "index.html": "\n".join(
            [
                "<!doctype html><title>Home</title>",
                '<a href="guide/">dir</a> <a href="guide">no slash</a>',
                '<a href="page">clean</a> <a href="page.html?v=1#top">query</a>',
                '<a href="missing.html">missing</a> <a href="img/gone.png">gone</a>',
                '<img src="img/logo.png"> <link rel="stylesheet" href="style.css">',
                '<a href="alias.html">link in</a> <a href="mirror/">dir link in</a>',
                '<script src="js/lib.js"></script> <a href="leak.html">page link out</a>',
                '<a href="dangling.html">dangling</a> <a href="a%20b.html">space</a>',
                '<a href="big.html">big</a> <a href="/nowhere/">nowhere</a>',
            ]
        ),
        "page.html": '<h1 id="top">Page</h1>\n<a href="guide/install">clean, deeper</a>',
        "guide/index.html": '<a href="../index.html">home</a>\n<a href="../page">up</a>',
        "guide/install.html": '<a href="../img/logo.png">logo</a>\n<a href="../gone/">gone</a>',
        "img/logo.png": "PNG",
        "style.css": "body { background: url(img/bg.png) }",
        "a b.html": '<a href="index.html">home</a>',
        "big.html": '<a href="page.html">early</a>\n' + "x" * PAGE_CAP + '\n<a href="late.html">',
        "404.html": "<h1>Not here</h1>",
    }
    site = tmp_path / "site"
    for name, text in files.items():
        path = site / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (site / "alias.html").symlink_to("page.html")
    (site / "mirror").symlink_to("guide", target_is_directory=True)
    (site / "js").mkdir()
    (site / "js" / "lib.js").symlink_to(outside / "lib.js")
    (site / "leak.html").symlink_to(outside / "leak.html")
    (site / "dangling.html").symlink_to(site / "gone.html")
    return tmp_path, outside


VOLATILE = {"checked_at", "elapsed", "duration", "response_time", "started", "finished"}


def comparable(report: dict) -> dict:
    """The report's entries and summary, the origin taken out of every URL."""
    origin = report["start_urls"][0].rstrip("/")
    text = json.dumps({"summary": report["summary"], "urls": report["urls"]})
    entries = json.loads(text.replace(origin, "ORIGIN"))

    def clean(value):
        if isinstance(value, dict):
            return {k: clean(v) for k, v in value.items() if k not in VOLATILE}
        if isinstance(value, list):
            return [clean(v) for v in value]
        return value

    return clean(entries)


def audit(tmp_path, *args) -> dict:
    out = run(tmp_path, *args, "-q", "-s", f"LINKAUDIT_PAGE_MAXSIZE={PAGE_CAP}")
    assert out.returncode == 1, out.stdout + out.stderr
    assert "Traceback" not in out.stderr, out.stderr
    return json.loads((tmp_path / "linkaudit-report.json").read_text())


def test_read_and_served_give_the_same_report(varied):
    tmp_path, outside = varied
    served = comparable(audit(tmp_path, "site", "-s", "LINKAUDIT_LOCAL_READ=false"))
    read = comparable(audit(tmp_path, "site"))
    assert read == served
    urls = {u["url"]: u for u in read["urls"]}
    outcome = {url[len("ORIGIN/") :]: e["outcome"] for url, e in urls.items()}
    assert outcome == {
        "": "ok",
        "guide/": "ok",
        "guide": "redirect",
        "page": "ok",
        "page.html?v=1": "ok",
        "guide/install": "ok",
        "index.html": "ok",
        "missing.html": "broken",
        "img/gone.png": "broken",
        "img/logo.png": "ok",
        "img/bg.png": "broken",
        "style.css": "ok",
        "alias.html": "ok",  # a symbolic link inside the build: followed
        "mirror/": "ok",
        "js/lib.js": "ok",  # out of the build: ok, with a warning
        "leak.html": "ok",
        "dangling.html": "broken",
        "a%20b.html": "ok",
        "big.html": "ok",
        "page.html": "ok",
        "nowhere/": "broken",
        "gone/": "broken",
        "404.html": "ok",  # linked from no page: read too (the host's own 404 page)
    }
    warning = urls["ORIGIN/js/lib.js"]["warning"]
    assert str(outside / "lib.js") in warning and "symbolic link" in warning
    assert str(outside / "leak.html") in urls["ORIGIN/leak.html"]["warning"]
    assert "never-scanned.html" not in json.dumps(read)  # a page out of the build is not read
    assert "late.html" not in json.dumps(read) and urls["ORIGIN/big.html"]["truncated"] is True
    assert urls["ORIGIN/missing.html"]["referrers"][0]["file"] == "site/index.html"


def test_the_build_s_files_are_read_without_a_socket(varied, server):
    """The build's origin answered from its files: the server at that
    origin gets no request at all (robots.txt included), and the report is
    that of ``linkaudit site``."""
    tmp_path, _outside = varied
    read = comparable(audit(tmp_path, "site"))
    direct = audit(
        tmp_path,
        f"{server.url}/",
        *("-s", "LINKAUDIT_LOCAL_DIR=site", "-s", "LINKAUDIT_LOCAL_READ=true"),
        *("-s", "LINKAUDIT_HEAD_FIRST=false", "--delay", "0"),
    )
    assert server.hits() == []
    assert comparable(direct) == read


def test_a_link_out_is_reported_by_its_own_text_on_every_route(tmp_path):
    """A symbolic link out of the build is known by what it says (its
    ``readlink``), never by where it resolves: whether its target exists
    does not show, ``/proc/self`` is no process id, and a link into
    ``/proc``, ``/sys`` or ``/dev`` is broken.  The walk, the crawl reading
    the files and the crawl over HTTP agree."""
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "there.js").write_text("var x;")
    site = tmp_path / "site"
    (site / "js").mkdir(parents=True)
    links = ["there.js", "missing.js", "environ", "cmdline", "kmsg", "ext/x.js", "js/back.html"]
    links += ["machine/proc/self/status", "machine/etc/hostname"]
    (site / "index.html").write_text("\n".join(f'<a href="{name}">{name}</a>' for name in links))
    (site / "there.js").symlink_to(outside / "there.js")
    (site / "missing.js").symlink_to("../elsewhere/missing.js")
    (site / "environ").symlink_to("/proc/self/environ")
    depth = len(site.resolve().parts)  # climbs to / from the build: the kernel's files
    (site / "cmdline").symlink_to("../" * depth + "proc/self/cmdline")
    (site / "kmsg").symlink_to("/dev/kmsg")
    (site / "ext").symlink_to(outside)  # a directory out
    (site / "machine").symlink_to("/")  # the whole machine, its /proc included
    (site / "js" / "back.html").symlink_to("../../site/index.html")  # out, and back in

    def outcomes(*args: str) -> dict:
        out = run(tmp_path, "site", "-q", *args)
        assert out.returncode == 1, out.stdout + out.stderr
        report = json.loads((tmp_path / "linkaudit-report.json").read_text())
        origin = report["start_urls"][0]
        return {
            e["url"][len(origin) :]: (e["outcome"], e.get("status"), e.get("warning"))
            for e in report["urls"]
        }

    walked = outcomes()
    assert walked == outcomes("-s", "LINKAUDIT_LOCAL_READ=false")
    assert walked == outcomes("--max-requests", "1000")  # the crawl, its handler reading files
    warned = "{}: served here, but a copy deployed without it would break"
    link_out = "a symbolic link out of the build directory, to " + warned
    assert walked["there.js"] == ("ok", 200, link_out.format(outside / "there.js"))
    assert walked["missing.js"] == ("ok", 200, link_out.format("../elsewhere/missing.js"))
    assert walked["ext/x.js"] == ("ok", 200, link_out.format(f"{outside}/x.js"))
    assert walked["machine/etc/hostname"] == ("ok", 200, link_out.format("/etc/hostname"))
    for name in ("environ", "cmdline", "kmsg", "machine/proc/self/status"):
        assert walked[name] == ("broken", 404, None), name
    assert walked["js/back.html"] == ("ok", 200, None)
