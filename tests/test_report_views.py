"""The HTML report and the redirect fix-list written beside the report,
from both doors, and the sitemap line of the markdown view (issue 17)."""

from __future__ import annotations

import json

from tests.conftest import run_crawl
from tests.helpers.command import run
from tests.server import Route


def test_html_report_from_the_command_and_scrapy_crawl(tmp_path, server):
    server.add("/", '<a href="/gone">gone</a>\n<a href="/moved">moved</a>')
    server.add("/moved", Route(301, "", headers={"Location": "/"}))
    server.add("/robots.txt", Route(200, f"Sitemap: {server.url}/sitemap.txt\n", "text/plain"))
    server.add("/sitemap.txt", Route(200, f"{server.url}/orphan\n", "text/plain"))
    server.add("/orphan", "orphan")
    n = server.url
    out = run(tmp_path, f"{n}/", "--delay", "0", "--html", "report.html", "--format", "markdown")
    assert out.returncode == 1, out.stderr
    page = (tmp_path / "report.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and f"{n}/gone" in page
    assert "linked from no page" in out.stdout  # the markdown view's sitemap line
    crawl = run_crawl(tmp_path, "-a", f"start={n}/", "-a", f"html={tmp_path / 'crawl.html'}")
    assert crawl.report is not None and f"{n}/gone" in (tmp_path / "crawl.html").read_text()
    printed = run(tmp_path, f"{n}/", "--delay", "0", "--format", "html", "-q").stdout
    assert printed.lstrip().startswith("<!DOCTYPE html>") and f"{n}/gone" in printed
    report = json.loads((tmp_path / "linkaudit-report.json").read_text())
    assert report["sitemap"]["orphans"] == [f"{n}/orphan"]


def test_a_bad_html_path_is_one_line(tmp_path):
    out = run(tmp_path, "http://127.0.0.1:9/", "--html", str(tmp_path / "no" / "r.html"))
    assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1
    assert "does not exist" in out.stderr
