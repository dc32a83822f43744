"""Hostile servers that would make an audit endless or huge (issue 23):
a page of 300,000 links, a site without end, an endless chain of sitemap
indexes, an index of too many sitemaps.  Each crawl runs as a user runs it,
with its own peak RSS measured (tests/peak.py) and a bound on its wall
time."""

from __future__ import annotations

import contextlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from linkaudit.config.options import BY_SETTING as OPTION
from linkaudit.output.formats.markdown import as_markdown
from linkaudit.rules.css import capped_css_links
from tests.conftest import ROOT, check_no_fault, run_crawl, run_process, validate
from tests.helpers.served import many_links
from tests.peak import measure
from tests.redisserver import RedisServer
from tests.server import Route, TestServer
from tests.sitegen import LINKAUDIT

PEAK_KIB = 300 * 1024  # a crawl of a small site is about 100 MB
XML = "application/xml"
INDEX = (
    '<?xml version="1.0"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
)


class Measured:
    """A linkaudit command run as a user runs it: exit code, output, report,
    peak RSS (KiB) and wall time (s)."""

    def __init__(self, tmp_path: Path, *args: str, timeout: float = 60) -> None:
        report = tmp_path / "report.json"
        cmd = [LINKAUDIT, *args]
        cmd += ["--delay", "0", "--report", str(report), "-s", "CONCURRENT_REQUESTS_PER_DOMAIN=8"]
        run = measure(cmd, limit=timeout, cwd=tmp_path, env=dict(os.environ, PYTHONPATH=str(ROOT)))
        self.stdout, self.stderr = run.proc.stdout, run.proc.stderr
        self.seconds, self.code, self.peak_kib = run.seconds, run.proc.returncode, run.peak_kib
        self.report = json.loads(report.read_text())
        validate(self.report)
        check_no_fault(report=self.report)

    def url(self, url: str) -> dict:
        return next(u for u in self.report["urls"] if u["url"] == url)


# -- links per page ------------------------------------------------------------------
def test_a_page_of_300000_links_reads_up_to_the_cap(tmp_path, server):
    server.add("/", Route(stream=many_links))
    server.add("/first", "first")
    server.add("/last", "last")
    # a cap of 2,000, not the default 20,000: each distinct URL read is a
    # report entry, and 20,000 of them take this test 30 s
    cap = ["-s", "LINKAUDIT_PAGE_MAXLINKS=2000"]
    run = Measured(tmp_path, f"{server.url}/", "--exclude", "/x/", "-v", *cap)
    home = run.url(f"{server.url}/")
    assert home["outcome"] == "ok"
    # 300,002 links: the first 2,000 read, the rest counted
    assert home["links_dropped"] == 298_002 and home["truncated"] is True
    assert home["page"]["links"] == 2_000
    summary = run.report["summary"]
    assert summary["links_dropped"] == 298_002
    assert summary["urls"] == 2_000 + 1  # the page, /first and 1,999 of /x/N
    assert run.url(f"{server.url}/first")["outcome"] == "ok"
    assert f"{server.url}/last" not in {u["url"] for u in run.report["urls"]}
    assert server.hits("/last") == []
    # what the user sees: the log (INFO), the text summary, the markdown summary
    assert f"{server.url}/ has more than 2000 links: 298002 more were not read" in run.stderr
    assert "Pages with more links than LINKAUDIT_PAGE_MAXLINKS (1):" in run.stdout
    assert f"  {server.url}/  [298002 more links not read]" in run.stdout
    assert "LINKAUDIT_PAGE_MAXLINKS: 298002." in as_markdown(run.report)
    assert run.peak_kib < PEAK_KIB and run.seconds < 30, (run.peak_kib, run.seconds)


# the reader alone, in a fresh process: how much its peak grows while it reads
_READER = """
import resource, sys
from linkaudit.rules.html import capped_links
from tests.helpers.served import many_links
text = "".join(chunk.decode() for chunk in many_links())
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
page, dropped = capped_links(text, limit=int(sys.argv[1]))
grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
print(len(page.links), dropped, page.links[-1].value, grown)
"""


def test_the_reader_never_holds_more_than_the_cap():
    """20,000 (the default) of 300,000 links cost what 20,000 do: the
    reader stops keeping them, it does not cut them afterwards."""
    limit = OPTION["LINKAUDIT_PAGE_MAXLINKS"].default
    assert limit == 20_000
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = run_process([sys.executable, "-c", _READER, str(limit)], env=env, timeout=60)
    kept, dropped, last, grown_kib = out.stdout.split()
    assert (int(kept), int(dropped), last) == (20_000, 280_002, "19998"), out.stdout
    assert int(grown_kib) < 15 * 1024, grown_kib  # all 300,000 kept: about 60 MB
    sheet = capped_css_links("a{b:url(x)}" * 300_000, limit=limit)
    assert len(sheet.links) == 20_000 and sheet.dropped == 280_000


# -- URLs per audit ------------------------------------------------------------------
class EndlessSite(TestServer):
    """Every page links to ten pages nobody linked to before: no end."""

    def route_for(self, path: str) -> Route | None:
        if not (path == "/" or re.fullmatch(r"/t/\d+", path)):
            return None
        n = int(path[3:]) if path != "/" else 0
        return Route(body="\n".join(f'<a href="/t/{n * 10 + i}">{i}</a>' for i in range(1, 11)))


@pytest.mark.parametrize("backend", ["memory", "sqlite", "redis"])
def test_max_urls_bounds_an_endless_site(tmp_path, backend):
    options: list[str] = []
    servers = RedisServer(tmp_path / "redis") if backend == "redis" else contextlib.nullcontext()
    with EndlessSite() as site, servers as redis:
        if backend == "sqlite":
            options = ["--db", str(tmp_path / "audit.db")]
        elif backend == "redis":
            options = ["--redis", redis.url, "--audit", "endless"]
        run = Measured(tmp_path, f"{site.url}/", "--max-urls", "200", *options)
        requested = {h.path for h in site.log if h.path != "/robots.txt"}
    s = run.report["summary"]
    # 200 URLs known, each checked; the 2,001 the 200 pages link to, less
    # those 200, were counted and never recorded
    assert s["urls"] == 200 and s["ok"] == 200 and s["unchecked"] == 0, s
    assert s["urls_dropped"] == 2001 - 200
    assert run.report["complete"] is False
    assert len(requested) == 200
    assert run.code == 3, run.stderr[-2000:]  # incomplete, nothing broken
    assert "Not checked: 1801 URLs found after the audit reached --max-urls" in run.stdout
    assert "URLs not checked past --max-urls: 1801." in as_markdown(run.report)
    assert run.peak_kib < PEAK_KIB and run.seconds < 60, (run.peak_kib, run.seconds)


def test_max_urls_as_a_spider_argument_and_a_bad_value(tmp_path, server):
    server.add("/", "".join(f'<a href="/p{i}">{i}</a>\n' for i in range(10)))
    for i in range(10):
        server.add(f"/p{i}", Route(body="x", content_type="text/plain"))
    crawl = run_crawl(tmp_path, "-a", f"start={server.url}/", "-a", "max_urls=4")
    report = crawl.report
    assert [u["url"] for u in report["urls"]] == [
        f"{server.url}/{p}" for p in ("", "p0", "p1", "p2")
    ]
    assert report["summary"]["urls_dropped"] == 7 and report["complete"] is False
    bad = subprocess.run(
        [LINKAUDIT, f"{server.url}/", "--max-urls", "-3"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bad.returncode == 2 and bad.stderr.strip().endswith("'-3' is negative"), bad.stderr


# -- sitemaps ------------------------------------------------------------------------
class SitemapChain(TestServer):
    """robots.txt names /sitemap-1.xml; /sitemap-N.xml is an index of
    /sitemap-(N+1).xml, for ever."""

    def route_for(self, path: str) -> Route | None:
        if path == "/robots.txt":
            return Route(body=f"Sitemap: {self.url}/sitemap-1.xml\n", content_type="text/plain")
        if path == "/":
            return Route(body="home")
        found = re.fullmatch(r"/sitemap-(\d+)\.xml", path)
        if found is None:
            return None
        after = f"{self.url}/sitemap-{int(found[1]) + 1}.xml"
        return Route(
            body=f"{INDEX}<sitemap><loc>{after}</loc></sitemap>\n</sitemapindex>\n",
            content_type=XML,
        )


def test_an_endless_chain_of_sitemap_indexes_stops_at_depth_3(tmp_path):
    with SitemapChain() as site:
        run = Measured(tmp_path, f"{site.url}/")
        requested = {h.path for h in site.log}
    assert {"/sitemap-1.xml", "/sitemap-2.xml", "/sitemap-3.xml"} <= requested
    assert "/sitemap-4.xml" not in requested
    fourth = run.url(f"{site.url}/sitemap-4.xml")
    assert fourth["outcome"] == "unchecked" and fourth["status"] is None
    assert fourth["error"] == (
        "Not checked: sitemap index nested deeper than 3 (LINKAUDIT_SITEMAP_MAXDEPTH)"
    )
    assert fourth["referrers"] == [{"url": f"{site.url}/sitemap-3.xml", "line": 3}]
    assert run.report["sitemap"]["skipped"] == [f"{site.url}/sitemap-4.xml"]
    assert run.report["complete"] is False and run.code == 3
    assert "sitemaps not read (LINKAUDIT_SITEMAP_MAXDEPTH" in run.stdout
    assert run.peak_kib < PEAK_KIB and run.seconds < 30, (run.peak_kib, run.seconds)


def test_an_index_of_too_many_sitemaps_is_read_up_to_the_count(tmp_path, server):
    n = server.url
    listed = "".join(f"<sitemap><loc>{n}/s/{i}.xml</loc></sitemap>\n" for i in range(50))
    server.add("/", "home")
    server.add("/wide.xml", Route(body=f"{INDEX}{listed}</sitemapindex>\n", content_type=XML))
    urlset = '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>{}</loc></url></urlset>'
    for i in range(50):
        server.add(f"/s/{i}.xml", Route(body=urlset.format(f"{n}/"), content_type=XML))
    run = Measured(
        tmp_path, f"{n}/", "--sitemap", f"{n}/wide.xml", "-s", "LINKAUDIT_SITEMAP_MAXCOUNT=10"
    )
    # the index and 9 of its sitemaps: 10 read; 41 never requested
    read = sorted(p for p in {h.path for h in server.log} if p.startswith("/s/"))
    assert read == sorted(f"/s/{i}.xml" for i in range(9))
    skipped = run.report["sitemap"]["skipped"]
    assert skipped == sorted(f"{n}/s/{i}.xml" for i in range(9, 50))
    for url in skipped:
        entry = run.url(url)
        assert entry["outcome"] == "unchecked"
        assert entry["error"] == "Not checked: more than 10 sitemaps (LINKAUDIT_SITEMAP_MAXCOUNT)"
    assert run.report["summary"]["unchecked"] == 41 and run.code == 3
