"""The page archive (seed: the CS50 crawler's pageDirectory): ``-a
pagedir=DIR`` with ``-a depth=N`` is the seed's ``crawler seedURL
pageDirectory maxDepth``."""

from __future__ import annotations

import os
import sys

import pytest

from tests.conftest import crawl_command, run_crawl, run_process
from tests.server import Route

# A closed site with cycles; BFS depth of each page from "/":
#   /  0   a b 1   c d 2   e f 3   g 4   h 5
SITE = {
    "/": ["/a.html", "/b.html", "/logo.png"],
    "/a.html": ["/", "/c.html", "/a.html"],
    "/b.html": ["/a.html", "/d.html", "/missing.html"],
    "/c.html": ["/e.html", "/b.html"],
    "/d.html": ["/f.html"],
    "/e.html": ["/"],
    "/f.html": ["/g.html", "/c.html"],
    "/g.html": ["/h.html", "/d.html"],
    "/h.html": ["/", "/g.html"],
}
DEPTH = {"/": 0, "/a.html": 1, "/b.html": 1, "/c.html": 2, "/d.html": 2}
DEPTH.update({"/e.html": 3, "/f.html": 3, "/g.html": 4, "/h.html": 5})


def _html(path: str) -> bytes:
    links = "\n".join(f'<a href="{target}">{target}</a>' for target in SITE[path])
    return f"<!doctype html>\n<title>{path}</title>\n{links}\n</html>\n".encode()


@pytest.fixture
def site(server):
    for path in SITE:
        server.add(path, Route(body=_html(path)))
    server.add("/logo.png", Route(body=b"\x89PNG", content_type="image/png"))
    return server


def _archive(directory) -> dict[int, tuple[str, int, bytes]]:
    files = {}
    for name in os.listdir(directory):
        with open(os.path.join(directory, name), "rb") as fh:
            url = fh.readline().decode().rstrip("\n")
            depth = int(fh.readline())
            files[int(name)] = (url, depth, fh.read())
    return files


@pytest.mark.parametrize("max_depth", [0, 1, 2, 3, 4, 5])
def test_closed_site_with_cycles_at_each_depth(tmp_path, site, max_depth):
    pagedir = tmp_path / "pages"
    pagedir.mkdir()
    crawl = run_crawl(
        tmp_path,
        "-a",
        f"start={site.url}/",
        "-a",
        f"pagedir={pagedir}",
        "-a",
        f"depth={max_depth}",
    )
    assert crawl.returncode == 0, crawl.stderr[-2000:]
    files = _archive(pagedir)
    expected = {path for path, d in DEPTH.items() if d <= max_depth}
    # files 0..n-1, one per page: no gap, no duplicate, nothing but pages
    assert sorted(files) == list(range(len(expected)))
    assert files[0][:2] == (f"{site.url}/", 0)
    assert {(url, depth) for url, depth, _ in files.values()} == {
        (f"{site.url}{path}", DEPTH[path]) for path in expected
    }
    for url, _depth, html in files.values():
        assert html == _html(url[len(site.url) :])
    # fetch order is breadth-first: ids never go back to a shallower level
    depths = [files[i][1] for i in sorted(files)]
    assert depths == sorted(depths)
    # each page fetched once, whatever the cycles
    for path in expected:
        assert len(site.hits(path, "GET")) == 1


def test_console_command_takes_pagedir(tmp_path, site):
    pagedir = tmp_path / "pages"
    pagedir.mkdir()
    exe = os.path.join(os.path.dirname(sys.executable), "linkaudit")
    result = run_process(
        [exe, f"{site.url}/", "--report", str(tmp_path / "r.json"), "--delay", "0"]
        + ["--pagedir", str(pagedir), "--depth", "2"],
        cwd=tmp_path,
    )
    assert result.returncode == 1, result.stderr  # /missing.html is broken
    assert len(os.listdir(pagedir)) == 5


@pytest.mark.parametrize("kind", ["missing", "file", "readonly"])
def test_pagedir_must_be_a_writable_directory(tmp_path, site, kind):
    target = tmp_path / "pages"
    if kind == "file":
        target.write_text("x")
    elif kind == "readonly":
        if os.geteuid() == 0:
            pytest.skip("root writes into read-only directories")
        target.mkdir()
        target.chmod(0o555)
    cmd = crawl_command(tmp_path, "-a", f"start={site.url}/", "-a", f"pagedir={target}")
    result = run_process(cmd, timeout=60)
    words = {"missing": "does not exist", "file": "is not a directory", "readonly": "not writable"}
    assert result.returncode == 2 and "Traceback" not in result.stderr
    errors = [line for line in result.stderr.splitlines() if "error" in line.lower()]
    assert errors == [f"linkaudit: error: pagedir: {target} {words[kind]}"]
    assert site.log == []  # nothing requested
