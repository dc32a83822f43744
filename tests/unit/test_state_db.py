"""The audit database and the recheck rules, without a crawl."""

from __future__ import annotations

import sqlite3
from dataclasses import replace

import pytest
from hypothesis import given, settings
from scrapy.http import Request

from linkaudit.audit import start_audit
from linkaudit.items import UrlResult
from linkaudit.middlewares.recheck import FIRST, HISTORY, RecheckMiddleware
from linkaudit.middlewares.redirects import CHECK_URL
from linkaudit.rules.recheck import History, RecheckPolicy
from linkaudit.state.database import DatabaseError, dump_result, load_result, open_database
from linkaudit.state.memory import MemoryState
from linkaudit.state.sqlite import SQLiteState
from tests.helpers.results import url_results

START = ["http://site.test/"]
NEAR = ("http://site.test/",)


def result(url: str, outcome: str = "ok", **kw) -> UrlResult:
    return UrlResult(url=url, near=True, outcome=outcome, depth=kw.pop("depth", 0), **kw)


def history(outcome: str, checked_at: float, **kw) -> History:
    fields = {
        "last_ok_at": None,
        "first_failed_at": None,
        "fail_count": 0,
        "etag": None,
        "last_modified": None,
        "links": None,
    }
    fields.update(kw)
    return History(result("http://site.test/x", outcome, method="HEAD"), checked_at, **fields)


def test_fresh_uses_the_longer_interval_for_good_urls():
    policy = RecheckPolicy(recheck_after=10, recheck_good_after=100)
    assert policy.fresh(history("ok", 1000), 1050)
    assert not policy.fresh(history("ok", 1000), 1100)
    assert not policy.fresh(history("broken", 1000), 1050)
    assert policy.fresh(history("broken", 1000), 1005)
    assert not policy.fresh(history("blocked", 1000), 1001)  # robots.txt is asked again
    assert not RecheckPolicy().fresh(history("ok", 1000), 1000)  # the default: always check
    assert not policy.fresh(None, 0)


def test_ghost_links_only_within_follow_ghost_of_the_last_answer():
    links = [("http://site.test/a", 3)]
    h = history("broken", 2000, last_ok_at=1000, links=links)
    assert RecheckPolicy(follow_ghost=1500).ghost_links(h, 2000) == links
    assert RecheckPolicy(follow_ghost=500).ghost_links(h, 2000) == []
    assert RecheckPolicy().ghost_links(h, 2000) == []


def test_present_keeps_failures_ok_during_their_grace_period():
    broken = result(
        "http://site.test/x", "broken", status=503, error="503 Service Unavailable", method="GET"
    )
    policy = RecheckPolicy(report_after=60)
    shown = policy.present(broken, failing_since=1000, now=1030)
    assert (shown.outcome, shown.error, shown.status) == ("ok", None, 503)
    assert shown.warning.startswith(
        "503 Service Unavailable (failing since 1970-01-01T00:16:40+00:00"
    )
    assert policy.present(broken, 1000, 1060) is broken
    assert RecheckPolicy().present(broken, 1000, 1000) is broken
    invalid = result("bad", "broken", error="Invalid URL: no host")
    assert policy.present(invalid, 1000, 1000) is invalid  # not a flaky server


def test_memory_state_remembers_nothing_across_audits():
    state = MemoryState()
    run = state.open_run(START, NEAR)
    assert not run.resumed and run.baseline is None
    assert state.history("http://site.test/") is None
    assert state.record(result("http://site.test/", "broken", method="GET"), 5.0) == 5.0


def fill(state: SQLiteState) -> None:
    state.open_run(START, NEAR)
    assert state.discover("http://site.test/", 0)
    state.enqueue("http://site.test/", 0, None)
    assert state.next_level()[0].url == "http://site.test/"
    page = result(
        "http://site.test/",
        status=200,
        method="GET",
        links=[("http://site.test/a", 2), ("http://site.test/b", 3)],
        page={"bytes": 10, "last_modified": "2015-10-21T07:28:00+00:00", "links": 2, "images": 0},
        etag='"v1"',
    )
    for target, line in page.links:
        state.discover(target, 1)
        state.enqueue(target, 1, "http://site.test/")
        state.add_referrer(target, page.url, line)
    state.record(page, 1000.0)
    state.owe("http://site.test/a", "get")  # its HEAD said "a page": the GET is owed


def test_an_interrupted_audit_is_resumed_from_the_file(tmp_path):
    path = str(tmp_path / "audit.sqlite")
    state = SQLiteState(path)
    fill(state)
    state.commit()
    state.conn.close()  # as a killed process would leave it: no finish_run

    again = SQLiteState(path)
    run = again.open_run(START, NEAR)
    assert run.resumed and run.checked == 1
    assert not again.discover("http://site.test/a", 1)  # known already
    level = again.next_level()
    assert [(p.url, p.depth, p.referer, p.phase) for p in level] == [
        ("http://site.test/a", 1, "http://site.test/", "get"),
        ("http://site.test/b", 1, "http://site.test/", None),
    ]
    assert again.referrers("http://site.test/b") == (1, [("http://site.test/", 3)])
    entries = {e.url: e for e in again.entries()}
    assert entries["http://site.test/"].result.outcome == "ok"
    assert entries["http://site.test/a"].result is None
    again.close()


def test_a_finished_audit_is_history_for_the_next(tmp_path):
    path = str(tmp_path / "audit.sqlite")
    state = SQLiteState(path)
    fill(state)
    state.record(result("http://site.test/a", "broken", method="HEAD", depth=1), 1001.0)
    state.record(result("http://site.test/b", depth=1, method="HEAD"), 1001.0)
    state.finish_run("finished", ["http://site.test/a"])
    state.close()

    nxt = SQLiteState(path)
    run = nxt.open_run(START, NEAR)
    assert not run.resumed
    assert run.baseline == frozenset({"http://site.test/a"})
    assert nxt.waiting() == 0 and nxt.discover("http://site.test/", 0)
    h = nxt.history("http://site.test/")
    assert h.etag == '"v1"' and h.last_modified == "Wed, 21 Oct 2015 07:28:00 GMT"
    assert h.links == [("http://site.test/a", 2), ("http://site.test/b", 3)]
    assert h.checked_at == 1000.0 and h.last_ok_at == 1000.0
    broken = nxt.history("http://site.test/a")
    assert (broken.first_failed_at, broken.fail_count) == (1001.0, 1)
    # failing again: the run of failures goes on from its first day
    assert nxt.record(result("http://site.test/a", "broken", method="HEAD"), 2000.0) == 1001.0
    nxt.close()
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    conn.close()


def test_another_site_starts_a_new_audit(tmp_path):
    path = str(tmp_path / "audit.sqlite")
    state = SQLiteState(path)
    fill(state)
    state.close()
    other = SQLiteState(path)
    assert not other.open_run(["http://other.test/"], ("http://other.test/",)).resumed
    other.close()


def test_not_a_database(tmp_path):
    path = tmp_path / "junk.sqlite"
    path.write_bytes(b"junk " * 1000)
    with pytest.raises(DatabaseError, match="not a usable audit database"):
        open_database(str(path))


class Remembering(MemoryState):
    """A state that remembers one earlier check of every URL (``LAST``)."""

    remembers = True
    LAST: History | None = None

    def history(self, url: str) -> History | None:
        return self.LAST


class _Crawler:
    """What ``start_audit`` reads of a crawler: its settings."""

    def __init__(self, h, **settings):
        from scrapy.settings import Settings

        self.settings = Settings(
            {"LINKAUDIT_STATE": "tests.unit.test_state_db.Remembering", **settings}
        )
        Remembering.LAST = h
        start_audit(self, {"start": "http://site.test/"})


def test_middleware_answers_fresh_urls_and_asks_pages_conditionally():
    page = History(
        result("http://site.test/", status=200, method="GET", page={"bytes": 1}),
        checked_at=1e12,  # checked "now" for any clock
        last_ok_at=1e12,
        first_failed_at=None,
        fail_count=0,
        etag='"v1"',
        last_modified="Wed, 21 Oct 2015 07:28:00 GMT",
        links=[],
    )
    request = Request(
        "http://site.test/", method="HEAD", meta={CHECK_URL: "http://site.test/", FIRST: True}
    )
    cached = RecheckMiddleware(_Crawler(page, LINKAUDIT_RECHECK_AFTER=10)).process_request(request)
    assert cached is not None and "cached" in cached.flags

    request = Request(
        "http://site.test/", method="HEAD", meta={CHECK_URL: "http://site.test/", FIRST: True}
    )
    assert RecheckMiddleware(_Crawler(page)).process_request(request) is None
    assert request.headers[b"If-None-Match"] == b'"v1"'
    assert request.headers[b"If-Modified-Since"] == b"Wed, 21 Oct 2015 07:28:00 GMT"
    assert request.meta[HISTORY] is page


def test_levels_are_released_in_batches_in_discovery_order():
    state = MemoryState()
    for i in range(5):
        state.discover(f"http://site.test/{i}", 1)
        state.enqueue(f"http://site.test/{i}", 1, None)
    state.discover("http://site.test/deeper", 2)
    state.enqueue("http://site.test/deeper", 2, None)
    assert [p.url[-1] for p in state.next_level(2)] == ["0", "1"]
    assert [p.url[-1] for p in state.next_level(2)] == ["2", "3"]
    assert [p.url[-1] for p in state.next_level(2)] == ["4"]  # depth 1 first, to its end
    assert [p.url for p in state.next_level(2)] == ["http://site.test/deeper"]
    assert state.next_level(2) == [] and state.waiting() == 0


# -- the stored result round trip ----------------------------------------------
@given(url_results)
@settings(max_examples=300, deadline=None)
def test_every_result_survives_the_result_column(r):
    """Every field the spider can set comes back, False and None included
    (a far URL's near=False was once dropped and could not be loaded)."""
    assert load_result(dump_result(r), r.url) == r


@given(url_results)
@settings(max_examples=40, deadline=None)
def test_every_result_survives_the_database(tmp_path_factory, r):
    """Stored by one process, read by the next: as history (rechecks) and
    as the interrupted run's working set (resume)."""
    path = str(tmp_path_factory.mktemp("db") / "audit.sqlite")
    r = replace(r, from_cache=False)  # a cached result keeps its older row
    state = SQLiteState(path)
    state.open_run(START, NEAR)
    state.discover(r.url, r.depth)
    state.record(replace(r), 1000.0)  # record fills in the copy's referrers
    state.commit()
    state.conn.close()  # killed: the run stays open

    resumed = SQLiteState(path)
    resumed.open_run(START, NEAR)
    assert {e.url: e.result for e in resumed.entries()}[r.url] == replace(r, links=[])
    resumed.finish_run("finished", [])
    resumed.close()

    later = SQLiteState(path)
    later.open_run(START, NEAR)
    assert later.history(r.url).result == r
    later.close()
