"""The audit's scheduler (``linkaudit/components/scheduler.py``): the
frontier reaches Scrapy through the scheduler's own interface
(``has_pending_requests``, ``next_request``), not through ``spider_idle``,
and a level is released only when everything released before it is
downloaded and scanned."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest
from scrapy import signals
from scrapy.crawler import Crawler

from linkaudit.components.scheduler import AuditScheduler
from linkaudit.state.base import Pending
from tests.conftest import run_crawl
from tests.server import Route

EVENTS = "LINKAUDIT_TEST_SCHEDULER_EVENTS"  # the file the witness writes to


class WitnessScheduler(AuditScheduler):
    """The audit's scheduler, writing down each release (what the engine
    was doing then) and each time the spider is called idle."""

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> WitnessScheduler:
        scheduler = super().from_crawler(crawler)
        crawler.signals.connect(scheduler.witness_idle, signal=signals.spider_idle)
        return scheduler

    def note(self, **event: Any) -> None:
        with open(os.environ[EVENTS], "a", encoding="utf-8") as file:
            file.write(json.dumps(event) + "\n")

    def release(self, level: Iterable[Pending]) -> Iterator[Any]:
        level = list(level)
        engine = self.crawler.engine
        self.note(
            event="release",
            depths=sorted({p.depth for p in level}),
            downloading=len(engine.downloader.active),
            scanning=not engine.scraper.slot.is_idle(),
            queued=len(self),
        )
        return super().release(level)

    def witness_idle(self) -> None:
        assert self.audit is not None
        self.note(
            event="idle", waiting=self.audit.state.waiting(), pending=self.has_pending_requests()
        )


def _site(server) -> None:
    """Three levels; a slow page on the first, found before a fast one
    whose links lead deeper."""
    server.add("/", '<a href="/slow">s</a> <a href="/a">a</a> <a href="/b">b</a>')
    server.add("/slow", Route(body='<a href="/t">t</a> <a href="/c">c</a>', delay=0.5))
    server.add("/a", '<a href="/c">c</a> <a href="/d">d</a>')
    server.add("/b", '<a href="/d">d</a> <a href="/e">e</a>')
    for path in ("/c", "/d", "/e"):
        server.add(path, '<a href="/t">t</a>')
    server.add("/t", "the end")


@pytest.mark.parametrize("batch", [None, "1", "2"])
def test_levels_are_released_through_next_request_when_the_last_is_done(tmp_path, server, batch):
    _site(server)
    events: Path = tmp_path / "events.jsonl"
    settings = {"SCHEDULER": f"{__name__}.{WitnessScheduler.__name__}"}
    settings["LINKAUDIT_RELEASE_BATCH"] = batch
    crawl = run_crawl(
        tmp_path, "-a", f"start={server.url}/", settings=settings, env={EVENTS: str(events)}
    )
    assert crawl.returncode == 0, crawl.stderr[-2000:]
    depths = {u["url"].removeprefix(server.url): u["depth"] for u in crawl.report["urls"]}
    assert depths == {"/": 0, "/slow": 1, "/a": 1, "/b": 1, "/c": 2, "/d": 2, "/e": 2, "/t": 2}
    assert {u["outcome"] for u in crawl.report["urls"]} == {"ok"}

    noted = [json.loads(line) for line in events.read_text().splitlines()]
    releases = [e for e in noted if e["event"] == "release"]
    # nothing queued, downloading or being scanned when a batch is released
    assert all((e["downloading"], e["scanning"], e["queued"]) == (0, False, 0) for e in releases)
    released = [e["depths"] for e in releases]
    assert all(len(d) == 1 for d in released) and released == sorted(released)
    assert len(releases) == {None: 3, "1": 8, "2": 5}[batch]
    # the spider is called idle only when the frontier is empty: the end
    idles = [e for e in noted if e["event"] == "idle"]
    assert idles and all((e["waiting"], e["pending"]) == (0, False) for e in idles)
