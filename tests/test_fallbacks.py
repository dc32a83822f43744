"""HEAD fallbacks, bodies stopped at the headers, and interruption."""

from __future__ import annotations

import json
import signal
import sys

from tests.conftest import Spawned, run_crawl, validate, wait_for
from tests.server import Route

BIG = b"\0" * (20 * 1024 * 1024)  # 20 MiB: more than any socket buffer holds


def test_head_timeout_falls_back_to_get(tmp_path, server):
    server.add("/", '<a href="/slowhead">h</a> <a href="/hangs">x</a>')
    server.add("/slowhead", Route(body="fine", head_delay=3))
    server.add("/hangs", Route(body="never", delay=3))
    crawl = run_crawl(tmp_path, "-a", f"start={server.url}/", settings={"DOWNLOAD_TIMEOUT": "1"})
    slow = crawl.url(f"{server.url}/slowhead")
    assert (slow["outcome"], slow["status"], slow["method"]) == ("ok", 200, "GET")
    hangs = crawl.url(f"{server.url}/hangs")
    assert (hangs["outcome"], hangs["status"]) == ("broken", None)
    assert hangs["error"] == "Timed out after 1 s" and hangs["method"] == "GET"


def test_fallback_get_of_far_or_binary_stops_at_the_headers(tmp_path, server, far_server):
    server.add("/", f'<a href="{far_server.url}/big">far</a> <a href="/bin">bin</a>')
    far_server.add("/big", Route(head_status=405, body=BIG))
    server.add("/bin", Route(head_status=501, body=BIG, content_type="application/octet-stream"))
    crawl = run_crawl(tmp_path, "-a", f"start={server.url}/")
    for url, srv, path in (
        (f"{far_server.url}/big", far_server, "/big"),
        (f"{server.url}/bin", server, "/bin"),
    ):
        entry = crawl.url(url)
        assert (entry["outcome"], entry["status"], entry["method"]) == ("ok", 200, "GET")
        assert srv.methods(path) == ["HEAD", "GET"]
        assert srv.hits(path, "GET")[0].body_bytes < len(BIG) // 2  # the client hung up


def test_ctrl_c_writes_the_report(tmp_path, server):
    server.add("/", "\n".join(f'<a href="/p{i}">p</a>' for i in range(40)))
    server.add("/p*", Route(body="slow", delay=0.3))
    report = tmp_path / "r.json"
    cmd = [
        sys.executable,
        "-m",
        "scrapy",
        "crawl",
        "linkaudit",
        "-a",
        f"start={server.url}/",
        "-a",
        f"report={report}",
        "-s",
        "DOWNLOAD_DELAY=0",
        "-s",
        "CONCURRENT_REQUESTS_PER_DOMAIN=1",
    ]
    crawl = Spawned(cmd)
    wait_for(lambda: len(server.hits(method="HEAD")) >= 4, what="4 HEADs")
    crawl.signal(signal.SIGINT)
    crawl.wait(timeout=30)
    data = json.loads(report.read_text())
    validate(data)
    assert data["finish_reason"] == "shutdown" and data["complete"] is False
    undone = [u for u in data["urls"] if u["outcome"] == "unchecked"]
    assert undone and {u["error"] for u in undone} == {"Not checked: the audit was interrupted"}


def test_a_link_checker_turns_off_what_it_does_not_need():
    from scrapy.utils.project import get_project_settings

    settings = get_project_settings()
    assert settings.getbool("TELNETCONSOLE_ENABLED") is False
    assert settings.getbool("REMOTE_CONTROL_ENABLED") is False
    assert settings.getbool("COOKIES_ENABLED") is False
    assert settings.getbool("METAREFRESH_ENABLED") is False
    assert settings.getint("DOWNLOAD_TIMEOUT") == 15 and settings.getfloat("DOWNLOAD_DELAY") == 1


def test_bot_walls_are_unchecked_not_broken(tmp_path, server):
    server.add(
        "/", '<a href="/challenge">c</a> <a href="/linkedin">l</a> <a href="/forbidden">f</a>'
    )
    server.add("/challenge", Route(403, "Just a moment...", headers={"cf-mitigated": "challenge"}))
    server.add("/linkedin", Route(999, ""))
    server.add("/forbidden", Route(403, "no"))
    crawl = run_crawl(tmp_path, "-a", f"start={server.url}/")
    for path in ("/challenge", "/linkedin"):
        entry = crawl.url(server.url + path)
        assert entry["outcome"] == "unchecked" and "refused automated checking" in entry["error"]
        assert entry["referrers"] == [{"url": f"{server.url}/", "line": 1}]
    assert crawl.url(f"{server.url}/challenge")["status"] == 403
    assert crawl.url(f"{server.url}/linkedin")["status"] == 999
    # a plain 403 is asked again with GET, then broken
    forbidden = crawl.url(f"{server.url}/forbidden")
    assert (forbidden["outcome"], forbidden["method"]) == ("broken", "GET")
    assert server.methods("/forbidden") == ["HEAD", "GET"]
