"""The crawl's components (docs/contributing/layout.md): the spider is Scrapy's glue,
no component reaches into it (they share the crawler's audit,
``linkaudit/audit.py``), and the audit's frontier is its scheduler's."""

from __future__ import annotations

import ast
from pathlib import Path

import scrapy

from linkaudit.components.scheduler import AuditScheduler
from linkaudit.spiders.linkaudit import LinkAuditSpider
from tests.conftest import run_crawl

PACKAGE = Path(__file__).resolve().parent.parent / "linkaudit"


class SchedulerOfOurs(AuditScheduler):
    """A user's subclass (``SCHEDULER``): the frontier is still released."""


def test_the_spider_is_scrapys_glue_only():
    assert LinkAuditSpider.__bases__ == (scrapy.Spider,)


def _spider_reads(path: Path) -> list[str]:
    """``spider.X`` and ``X.spider`` in a module, with their lines."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Attribute):
            continue
        if node.attr == "spider" or (isinstance(node.value, ast.Name) and node.value.id == "spider"):
            found.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno} {ast.unparse(node)}")
    return found


def test_no_module_outside_the_spiders_reads_the_spider():
    """Components share the crawler's audit (``audit_of(crawler)``), as
    Scrapy's own share ``crawler.stats``; the spider object is not theirs."""
    reads = [
        read
        for path in sorted(PACKAGE.rglob("*.py"))
        if "spiders" not in path.relative_to(PACKAGE).parts
        for read in _spider_reads(path)
    ]
    assert reads == []


def test_the_scheduler_releases_the_frontier_level_by_level(tmp_path, server):
    """One URL released at a time (LINKAUDIT_RELEASE_BATCH = 1), by a
    subclass of the audit's scheduler: every URL at its shortest depth."""
    server.add("/", '<a href="/a">a</a> <a href="/c">c</a>')
    server.add("/a", '<a href="/b">b</a> <a href="/c">c</a>')
    server.add("/b", '<a href="/c">c</a> <a href="/d">d</a>')
    server.add("/c", '<a href="/d">d</a>')
    server.add("/d", "the end")
    scheduler = f"{__name__}.{SchedulerOfOurs.__name__}"
    settings = {"SCHEDULER": scheduler, "LINKAUDIT_RELEASE_BATCH": "1"}
    crawl = run_crawl(tmp_path, "-a", f"start={server.url}/", settings=settings)
    assert crawl.returncode == 0, crawl.stderr[-2000:]
    depths = {path: crawl.url(server.url + path)["depth"] for path in ("/", "/a", "/b", "/c", "/d")}
    assert depths == {"/": 0, "/a": 1, "/c": 1, "/b": 2, "/d": 2}
    assert {crawl.url(server.url + p)["outcome"] for p in depths} == {"ok"}


def test_a_scheduler_that_releases_nothing_is_refused_in_one_line(tmp_path, server):
    """Scrapy's own scheduler would never release the frontier: an empty
    report that says "finished".  Refused before any request instead."""
    server.add("/", '<a href="/a">a</a>')
    settings = {"SCHEDULER": "scrapy.core.scheduler.Scheduler"}
    crawl = run_crawl(tmp_path, "-a", f"start={server.url}/", settings=settings)
    assert crawl.returncode == 2
    last = crawl.stderr.strip().splitlines()[-1]
    assert last.startswith("linkaudit: error: SCHEDULER must be ")
    assert "scrapy.core.scheduler.Scheduler" in last
    assert crawl.report is None
    assert server.log == []
