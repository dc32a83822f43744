"""The server of ``linkaudit DIR`` under hostile builds: a symbolic link
out of the directory is never read as content (its own 404 page
included), and a huge file costs no memory (a HEAD is answered from the
file's size, a GET streamed).  Under hostile neighbours: no port is opened
when the files are read, and a served build answers only requests that
name it (DNS rebinding), on a port its path does not give away, and never
its dotfiles."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from linkaudit.localbuild.directory import DirectorySite, stable_ports
from tests.conftest import ROOT, Spawned, wait_for
from tests.helpers.served import SERVE, request
from tests.peak import measure
from tests.server import Route, TestServer
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
        root = report["start_urls"][0]  # the build named by its files: file:///.../public/
        by_path = {"/" + u["url"][len(root) :]: u for u in report["urls"]}
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


# -- what a neighbour on the machine (or a page in its browser) can reach --------------
def sockets(pid: int) -> set[str]:
    """The inodes of the sockets the process ``pid`` holds open."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:  # closed meanwhile
            continue
        if found := re.fullmatch(r"socket:\[(\d+)\]", target):
            inodes.add(found[1])
    return inodes


def listening(pid: int) -> set[int]:
    """The TCP ports the process ``pid`` listens on: its sockets that its
    network namespace's tables list in state LISTEN (0A)."""
    inodes = sockets(pid)
    ports = set()
    for table in ("tcp", "tcp6"):
        for line in Path(f"/proc/{pid}/net/{table}").read_text().splitlines()[1:]:
            fields = line.split()
            if fields[3] == "0A" and fields[9] in inodes:
                ports.add(int(fields[1].rsplit(":", 1)[1], 16))
    return ports


def chain(build: Path, pages: int) -> Path:
    """A build of ``pages`` pages, one per level: a walk that lasts."""
    build.mkdir()
    for i in range(pages):
        (build / f"p{i}.html").write_text(f'<a href="p{i + 1}.html">next</a>')
    (build / "index.html").write_text('<a href="p0.html">start</a>')
    return build


def address(spawned: Spawned, build: Path) -> str:
    """The build's internal URL: its port is the one the process listens on
    (served), else the build's own (read): no output names it."""
    ports = listening(spawned.proc.pid) or {stable_ports(str(build))[0]}
    (port,) = ports
    assert f"127.0.0.1:{port}" not in spawned.stderr  # the build named by its files only
    return f"http://127.0.0.1:{port}/"


def test_a_walk_opens_no_port(tmp_path):
    """Read from its files, a build needs no server: while the walk runs,
    the process holds no socket at all, and nothing answers on its port."""
    build = chain(tmp_path / "chain", 20_000)
    report = tmp_path / "report.json"
    spawned = Spawned([LINKAUDIT, str(build), "--report", str(report), "-vv"])
    try:
        wait_for(lambda: "Walking depth 3:" in spawned.stderr, timeout=60, what="the walk")
        assert listening(spawned.proc.pid) == set()
        assert sockets(spawned.proc.pid) == set()
        port = urlsplit(address(spawned, build)).port
        with (
            pytest.raises(ConnectionRefusedError),
            socket.create_connection(("127.0.0.1", port), timeout=5),
        ):
            pass
    finally:
        code = spawned.wait(timeout=120)
    assert code == 1  # p20000.html is missing
    assert json.loads(report.read_text())["summary"]["pages"] == 20_001


def test_far_links_left_to_the_crawl_open_no_port(tmp_path):
    """The crawl that checks the far links after the walk (and reads any
    URL of the build it meets from the files) listens on nothing either:
    looked at while it waits for the far server."""
    release = threading.Event()
    with TestServer() as far:
        far.add("/slow", Route(200, "ok", gate=lambda: release.wait(60)))
        build = tmp_path / "public"
        build.mkdir()
        (build / "index.html").write_text(f'<a href="{far.url}/slow">far</a>')
        report = tmp_path / "report.json"
        spawned = Spawned([LINKAUDIT, str(build), "--report", str(report), "--delay", "0"])
        try:
            wait_for(lambda: "/slow" in far.arrivals, timeout=60, what="the far link's request")
            assert listening(spawned.proc.pid) == set()
        finally:
            release.set()
            code = spawned.wait(timeout=60)
    assert code == 0, spawned.stderr[-2000:]
    assert "read as" in spawned.stderr


def test_a_served_build_answers_only_its_own_host(tmp_path):
    """Served (``-s LINKAUDIT_LOCAL_READ=false``), the build listens on one
    port, not the one its path gives (no --db), and answers a request only
    when its ``Host`` is ``127.0.0.1:PORT``: a page that rebinds its DNS
    name to 127.0.0.1 gets a 421 and no file; dotfiles are never served."""
    release = threading.Event()
    build = tmp_path / "public"
    (build / ".git").mkdir(parents=True)
    (build / ".git" / "config").write_text(SECRET)
    (build / ".env").write_text(SECRET)
    (build / "index.html").write_text(f"<h1>{SECRET}</h1>")
    with TestServer() as far:
        far.add("/slow", Route(200, "ok", gate=lambda: release.wait(60)))
        (build / "index.html").write_text(f'<a href="{far.url}/slow">{SECRET}</a>')
        read = ("-s", "LINKAUDIT_LOCAL_READ=false", "--delay", "0")
        spawned = Spawned([LINKAUDIT, str(build), *read, "--report", str(tmp_path / "r.json")])
        try:
            wait_for(lambda: "/slow" in far.arrivals, timeout=60, what="the far link's request")
            url = address(spawned, build)
            port = urlsplit(url).port
            assert listening(spawned.proc.pid) == {port}
            assert port != stable_ports(str(build))[0]  # random: nothing to guess from the path
            assert request(url)[0] == 200
            for host in ("rebound.example", f"rebound.example:{port}", f"localhost:{port}"):
                for method in ("GET", "HEAD"):
                    status, _headers, body = request(url, method, headers={"Host": host})
                    assert status == 421 and SECRET.encode() not in body, (host, method)
            for path in (".git/config", ".env", ".git/", ".git"):
                status, _headers, body = request(url + path)
                assert status == 404 and SECRET.encode() not in body, path
        finally:
            release.set()
            code = spawned.wait(timeout=60)
    assert code == 0, spawned.stderr[-2000:]
