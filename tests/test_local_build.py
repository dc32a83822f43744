"""``linkaudit DIR``: a local build served as static hosts serve it, with
--root-url mapping the site's future address into it, and referrers given
as files as well as URLs (SARIF: the file)."""

from __future__ import annotations

import json

import pytest

from tests.server import TestServer
from tests.test_cli import run


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
    assert start.startswith("http://127.0.0.1:") and start.endswith("/v2/")
    assert not [u for u in urls if "docs.example.com" in u]  # mapped, never requested
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
    }
    assert urls[f"{far.url}/ok"]["outcome"] == "ok" and far.hits("/ok")
    gone = urls[f"{start}img/gone.png"]
    assert gone["status"] == 404
    files = {(r["file"], r["line"]) for r in gone["referrers"]}
    assert files == {("public/guide/install.html", 2)}
    assert urls[f"{start}missing.html"]["referrers"][0]["file"] == "public/index.html"
    assert "public/guide/install.html:2 (" in out.stdout
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
    assert start.endswith(":" + start.split(":")[-1].split("/")[0] + "/")
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
    assert out.stderr.strip().count("\n") == 0 or "served at" in out.stderr
