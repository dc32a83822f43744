"""The crawl's components (docs/contributing/layout.md): the audit's
frontier is its scheduler's.  That the spider is Scrapy's glue and no
component reaches into it (they share the crawler's audit,
``linkaudit/audit.py``) is a layout rule: tests/test_layout.py holds it."""

from __future__ import annotations

from linkaudit.components.scheduler import AuditScheduler
from tests.conftest import run_crawl


class SchedulerOfOurs(AuditScheduler):
    """A user's subclass (``SCHEDULER``): the frontier is still released."""


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
