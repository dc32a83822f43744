"""The server of ``linkaudit DIR`` under hostile builds: a symbolic link
out of the directory is never read as content (its own 404 page
included), and a huge file costs no memory (a HEAD is answered from the
file's size, a GET streamed)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

from linkaudit.demo.directory import DirectorySite
from tests.conftest import ROOT
from tests.helpers import SERVE, request
from tests.peak import measure
from tests.sitegen import LINKAUDIT

GIB = 1024**3
SECRET = "linkaudit-outside-7d1e"  # in a file outside the build: never served


def test_symbolic_links_out_of_the_build_are_never_served(tmp_path):
    outside = tmp_path / "outside.html"
    outside.write_text(f"<h1>{SECRET}</h1>")
    build = tmp_path / "public"
    build.mkdir()
    (build / "index.html").write_text('<a href="nowhere.html">x</a>')
    (build / "404.html").symlink_to(outside)
    (build / "leak.html").symlink_to(outside)
    (build / "dangling.html").symlink_to(build / "gone.html")
    with DirectorySite(str(build)) as site:
        for path in ("nowhere.html", "dangling.html"):
            status, _headers, body = request(site.url + path)
            assert (status, body) == (404, b"<h1>Not Found</h1>"), path
        # a link out is no 404 (any server on the machine would serve it), and
        # never read: an empty 200 that names its target (reported ok, warned)
        for path in ("leak.html", "404.html"):
            for method in ("GET", "HEAD"):
                status, headers, body = request(site.url + path, method)
                assert (status, body) == (200, b""), path
                assert headers["X-Linkaudit-Outside"] == str(outside), path
        (build / "404.html").unlink()  # a 404 page inside the build is still the site's own
        (build / "404.html").symlink_to(build / "index.html")
        status, _headers, body = request(site.url + "nowhere.html")
        assert (status, body) == (404, b'<a href="nowhere.html">x</a>')


def sparse(path: Path, size: int) -> Path:
    """A file of ``size`` zero bytes that takes no disk space."""
    with open(path, "wb") as file:
        os.truncate(file.fileno(), size)
    return path


def vm_hwm_kib(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def test_a_huge_file_in_a_build_costs_no_memory(tmp_path):
    """A 1 GiB file, a binary (its GET stopped at the headers) and an HTML
    page (read up to the page cap), by both routes (read from the directory,
    and served over HTTP): the audit's process stays small."""
    build = tmp_path / "public"
    build.mkdir()
    (build / "index.html").write_text('<a href="big.bin">bin</a>\n<a href="big.html">page</a>')
    sparse(build / "big.bin", GIB)
    sparse(build / "big.html", GIB)
    for read in ("true", "false"):
        run = measure([LINKAUDIT, "public", "-s", f"LINKAUDIT_LOCAL_READ={read}"], cwd=tmp_path)
        proc, peak = run.proc, run.peak_kib
        assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
        report = json.loads((tmp_path / "linkaudit-report.json").read_text())
        by_path = {urlsplit(u["url"]).path: u for u in report["urls"]}
        assert (by_path["/big.bin"]["outcome"], by_path["/big.bin"]["method"]) == ("ok", "GET")
        assert (by_path["/big.html"]["outcome"], by_path["/big.html"]["method"]) == ("ok", "GET")
        assert by_path["/big.html"]["truncated"] is True
        assert peak < 300 * 1024, f"peak RSS {peak} KiB ({read})"


def test_a_get_of_a_huge_file_is_streamed(tmp_path):
    """The server alone: a client that reads 8 MiB of a 1 GiB file and
    hangs up; the server's process never held the file."""
    build = tmp_path / "public"
    build.mkdir()
    sparse(build / "big.bin", GIB)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    server = subprocess.Popen(
        [sys.executable, "-c", SERVE, str(build)], stdout=subprocess.PIPE, text=True, env=env
    )
    try:
        url = server.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:"), url
        status, headers, _ = request(url + "big.bin", "HEAD")
        assert (status, headers["Content-Length"]) == (200, str(GIB))
        status, headers, body = request(url + "big.bin", read=8 * 1024 * 1024)
        assert (status, headers["Content-Length"], len(body)) == (200, str(GIB), 8 * 1024 * 1024)
        time.sleep(0.2)  # the server's thread notices the hang-up
        assert request(url + "big.bin", "HEAD")[0] == 200  # and still serves
        peak = vm_hwm_kib(server.pid)
        assert 0 < peak < 300 * 1024, f"peak RSS {peak} KiB"
    finally:
        server.kill()
        server.wait(timeout=10)
