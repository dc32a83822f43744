"""What the command says at the door (issue 40): the site's scope when a
start URL has a query, hints on lines of their own and only when they are
true, one clear line for each input mistake, before anything else."""

from __future__ import annotations

import json

from tests.helpers.command import refused, run
from tests.server import Route, TestServer


def test_a_start_url_with_a_query_says_what_the_site_became(tmp_path):
    """``/?a=1,2``: only URLs that start with it are the site, so the audit
    is one page; it says so, and how to widen it."""
    pages = {
        "/": Route(body='<a href="/about">about</a> <a href="/docs/">docs</a>'),
        "/about": Route(body='<a href="/gone">gone</a>'),
        "/docs/": Route(body="docs"),
    }
    with TestServer(pages) as site:
        out = run(tmp_path, f"{site.url}/?a=1,2", "--delay", "0", "--report", "r.json")
        report = json.loads((tmp_path / "r.json").read_text())
        assert report["start_urls"] == [f"{site.url}/?a=1,2"]  # one URL, its comma and all
        assert report["summary"]["pages"] == 1
        assert out.returncode == 0, out.stdout + out.stderr
        warning = [line for line in out.stderr.splitlines() if "was one page" in line]
        assert warning == [
            f"linkaudit: warning: the site (what starts with {site.url}/?a=1,2 (its query"
            f" included)) was one page; to audit its directory, start at {site.url}/ or give"
            f" --near {site.url}/"
        ], out.stderr
        # widened as it says: the whole site, /gone found broken
        wide = run(tmp_path, f"{site.url}/?a=1,2", "--delay", "0", "--near", f"{site.url}/")
        assert wide.returncode == 1 and f"{site.url}/gone" in wide.stdout
        assert "one page" not in wide.stderr
    # a site of more pages under a query prefix: said, not warned
    pages = {"/": Route(body='<a href="/?a=1&p=2">2</a>'), "/about": Route(body="x")}
    with TestServer(pages) as site:
        out = run(tmp_path, f"{site.url}/?a=1", "--delay", "0")
        assert out.returncode == 0, out.stderr
        assert (
            f"linkaudit: the site is what starts with {site.url}/?a=1 (its query included);"
            f" to audit its directory, start at {site.url}/ or give --near {site.url}/"
        ) in out.stderr.splitlines()


def test_which_start_urls_have_a_wider_directory():
    from linkaudit.rules.scope import directory_of

    assert directory_of("https://e.org/?a=1,2") == "https://e.org/"
    assert directory_of("https://e.org/docs/?a=1") == "https://e.org/docs/"
    assert directory_of("https://e.org/docs/page.php?id=3") == "https://e.org/docs/"
    assert directory_of("https://e.org/docs/") is None


def test_input_mistakes_are_one_line_that_says_what_to_give(tmp_path):
    build = tmp_path / "site"
    build.mkdir()
    (build / "index.html").write_text('<a href="page.html">p</a>')
    (build / "page.html").write_text("page")
    # a page of a build: its directory is what to give
    refused(run(tmp_path, "site/index.html"), "site/index.html is a file: give the build directory")
    assert "(linkaudit site)" in run(tmp_path, "site/index.html").stderr
    assert "(linkaudit .)" in run(build, "index.html").stderr
    # a host and port without a scheme: the URL meant, and it works as said
    with TestServer({"/": Route(body="home")}) as site:
        address = site.url[len("http://") :]
        said = refused(run(tmp_path, address), f"did you mean http://{address}/?")
        assert said == (
            f"linkaudit: error: start: {address!r} is not an http(s) URL"
            f" (did you mean http://{address}/?)"
        )
        assert run(tmp_path, f"http://{address}/", "--delay", "0").returncode == 0
    refused(run(tmp_path, "example.com/docs/"), "(did you mean https://example.com/docs/?)")
    unknown = refused(run(tmp_path, "nothing.html"), "is not an http(s) URL")
    assert "did you mean" not in unknown  # a file's name is no host
    # --accept: the ranges it takes
    said = refused(run(tmp_path, "http://127.0.0.1:9/", "--accept", "2xx"), "'2xx'")
    assert said.endswith(
        "'2xx' is not an HTTP status; it takes statuses and ranges, comma-separated:"
        " 200-299 for 2xx (e.g. 200-299,429)"
    ), said
    refused(run(tmp_path, "http://127.0.0.1:9/", "--accept", "ok"), "(e.g. 200-299,429)")


def test_a_bad_setting_is_said_before_anything_else(tmp_path):
    """``-s NAME=...``: its error is the run's only output, whichever the
    site (a build, the demo, a URL), and a log level is one of them."""
    build = tmp_path / "site"
    build.mkdir()
    (build / "index.html").write_text("home")
    for site in (["site"], ["--demo"], ["http://127.0.0.1:9/"]):
        for setting, words in (
            ("LINKAUDIT_DEPTH=x", "LINKAUDIT_DEPTH: 'x' is not a whole number"),
            ("DOWNLOAD_HANDLERS=x", "DOWNLOAD_HANDLERS: 'x' is not a JSON object"),
            ("LOG_LEVEL=chatty", "LOG_LEVEL: 'chatty' is not a log level"),
        ):
            out = run(tmp_path, *site, "-s", setting)
            assert out.stdout == "", (site, setting, out.stdout)
            assert out.stderr.startswith(f"linkaudit: error: {words}"), out.stderr
            assert out.stderr.count("\n") == 1, (site, setting, out.stderr)
            refused(out, words)
