"""The state contract: every backend (memory, the audit database, a real
Redis) answers the whole interface of ``linkaudit/state/base.py`` the same
way.  Where a backend legitimately differs, the test says so through the
capability the state declares (``durable``, ``remembers``, ``shared``),
never by skipping it.

A test plays the processes of an audit against one backend: ``open`` is a
process's state on the backend's storage (the same file, the same Redis
audit), ``sync`` sends what the state buffers as its own timer or next
call would, ``kill`` ends a process without a word (nothing more written).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import datetime

import pytest

from linkaudit.items import UrlResult
from linkaudit.rules.history import Streak
from linkaudit.state.base import NEW_RUN, AuditState, Past, ProgressCounts, Totals
from linkaudit.state.memory import MemoryState
from linkaudit.state.redis.connection import connect
from linkaudit.state.redis.state import RedisState
from linkaudit.state.sqlite import SQLiteState
from tests.redisserver import RedisServer

SITE = "http://site.test/"
START = [SITE]
NEAR = (SITE,)
PAGE_STATS = {"bytes": 10, "last_modified": None, "links": 1, "images": 0}


def url(path: str) -> str:
    return SITE + path


def result(target: str, outcome: str = "ok", depth: int = 0, **kw) -> UrlResult:
    kw.setdefault("status", 200)
    return UrlResult(url=target, near=True, outcome=outcome, depth=depth, **kw)


class Backend:
    """One backend's storage, shared by the processes of a test."""

    def __init__(self, name: str, tmp_path, redis_url: str | None):
        self.name = name
        self.path = str(tmp_path / "audit.sqlite")
        self.redis_url = redis_url
        self.audit = f"contract-{uuid.uuid4().hex[:8]}"
        self.opened: list[AuditState] = []
        self.dead: list[AuditState] = []

    def open(self, run: bool = True) -> AuditState:
        """A new process's state (its audit opened, unless ``run`` is False)."""
        if self.name == "memory":
            state: AuditState = MemoryState()
        elif self.name == "sqlite":
            state = SQLiteState(self.path)
        else:
            state = RedisState(connect(self.redis_url), self.audit, lease=30.0, batch=1000)
        self.opened.append(state)
        if run:
            state.open_run(START, NEAR)
        return state

    def sync(self, state: AuditState) -> None:
        if isinstance(state, SQLiteState):
            state.commit()  # its commit timer's work
        elif isinstance(state, RedisState):
            state.heartbeat()  # a call: the writes waiting go with it

    def kill(self, state: AuditState) -> None:
        """The process dies: what it had not sent is lost."""
        self.dead.append(state)
        if isinstance(state, SQLiteState):
            state.commit()  # the last interval's commit, then nothing
            state.conn.close()
        elif isinstance(state, RedisState):
            state.client.delete(state.key(f"w:{state.worker}"))  # heartbeat expired
            state.client.close()

    def close(self) -> None:
        for state in self.opened:
            if state not in self.dead:
                state.close()


@pytest.fixture(scope="module")
def redis_server(tmp_path_factory) -> Iterator[RedisServer]:
    with RedisServer(tmp_path_factory.mktemp("redis")) as server:
        yield server


@pytest.fixture(params=["memory", "sqlite", "redis"])
def backend(request, tmp_path) -> Iterator[Backend]:
    redis_url = None
    if request.param == "redis":
        redis_url = request.getfixturevalue("redis_server").url
    chosen = Backend(request.param, tmp_path, redis_url)
    yield chosen
    chosen.close()


def queue(state: AuditState, urls: list[str], depth: int, referer: str | None = None) -> None:
    """As the spider does: discovered, then put in the frontier."""
    for target in urls:
        assert state.discover(target, depth) is True
        state.enqueue(target, depth, referer)


def taken(state: AuditState, limit: int | None = None) -> list[tuple[str, int]]:
    return [(p.url, p.depth) for p in state.next_level(limit)]


# -- capabilities --------------------------------------------------------------
def test_each_backend_declares_what_it_can(backend):
    state = backend.open(run=False)
    declared = (state.durable, state.remembers, state.shared)
    assert declared == {
        "memory": (False, False, False),
        "sqlite": (True, True, False),
        "redis": (True, False, True),
    }[backend.name]


# -- the audit: open_run, finish_run, history ---------------------------------
def test_a_fresh_audit_opens_as_new(backend):
    state = backend.open(run=False)
    assert state.open_run(START, NEAR) == NEW_RUN
    assert list(state.entries()) == []
    assert state.waiting() == 0
    assert state.next_level() == []


def test_an_interrupted_audit_continues_in_the_next_process(backend):
    """What the first process checked is not handed out again; what it
    took and did not finish comes back with the request still owed (a
    GET after a HEAD that found a page, never the HEAD again)."""
    first = backend.open()
    queue(first, [url("a"), url("b"), url("c"), url("d")], 0)
    assert taken(first, 3) == [(url("a"), 0), (url("b"), 0), (url("c"), 0)]
    first.owe(url("b"), "get")
    first.record(result(url("a"), page=PAGE_STATS), 100.0)
    backend.kill(first)

    second = backend.open(run=False)
    run = second.open_run(START, NEAR)
    if not second.durable:  # a memory state starts from nothing
        assert run == NEW_RUN
        assert second.next_level() == [] and list(second.entries()) == []
        return
    # the audit database resumes; a Redis worker joins the running audit
    assert run.resumed is not second.shared
    assert (run.checked, run.pages) == (1, 1)
    pending = {(p.url, p.depth, p.phase) for p in second.next_level()}
    assert pending == {(url("b"), 0, "get"), (url("c"), 0, None), (url("d"), 0, None)}
    entries = {e.url: e.result for e in second.entries()}
    assert set(entries) == {url("a"), url("b"), url("c"), url("d")}
    assert entries[url("a")].outcome == "ok" and entries[url("b")] is None
    assert second.discover(url("a"), 3) is False  # known: not checked again


def test_a_finished_audit_is_what_the_next_one_remembers(backend):
    first = backend.open()
    queue(first, [url("gone"), url("fine")], 0)
    taken(first)
    assert first.record(result(url("gone"), "broken", status=404), 100.0) == 100.0
    assert first.record(result(url("fine")), 100.0) is None
    assert first.history(url("gone")) is None  # this audit's own result is no history
    first.finish_run("finished", [url("gone")])
    first.close()
    backend.dead.append(first)

    nxt = backend.open(run=False)
    run = nxt.open_run(START, NEAR)
    if nxt.remembers:  # the audit database: a new audit, compared with the last
        assert not run.resumed and run.checked == 0
        assert run.baseline == frozenset({url("gone")})
        assert run.baseline_source is not None and backend.path in run.baseline_source
        old = nxt.history(url("gone"))
        assert old is not None and old.result.status == 404 and old.fail_count == 1
        assert old.first_failed_at == 100.0
        # still failing: the run of failures began in the earlier audit
        queue(nxt, [url("gone")], 0)
        taken(nxt)
        assert nxt.record(result(url("gone"), "broken", status=404), 200.0) == 100.0
    else:
        assert run.baseline is None
        assert nxt.history(url("gone")) is None
    if nxt.shared:  # Redis: the finished audit stays finished (--restart replaces it)
        assert nxt.over() == "finished"


def test_a_kept_audit_is_the_next_one_s_past(backend):
    """``keep_audit``: the finished audit's record and open broken runs are
    the next audit's ``past`` (a state that ``remembers``); an interrupted
    audit kept, then resumed, reads the past before it, never itself."""
    record = {
        "started_at": "2026-11-20T10:00:00+00:00",
        "finished_at": "2026-11-20T10:01:00+00:00",
        "seconds": 60.0,
        "finish_reason": "finished",
        "complete": True,
        "summary": dict.fromkeys(["urls", "pages", "requests", "ok", "redirect"], 1)
        | dict.fromkeys(["broken", "blocked", "excluded", "unchecked"], 0),
        "new": 1,
        "fixed": 0,
    }
    first = backend.open()
    assert first.past() == (Past([], {}, {}) if first.remembers else None)
    since = Streak(record["started_at"], 1)
    first.finish_run("finished", [url("gone")])
    first.keep_audit(record, {url("gone"): since}, {SITE: since})
    first.close()
    backend.dead.append(first)

    nxt = backend.open()
    if not nxt.remembers:
        assert nxt.past() is None
        return
    assert nxt.past() == Past([record], {url("gone"): since}, {SITE: since})
    interrupted = record | {"finish_reason": "shutdown", "complete": False}
    nxt.finish_run("shutdown", [])
    nxt.keep_audit(interrupted, {url("gone"): Streak(since.since, 2)}, {})
    backend.kill(nxt)
    resumed = backend.open()  # the interrupted audit, continued
    assert resumed.past() == Past([record], {url("gone"): since}, {SITE: since})
    later = record | {"started_at": "2026-11-21T10:00:00+00:00"}
    resumed.finish_run("finished", [])
    resumed.keep_audit(later, {}, {})
    assert backend.open().past() == Past([record, later], {}, {})


# -- the frontier --------------------------------------------------------------
def test_discover_says_new_once(backend):
    state = backend.open()
    assert state.discover(url("a"), 0) is True
    assert state.discover(url("a"), 0) is False
    assert state.discover(url("a"), 2) is False  # the first depth stays
    assert state.discover_many([url("b"), url("a"), url("c")], 1) == [True, False, True]
    assert state.discover_many([url("b"), url("d")], 1) == [False, True]
    depths = {e.url: e.depth for e in state.entries()}
    assert depths == {url("a"): 0, url("b"): 1, url("c"): 1, url("d"): 1}
    assert all(e.result is None for e in state.entries())


def test_levels_come_shallowest_first_in_the_order_found(backend):
    state = backend.open()
    queue(state, [url("deep1"), url("deep2")], 1, referer=url("top"))
    queue(state, [url("top"), url("top2"), url("top3")], 0)
    backend.sync(state)  # a shared state counts what reached Redis
    assert state.waiting() == 5
    level = state.next_level()
    assert [(p.url, p.depth, p.referer, p.phase) for p in level] == [
        (url("top"), 0, None, None),
        (url("top2"), 0, None, None),
        (url("top3"), 0, None, None),
    ]
    if state.shared:  # a claim counts as waiting until its result is settled
        assert state.waiting() == 5
        assert state.next_level() == []  # the next level opens once this one is settled
    else:
        assert state.waiting() == 2
    for p in level:
        state.record(result(p.url, depth=0), 1.0)
    assert [(p.url, p.referer) for p in state.next_level()] == [
        (url("deep1"), url("top")),
        (url("deep2"), url("top")),
    ]
    assert state.next_level() == []


def test_a_limit_takes_a_level_in_batches(backend):
    state = backend.open()
    queue(state, [url(f"p{i}") for i in range(5)], 0)
    queue(state, [url("next")], 1)
    assert taken(state, 2) == [(url("p0"), 0), (url("p1"), 0)]
    assert taken(state, 2) == [(url("p2"), 0), (url("p3"), 0)]
    assert taken(state, 2) == [(url("p4"), 0)]  # never into the next level
    for i in range(5):
        state.record(result(url(f"p{i}")), 1.0)
    assert taken(state, 2) == [(url("next"), 1)]
    state.record(result(url("next"), depth=1), 1.0)
    assert state.waiting() == 0


def test_max_urls_bounds_what_is_recorded(backend):
    state = backend.open()
    state.max_urls = 3
    assert state.discover_many([url("a"), url("b")], 0) == [True, True]
    assert state.discover_many([url("c"), url("d"), url("a")], 1) == [True, None, False]
    assert state.discover(url("e"), 1) is None
    assert state.urls_dropped() == 2
    assert {e.url for e in state.entries()} == {url("a"), url("b"), url("c")}
    backend.sync(state)
    backend.kill(state)
    again = backend.open()
    # the count lives as long as the audit does
    assert again.urls_dropped() == (2 if again.durable else 0)


def test_over_is_the_whole_audit_s_end(backend):
    state = backend.open()
    queue(state, [url("only")], 0)
    assert state.over() is None
    taken(state)
    assert state.over() is None
    state.record(result(url("only")), 1.0)
    assert state.next_level() == []
    # alone, a process decides when it is done (its engine idles); a shared
    # audit ends for every worker when no URL waits anywhere
    assert state.over() == ("finished" if state.shared else None)


# -- outcomes and referrers ------------------------------------------------------
def test_record_reads_the_referrers_into_the_result(backend):
    state = backend.open()
    queue(state, [url("page")], 0)
    taken(state)
    links = [(url("bad"), 3), (url("good"), 4), (url("bad"), 9)]
    assert state.discover_many([url("bad"), url("good")], 1) == [True, True]
    for target, _line in links[:2]:
        state.enqueue(target, 1, url("page"))
    state.add_referrers(url("page"), links)
    page = result(url("page"), page=PAGE_STATS, links=links)
    assert state.record(page, 1.0) is None
    assert (page.referrer_count, page.referrers) == (0, [])  # a start URL

    taken(state)
    bad = result(url("bad"), "broken", depth=1, status=404)
    assert state.record(bad, 50.0) == 50.0  # failing since now
    assert bad.referrer_count == 2
    assert bad.referrers == [{"url": url("page"), "line": 3}, {"url": url("page"), "line": 9}]
    good = result(url("good"), depth=1)
    assert state.record(good, 50.0) is None
    assert (good.referrer_count, good.referrers) == (1, [{"url": url("page"), "line": 4}])

    # an ok URL keeps a count, not its list: a large site's edges are not all kept
    assert state.referrers(url("good")) == (1, [])
    state.add_referrer(url("good"), url("later"), 7)
    assert state.referrers(url("good")) == (2, [])
    assert state.referrers(url("bad")) == (2, [(url("page"), 3), (url("page"), 9)])
    state.add_referrer(url("bad"), url("robots.txt"), None)  # robots.txt names it
    count, kept = state.referrers(url("bad"))
    assert count == 3
    assert kept == [(url("page"), 3), (url("page"), 9), (url("robots.txt"), None)]


def test_entries_hold_every_url_with_its_result(backend):
    state = backend.open()
    queue(state, [url("p")], 0)
    taken(state)
    state.discover_many([url("x"), url("never")], 1)
    state.enqueue(url("x"), 1, url("p"))
    state.add_referrers(url("p"), [(url("x"), 2), (url("never"), 5)])
    state.record(result(url("p"), page=PAGE_STATS), 10.0)
    taken(state)
    state.record(result(url("x"), "broken", depth=1, status=500, error="HTTP 500"), 20.0)
    entries = {e.url: e for e in state.entries()}
    assert set(entries) == {url("p"), url("x"), url("never")}
    p, x, never = entries[url("p")], entries[url("x")], entries[url("never")]
    assert (p.depth, p.result.outcome, p.result.page, p.failing_since) == (0, "ok", PAGE_STATS, None)
    assert (x.depth, x.result.status, x.result.error, x.failing_since) == (1, 500, "HTTP 500", 20.0)
    assert (x.referrer_count, x.referrers) == (1, [(url("p"), 2)])
    assert (never.depth, never.result, never.referrer_count) == (1, None, 1)
    assert never.referrers == [(url("p"), 5)]


def test_a_result_recorded_again_replaces_the_first(backend):
    state = backend.open()
    queue(state, [url("flaky")], 0)
    taken(state)
    state.record(result(url("flaky"), "broken", status=503), 5.0)
    state.record(result(url("flaky"), status=200), 6.0)
    (entry,) = state.entries()
    assert (entry.result.outcome, entry.failing_since) == ("ok", None)


# -- marks and redirect hops --------------------------------------------------------
def test_marks_and_hops(backend):
    state = backend.open()
    assert not state.marked("anchors", url("a"))
    state.mark("anchors", [url("a"), url("b")])
    state.mark("sitemap", [url("map.xml")])
    state.mark("anchors", [])
    assert state.marked("anchors", url("a")) and state.marked("anchors", url("b"))
    assert not state.marked("sitemap", url("a")) and state.marked("sitemap", url("map.xml"))
    assert state.hops(url("r2")) == 0
    state.set_hops(url("r2"), 2)
    assert state.hops(url("r2")) == 2 and state.hops(url("r3")) == 0
    if state.shared:  # every worker reads them
        other = backend.open()
        assert other.marked("anchors", url("b")) and other.hops(url("r2")) == 2



def test_a_host_s_backoff_reaches_the_worker_that_takes_it_over(backend):
    """hosts/backoff.py: a shared state keeps a struggling host's
    back-off for the next worker; a lone process holds its own (None here)."""
    state = backend.open()
    record = {"level": 2, "pauses": 1, "paused_until": 1700000000.5, "given_up": None}
    record.update(backoffs=2, paused=1)  # in all, for the report's summary
    assert state.backoff("site.test") is None
    state.save_backoff("site.test", record)
    state.save_backoff("other.test", {**record, "given_up": "Host failing: 503 on 8 of 8"})
    other = backend.open()
    if state.shared:  # the worker taking the host over goes on from there
        assert other.backoff("site.test") == record
        assert other.backoff("other.test")["given_up"] == "Host failing: 503 on 8 of 8"
        assert other.backoff_totals() == (4, 2)  # every host's, for the report
    else:
        assert state.backoff("site.test") is None and other.backoff("site.test") is None
        assert other.backoff_totals() is None  # the process's own stats are the audit's
    assert other.backoff("elsewhere.test") is None

def test_a_host_checked_with_get_only_is_known_to_every_worker_and_remembered(backend):
    """rules/decisions.py: a host whose GET answers contradicted its HEAD
    answers: known for the rest of the audit (every worker of a shared
    audit), and to the next audit of a state that ``remembers``."""
    state = backend.open()
    assert not state.get_only("site.test") and state.get_only_hosts() == {}
    record = {"url": "http://site.test/a", "head": 404, "get": 200, "reason": "HEAD 404, GET 200"}
    state.note_get_only("site.test", record)
    assert state.get_only("site.test") and not state.get_only("other.test")
    assert state.get_only_hosts() == {"site.test": record}
    backend.sync(state)
    if state.shared:  # another worker checks the host with GET only too
        other = backend.open()
        assert other.get_only("site.test") and other.get_only_hosts() == {"site.test": record}
    state.finish_run("finished", [])
    backend.sync(state)
    state.close()
    backend.opened.remove(state)
    later = backend.open()  # the next audit of the same storage
    remembered = later.remembers or later.shared  # the database, or the same Redis audit
    assert later.get_only("site.test") is remembered
    assert later.get_only_hosts() == ({"site.test": record} if remembered else {})


def test_a_link_s_archived_copy_is_known_to_every_worker_and_remembered(backend):
    """--archive (linkaudit/memento/): what the archive answered for a
    broken link is read by the report (every worker's, on a shared audit),
    and by the next audit of a state that ``remembers`` (looked up once)."""
    state = backend.open()
    assert state.archived("http://gone.test/a") is None and state.archived_copies() == {}
    record = {"url": "https://web.archive.org/web/2020/http://gone.test/a", "date": "2020-01-01"}
    state.note_archived("http://gone.test/a", {**record, "final": True})
    state.note_archived("http://gone.test/b", {"url": None, "note": "not in the archive"})
    assert state.archived("http://gone.test/a") == {**record, "final": True}
    assert set(state.archived_copies()) == {"http://gone.test/a", "http://gone.test/b"}
    backend.sync(state)
    if state.shared:  # the worker that writes the report reads it
        other = backend.open()
        assert other.archived_copies() == state.archived_copies()
    state.finish_run("finished", [])
    backend.sync(state)
    state.close()
    backend.opened.remove(state)
    later = backend.open()  # the next audit of the same storage
    remembered = later.remembers or later.shared
    assert (later.archived("http://gone.test/a") is not None) is remembered
    assert len(later.archived_copies()) == (2 if remembered else 0)


# -- the audit's counts and its report ------------------------------------------------
def test_totals_and_progress_are_the_whole_audit_s(backend):
    state = backend.open()
    queue(state, [url("p"), url("q")], 0)
    taken(state)
    state.record(result(url("p"), page=PAGE_STATS), 1.0)
    state.record(result(url("q"), "broken", status=404), 1.0)
    own = Totals(pages=7, requests=9, started_at="2026-01-01T00:00:00+00:00")
    mine = ProgressCounts(checked=5, waiting=6, broken=4)
    if not state.shared:  # this process is the whole audit: its own counts
        assert state.totals(own) == own
        assert state.progress(mine) == mine
        return
    # every worker's, from the shared state: one page scanned, two checked
    pages, requests, started_at = state.totals(own)
    assert (pages, requests) == (1, 0)
    assert datetime.fromisoformat(started_at).tzinfo is not None
    assert state.progress(mine) == ProgressCounts(checked=2, waiting=0, broken=1)


def test_retries_are_every_worker_s(backend):
    """summary.retries: alone, a process's own count is the audit's; in a
    shared audit every worker adds its own when it leaves, and the report
    reads the sum (an altered count reads as none)."""
    state, other = backend.open(), backend.open()
    state.share_retries(3)
    other.share_retries(4)
    other.share_retries(0)
    if not state.shared:
        assert state.retries(5) == 5
        return
    assert state.retries(5) == 7 and other.retries(0) == 7
    state.client.hset(state.key("meta"), "retries", "many")
    assert state.retries(5) == 0


def test_the_report_is_settled_once(backend, tmp_path, monkeypatch):
    """Alone, a process writes the report; in a shared audit one worker
    does, and the others learn where it is and its verdict."""
    # a worker waits this long for the winner's report: seconds here, not minutes
    monkeypatch.setattr("linkaudit.state.redis.election._WAIT_REPORT", 5.0)
    state = backend.open()
    queue(state, [url("p")], 0)
    taken(state)
    state.record(result(url("p"), "broken", status=404), 1.0)
    state.next_level()  # a shared audit sees that it is finished
    assert state.settle_report("finished") == "finished"
    assert (state.note, state.report_path, state.verdict) == (None, None, None)
    report = {
        "complete": True,
        "summary": {"urls": 1, "broken": 1},
        "urls": [{"url": url("p"), "outcome": "broken", "new": False}],
    }
    path = str(tmp_path / "report.json")
    state.report_written(path, report)
    state.close()
    backend.dead.append(state)

    late = backend.open()
    if not late.shared:
        assert late.settle_report("finished") == "finished" and late.note is None
        return
    assert late.settle_report("finished") is None  # another worker wrote it
    assert late.report_path == path and path in late.note
    assert late.verdict == {
        "complete": True,
        "summary": {"urls": 1, "broken": 1},
        "urls": [{"outcome": "broken", "new": False}],
    }


def test_a_process_stopped_alone_settles_no_report_in_a_shared_audit(backend):
    state = backend.open()
    queue(state, [url("a"), url("b")], 0)
    taken(state, 1)
    reason = state.settle_report("shutdown")
    if not state.shared:  # the audit stops with its only process: reported as cut short
        assert reason == "shutdown" and state.note is None
        return
    assert reason is None and "left the audit" in state.note
    assert state.report_path is None and state.verdict is None
    other = backend.open()  # what it claimed is handed back
    assert sorted(taken(other)) == [(url("a"), 0), (url("b"), 0)]


def test_close_keeps_what_was_recorded_for_a_durable_audit(backend):
    state = backend.open()
    queue(state, [url("a")], 0)
    taken(state)
    state.record(result(url("a"), page=PAGE_STATS), 1.0)
    state.close()
    backend.dead.append(state)
    again = backend.open(run=False)
    run = again.open_run(START, NEAR)
    assert run.checked == (1 if again.durable else 0)
    assert [e.url for e in again.entries() if e.result] == ([url("a")] if again.durable else [])
