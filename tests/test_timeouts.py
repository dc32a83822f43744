"""Our own work never turns into a verdict on someone's link: while the
event loop is held by our code, the answers of requests in flight wait
unread and their download timers run out.  The seconds the loop was held
are not counted against the server; a timeout is retried once, at once,
and only a second one is ``Timed out after N s``; a server that really
says nothing is still reported, within two timeouts."""

from __future__ import annotations

import json
import os
import re
import socket
import time

from linkaudit import settings as project_settings
from tests import rawserver
from tests.conftest import ROOT, run_crawl, run_process, validate
from tests.helpers.command import LINKAUDIT
from tests.server import Route

TIMEOUT = 2  # DOWNLOAD_TIMEOUT of these crawls
BLOCK = 3  # seconds the loop is held: longer than the timeout
SLOW = 1.0  # the honest server's answer time: well within the timeout
PAGES = 6
BIG_PAGE = "<p>" + "an API reference. " * 60_000 + "</p>"  # about 1 MB
# -s replaces a whole component dict: the project's extensions stay in
BLOCKER = {
    "EXTENSIONS": json.dumps({**project_settings.EXTENSIONS, "tests.faulty.LoopBlocker": 900})
}


def test_a_busy_event_loop_is_no_timeout_of_the_server(tmp_path, server):
    """The pages' GETs take the server 1 s (a large page, sent at once);
    the answer of another page, at 0.3 s, holds the loop for 3 s while they
    are on the wire.  Their 2 s timers fall due during the hold, and when
    the loop is free they fired before more than the first 64 KiB of the
    waiting answers was read: those pages were ``Timed out after 2 s``
    (exit 1).  Now the seconds held are not counted: each page is fine,
    asked once."""
    links = [f'<a href="/page{i}">p</a>' for i in range(PAGES)]
    server.add("/", f'<a href="/block-loop-{BLOCK}">big</a>\n' + "\n".join(links))
    server.add(f"/block-loop-{BLOCK}", Route(body="<p>long to scan</p>", delay=0.3, head_delay=0))
    for i in range(PAGES):
        server.add(f"/page{i}", Route(body=BIG_PAGE, delay=SLOW, head_delay=0))
    args = [LINKAUDIT, f"{server.url}/", "-v", "--delay", "0", "--report", str(tmp_path / "r.json")]
    settings = {"DOWNLOAD_TIMEOUT": TIMEOUT, "CONCURRENT_REQUESTS_PER_DOMAIN": 8, **BLOCKER}
    args += [f"-s{name}={value}" for name, value in settings.items()]
    env = dict(os.environ, PYTHONPATH=str(ROOT))  # tests.faulty
    out = run_process(args, cwd=tmp_path, env=env)
    report = json.loads((tmp_path / "r.json").read_text())
    validate(report)
    assert [u for u in report["urls"] if u["outcome"] != "ok"] == []
    assert report["complete"] is True
    assert out.returncode == 0, out.stdout[-2000:]
    assert all(u["page"] for u in report["urls"]), report["urls"]  # every page scanned
    gets = sorted(h.path for h in server.hits(method="GET") if h.path.startswith("/page"))
    assert gets == sorted(f"/page{i}" for i in range(PAGES))  # each once: no retry needed
    # the hold did meet the pages' timers: the test tests something
    extended = re.search(r"'linkaudit/timeouts_extended': (\d+)", out.stderr)
    assert extended and int(extended.group(1)) >= 1, out.stderr[-3000:]


def slow_once(conn: socket.socket, method: str) -> None:
    """A page whose first GET the server answers after 3 s, later ones at
    once (a server's hiccup); HEAD at once."""
    if method == "GET" and not getattr(slow_once, "done", False):
        slow_once.done = True  # type: ignore[attr-defined]
        time.sleep(BLOCK)
    body = b"<p>fine</p>"
    head = f"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {len(body)}\r\n\r\n"
    conn.sendall(head.encode() + (body if method == "GET" else b""))


def test_a_page_that_timed_out_once_is_asked_again(tmp_path, server):
    """A timeout is a verdict only the second time (as lychee and linkinator
    retry): the page's GET that timed out is asked again at once."""
    with rawserver.RawServer(slow_once) as hiccup:
        server.add("/", f'<a href="{hiccup.url}/page">p</a>')
        crawl = run_crawl(
            tmp_path,
            "-a",
            f"start={server.url}/",
            "-a",
            f"near={server.url}/,{hiccup.url}/",
            settings={"DOWNLOAD_TIMEOUT": str(TIMEOUT)},
        )
    entry = crawl.url(f"{hiccup.url}/page")
    assert (entry["outcome"], entry["status"], entry["method"]) == ("ok", 200, "GET")
    assert [r for r in hiccup.requests if r[1] == "/page"] == [
        ("HEAD", "/page"),
        ("GET", "/page"),
        ("GET", "/page"),
    ]
    assert "'linkaudit/timeouts_retried': 1" in crawl.stderr


def test_a_silent_server_is_still_timed_out_after_two_tries(tmp_path, server):
    """A server that answers the headers of a HEAD, then nothing of a GET's
    body (a page that is asked with GET after its HEAD): the GET is asked
    twice, then the verdict; a server silent from the start: HEAD, then
    GET, then the verdict.  At most two timeouts each."""
    silent = rawserver.RawServer(rawserver.silent)
    stalled = rawserver.RawServer(rawserver.stall_body)
    with silent, stalled:
        server.add("/", f'<a href="{silent.url}/s">s</a> <a href="{stalled.url}/p">p</a>')
        near = ",".join([f"{server.url}/", f"{silent.url}/", f"{stalled.url}/"])
        started = time.monotonic()
        crawl = run_crawl(
            tmp_path,
            "-a",
            f"start={server.url}/",
            "-a",
            f"near={near}",
            settings={"DOWNLOAD_TIMEOUT": str(TIMEOUT)},
        )
        elapsed = time.monotonic() - started
    for url in (f"{silent.url}/s", f"{stalled.url}/p"):
        entry = crawl.url(url)
        assert (entry["outcome"], entry["error"]) == ("broken", f"Timed out after {TIMEOUT} s")
        assert entry["method"] == "GET"
    assert [r for r in silent.requests if r[1] == "/s"] == [("HEAD", "/s"), ("GET", "/s")]
    assert [r for r in stalled.requests if r[1] == "/p"] == [
        ("HEAD", "/p"),
        ("GET", "/p"),
        ("GET", "/p"),
    ]
    assert "'linkaudit/timeouts_retried': 2" in crawl.stderr
    # both in parallel, two timeouts each (generous: a loaded machine)
    assert elapsed < 2 * TIMEOUT + 10, elapsed
