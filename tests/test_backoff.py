"""Backing off a struggling server (hosts/backoff.py, rules/backoff.py):
real servers on three loopback addresses, three hosts as Scrapy's download
slots tell them apart.  One fails part way (503s, then timeouts) and
recovers, one never recovers, one is healthy throughout."""

from __future__ import annotations

import contextlib
import json
import statistics
import threading
import time

import pytest

from linkaudit.rules.backoff import BACKOFF, GIVE_UP, PAUSE, RECOVER, BackoffPolicy, HostBackoff
from tests.conftest import Spawned, run_crawl, validate
from tests.helpers.command import LINKAUDIT
from tests.redisserver import RedisServer
from tests.server import Route, TestServer

PAUSE_SECONDS = 1.5
SETTINGS = {
    "LINKAUDIT_BACKOFF_WINDOW": "8",
    "LINKAUDIT_BACKOFF_THRESHOLD": "0.5",
    "LINKAUDIT_BACKOFF_MAX_DELAY": "1.0",
    "LINKAUDIT_BACKOFF_PAUSE": str(PAUSE_SECONDS),
    "LINKAUDIT_BACKOFF_MAX_PAUSES": "2",
    "DOWNLOAD_TIMEOUT": "1",
    "CONCURRENT_REQUESTS_PER_DOMAIN": "4",
}


class Spell:
    """A server's fault (robots.txt aside): its first ``ok`` answers fine,
    then 503s for ``failing`` seconds, then answers too late (timeouts) for
    ``hanging`` seconds, then fine again."""

    def __init__(self, ok: int, failing: float, hanging: float):
        self.ok, self.failing, self.hanging = ok, failing, hanging
        self.seen = 0
        self.began: float | None = None
        self.lock = threading.Lock()

    def __call__(self, path: str) -> Route | None:
        if path == "/robots.txt":
            return None
        with self.lock:
            self.seen += 1
            if self.seen <= self.ok:
                return None
            if self.began is None:
                self.began = time.monotonic()
            spent = time.monotonic() - self.began
        if spent < self.failing:
            return Route(503, "<h1>Service Unavailable</h1>")
        if spent < self.failing + self.hanging:
            return Route(200, "<p>late</p>", delay=2.0)
        return None


def never_recovers(path: str) -> Route | None:
    return None if path == "/robots.txt" else Route(503, "<h1>Service Unavailable</h1>")


def gaps(times: list[float]) -> list[float]:
    times = sorted(times)
    return [b - a for a, b in zip(times, times[1:], strict=False)]


def three_hosts(
    stack: contextlib.ExitStack, pages: int, failing_links: int
) -> tuple[TestServer, TestServer, TestServer]:
    """The site (``pages`` pages) on 127.0.0.2, a host that never recovers
    (``failing_links`` URLs linked) on 127.0.0.3, a healthy one (8) on
    127.0.0.4; the start page links to them all."""
    near, failing, healthy = (
        stack.enter_context(TestServer(host=h)) for h in ("127.0.0.2", "127.0.0.3", "127.0.0.4")
    )
    links = [f"/p{i}" for i in range(pages)]
    links += [f"{failing.url}/b{i}" for i in range(failing_links)]
    links += [f"{healthy.url}/c{i}" for i in range(8)]
    near.add("/", "".join(f'<a href="{u}">x</a>' for u in links))
    for i in range(pages):
        near.add(f"/p{i}", f"<p>page {i}</p>")
    for i in range(8):
        healthy.add(f"/c{i}", f"<p>partner {i}</p>")
    failing.fault = never_recovers
    return near, failing, healthy


@pytest.fixture(scope="module")
def audit(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("backoff")
    with contextlib.ExitStack() as stack:
        near, failing, healthy = three_hosts(stack, pages=16, failing_links=8)
        near.fault = Spell(ok=4, failing=3.0, hanging=1.0)
        crawl = run_crawl(tmp_path, "-a", f"start={near.url}/", settings=SETTINGS, timeout=60)
        yield crawl, near, failing, healthy


def test_the_recovered_host_has_every_url_checked(audit):
    crawl, near, _failing, _healthy = audit
    assert crawl.report is not None, crawl.stderr[-3000:]
    for i in range(16):
        assert crawl.url(f"{near.url}/p{i}")["outcome"] == "ok", crawl.url(f"{near.url}/p{i}")
    assert any(h.status == 503 for h in near.log)  # it did struggle
    assert "127.0.0.2 is struggling" in crawl.stderr
    assert "127.0.0.2 is recovering" in crawl.stderr


def test_the_host_that_never_recovers_is_given_up_unchecked(audit):
    crawl, _near, failing, _healthy = audit
    for i in range(8):
        entry = crawl.url(f"{failing.url}/b{i}")
        assert entry["outcome"] == "unchecked", entry
        assert entry["error"].startswith("Host failing: 503 on "), entry
    assert crawl.report["complete"] is False
    assert crawl.report["summary"]["broken"] == 0
    assert "127.0.0.3 given up, its URLs left unchecked" in crawl.stderr
    assert crawl.returncode != 0 or crawl.report["summary"]["unchecked"] > 0


def test_the_struggling_host_is_asked_slower_then_paused(audit):
    crawl, _near, failing, _healthy = audit
    summary = crawl.report["summary"]
    assert summary["backoffs"] >= 2 and summary["pauses"] >= 2, summary
    paused = crawl.stderr.count("127.0.0.3 keeps failing")
    assert paused == 2, crawl.stderr[-3000:]
    arrivals = [h.arrived for h in failing.log if h.path != "/robots.txt"]
    between = gaps(arrivals)
    # no request during a pause: a silence of a pause's length for each
    # (the backed-off delay is 1 s at most)
    assert sum(1 for g in between if g >= PAUSE_SECONDS - 0.05) >= paused, between
    # the rate falls: the first requests come together, the last ones a
    # backed-off delay apart (no pause counted)
    paced = [g for g in between if g < PAUSE_SECONDS - 0.05]
    third = max(1, len(paced) // 3)
    assert statistics.median(paced[:third]) < statistics.median(paced[-third:]), between
    assert max(paced) >= 0.9, between  # the cap (1 s) reached
    # nothing asked once the host was given up: the last request is a
    # check, and the URLs not answered were never asked again
    assert len(failing.log) < 40


def test_the_healthy_host_carries_on(audit):
    crawl, _near, _failing, healthy = audit
    for i in range(8):
        assert crawl.url(f"{healthy.url}/c{i}")["outcome"] == "ok"
    checks = [h for h in healthy.log if h.path != "/robots.txt"]
    assert len(checks) == 8  # asked once each: never backed off
    assert "127.0.0.4" not in crawl.stderr.replace(f"{healthy.url}/", "")


def test_switched_off_a_failing_host_is_judged_as_before(tmp_path):
    with TestServer(host="127.0.0.2") as near, TestServer(host="127.0.0.3") as failing:
        near.add("/", "".join(f'<a href="{failing.url}/b{i}">x</a>' for i in range(3)))
        failing.fault = never_recovers
        crawl = run_crawl(
            tmp_path,
            "-a",
            f"start={near.url}/",
            settings={**SETTINGS, "LINKAUDIT_BACKOFF": "False"},
            timeout=60,
        )
    for i in range(3):
        assert crawl.url(f"{failing.url}/b{i}")["status"] == 503
    summary = crawl.report["summary"]
    assert (summary["broken"], summary["backoffs"], summary["pauses"]) == (3, 0, 0), summary
    assert "struggling" not in crawl.stderr


def test_a_bad_setting_is_one_line(tmp_path):
    settings = {"LINKAUDIT_BACKOFF_THRESHOLD": "2"}  # a share: at most 1
    crawl = run_crawl(tmp_path, "-a", "start=http://127.0.0.1:9/", settings=settings)
    assert crawl.returncode != 0 and crawl.report is None
    assert "LINKAUDIT_BACKOFF_THRESHOLD" in crawl.stderr, crawl.stderr[-2000:]
    assert "Traceback" not in crawl.stderr


# -- the rules alone ---------------------------------------------------------


def test_rules_a_burst_backs_off_and_recovers_without_a_pause():
    policy = BackoffPolicy(window=20, threshold=0.5, max_delay=8.0, pause=30.0, max_pauses=2)
    host = HostBackoff(policy, base=1.0)
    now, decisions = 0.0, []
    for answer in [None] * 20 + ["503"] * 15 + [None] * 60:
        now += host.delay
        decisions.append(host.observe(answer, now, now - 0.1))
    assert PAUSE not in decisions and GIVE_UP not in decisions
    assert decisions.count(BACKOFF) >= 2
    assert decisions.count(RECOVER) == decisions.count(BACKOFF)
    assert host.level == 0 and host.delay == 1.0


def test_rules_a_host_that_never_recovers_is_given_up_in_minutes():
    policy = BackoffPolicy()  # the defaults
    host = HostBackoff(policy, base=1.0)
    now = 0.0
    while host.given_up is None and now < 3600:
        now = max(now + host.delay, host.paused_until)
        host.observe("503", now, now - 0.1)
    assert host.given_up == "Host failing: 503 on 20 of the last 20 requests; paused"
    assert now < 5 * 60, now  # "given up within a few minutes"


def test_rules_a_404_is_no_trouble_of_the_host():
    host = HostBackoff(BackoffPolicy(window=8), base=0.0)
    assert [host.observe(None, float(t)) for t in range(40)] == [None] * 40
    assert host.level == 0


def test_a_shared_audit_backs_off_a_host_once_for_all_its_workers(tmp_path):
    """Two workers on one Redis: the failing host is backed off, paused as
    often as one process would pause it and given up once (by the worker
    that holds its lease), its URLs unchecked with the reason in the one
    report, which counts the back-offs of the audit; the other hosts' pages
    all checked.  (A host's record handed from one worker to the next is
    held to by tests/test_state_contract.py.)"""
    with contextlib.ExitStack() as stack:
        redis = stack.enter_context(RedisServer(tmp_path / "redis"))
        near, failing, healthy = three_hosts(stack, pages=8, failing_links=12)
        workers = []
        for i in range(2):
            cmd = [LINKAUDIT, f"{near.url}/", "--delay", "0", "--report", str(tmp_path / f"w{i}.json")]
            cmd += ["--redis", redis.url, "--audit", "struggle"]
            quick = {"LINKAUDIT_REDIS_LEASE": "2", "LINKAUDIT_REDIS_POLL": "0.05"}
            for name, value in {**SETTINGS, **quick}.items():
                cmd += ["-s", f"{name}={value}"]
            workers.append(Spawned(cmd))
        for w in workers:
            w.wait(timeout=90)
    written = [tmp_path / f"w{i}.json" for i in range(2) if (tmp_path / f"w{i}.json").exists()]
    assert len(written) == 1, [w.stderr[-2000:] for w in workers]
    report = json.loads(written[0].read_text())
    validate(report)
    by_url = {u["url"]: u for u in report["urls"]}
    for i in range(12):
        entry = by_url[f"{failing.url}/b{i}"]
        assert entry["outcome"] == "unchecked", entry
        assert entry["error"].startswith("Host failing: 503 on "), entry
    for i in range(8):
        assert by_url[f"{near.url}/p{i}"]["outcome"] == "ok"
        assert by_url[f"{healthy.url}/c{i}"]["outcome"] == "ok"
    assert report["complete"] is False and report["summary"]["broken"] == 0
    # as one process: the host paused MAX_PAUSES times, then given up, once
    assert report["summary"]["pauses"] == int(SETTINGS["LINKAUDIT_BACKOFF_MAX_PAUSES"])
    assert report["summary"]["backoffs"] >= 2
    given_up = sum(w.stderr.count("127.0.0.3 given up") for w in workers)
    assert given_up == 1, [w.stderr[-2000:] for w in workers]
