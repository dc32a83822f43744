"""linkaudit/hosts/ directly: each component built ``from_crawler`` as a
crawl builds it, fed Request and Response objects, on a clock the test
moves (tests/helpers/crawlers.py).  The same politeness end to end, against
servers that log when requests arrive: tests/test_politeness.py,
tests/test_backoff.py, tests/test_throttling.py."""

from __future__ import annotations

import asyncio
import logging
from email.utils import formatdate

import pytest
from scrapy import signals
from scrapy.exceptions import NotConfigured
from scrapy.http import Request, Response
from scrapy.robotstxt import ProtegoRobotParser
from twisted.internet import defer, error, task
from twisted.python.failure import Failure

from linkaudit.exceptions import HostFailing, HostHeld, HostUnreachable, RobotsTxtWait
from linkaudit.hosts import backoff, holds, pacehint
from linkaudit.hosts.backoff import BACKOFFS, PAUSES, RETRIES, THROTTLES, BackoffMiddleware
from linkaudit.hosts.crawldelay import CrawlDelay
from linkaudit.hosts.failures import HostFailureCacheMiddleware
from linkaudit.hosts.holds import HostHolds
from linkaudit.hosts.pacehint import PaceHint
from linkaudit.hosts.pacing import DelayMargin
from linkaudit.hosts.retryafter import RetryAfterMiddleware, retry_after_seconds
from linkaudit.meta import (
    BACKOFF_TRIES,
    BROWSER,
    CHECK_URL,
    HELD_BY_ANSWER,
    HELD_ONCE,
    RETRY_AFTER_TRIES,
    ROBOTS_TXT,
)
from tests.helpers.crawlers import Clock, crawler, engined

SITE = "http://site.test"


def check(path: str, method: str = "HEAD", priority: int = 0, **meta) -> Request:
    """A link check of ``SITE + path``, as the spider makes one."""
    url = SITE + path
    return Request(url, method=method, priority=priority, meta={CHECK_URL: url, **meta})


@pytest.fixture
def clock(monkeypatch) -> Clock:
    """The hosts' clock and timers, moved by the test."""
    fake = Clock()
    for module in (holds, backoff):
        monkeypatch.setattr(module, "time", fake)
        monkeypatch.setattr(module, "call_later", fake.call_later)
    return fake


# -- pacing: DOWNLOAD_DELAY and its margin -------------------------------------------
def test_the_delay_margin_is_added_to_the_delay_new_slots_start_with():
    made, engine = engined(DOWNLOAD_DELAY=0.5, LINKAUDIT_DELAY_MARGIN=0.2)
    DelayMargin.from_crawler(made)
    made.signals.send_catch_log(signals.spider_opened, spider=None)
    assert engine.downloader._delay == pytest.approx(0.7)


@pytest.mark.parametrize("delay, margin", [(0, 0.1), (1.0, 0)])
def test_no_margin_without_a_delay_or_with_margin_zero(delay, margin):
    with pytest.raises(NotConfigured):
        DelayMargin.from_crawler(crawler(DOWNLOAD_DELAY=delay, LINKAUDIT_DELAY_MARGIN=margin))


# -- crawldelay: robots.txt's Crawl-delay ----------------------------------------------
def _robots(made, body: str) -> ProtegoRobotParser:
    return ProtegoRobotParser.from_crawler(made, body.encode())


@pytest.mark.parametrize(
    "body, before, after",
    [
        ("User-agent: *\nCrawl-delay: 2.5\n", 0.0, 2.6),  # raised, with the margin
        ("User-agent: *\nCrawl-delay: 500\n", 0.0, 30.1),  # capped (LINKAUDIT_MAX_CRAWL_DELAY)
        ("User-agent: *\nCrawl-delay: 1\n", 5.0, 5.0),  # never lowered
        ("User-agent: *\nDisallow: /x\n", 0.3, 0.3),  # none asked
        ("User-agent: otherbot\nCrawl-delay: 9\n", 0.0, 0.0),  # not for us
    ],
)
def test_crawl_delay_raises_the_hosts_delay_within_its_cap(body, before, after):
    made, engine = engined()
    component = CrawlDelay.from_crawler(made)
    request = Request(f"{SITE}/robots.txt")
    slot = engine.slot(request, delay=before)
    component.robots_parsed(_robots(made, body), request)
    assert slot.delay == pytest.approx(after)


def test_crawl_delay_of_a_host_without_a_slot_changes_nothing():
    made, engine = engined()
    CrawlDelay.from_crawler(made).robots_parsed(
        _robots(made, "User-agent: *\nCrawl-delay: 3\n"), Request(f"{SITE}/robots.txt")
    )
    assert engine.downloader.slots == {}


@pytest.mark.parametrize("settings", [{"ROBOTSTXT_OBEY": False}, {"LINKAUDIT_MAX_CRAWL_DELAY": 0}])
def test_crawl_delay_is_off_without_robots_txt_or_with_cap_zero(settings):
    with pytest.raises(NotConfigured):
        CrawlDelay.from_crawler(crawler(**settings))


# -- retryafter and holds: Retry-After holds the host ---------------------------------
def test_retry_after_seconds_reads_a_delta_or_a_date():
    assert retry_after_seconds(b"7") == 7
    assert retry_after_seconds(formatdate(1_000_030, usegmt=True).encode(), now=1_000_000) == 30
    assert retry_after_seconds(formatdate(1_000_000, usegmt=True).encode(), now=1_000_030) == 0
    assert retry_after_seconds(b"soon") is None and retry_after_seconds(None) is None


def _answer(request: Request, status: int, **headers) -> Response:
    return Response(request.url, status=status, headers=headers, request=request)


def test_a_429_holds_its_host_and_its_request_is_asked_again(clock):
    made, engine = engined()
    middleware = RetryAfterMiddleware.from_crawler(made)
    request = check("/busy", **{HELD_ONCE: True})
    retry = middleware.process_response(request, _answer(request, 429, **{"Retry-After": "3"}))
    assert isinstance(retry, Request) and retry.url == request.url and retry.dont_filter
    assert retry.meta[RETRY_AFTER_TRIES] == 1 and HELD_ONCE not in retry.meta
    assert HostHolds.of(made).until == {"site.test": clock.now + 3}
    assert made.stats.get_value("linkaudit/retry_after") == 1
    # the retry, and every other request to the host, waits for the hold
    assert HostHolds.of(made).set_aside(retry)
    assert HostHolds.of(made).set_aside(check("/other"))
    assert not HostHolds.of(made).set_aside(Request("http://far.test/x", meta={CHECK_URL: "x"}))
    clock.advance(2.9)
    assert engine.crawled == []
    clock.advance(0.2)
    assert [r.url for r in engine.crawled] == [f"{SITE}/busy", f"{SITE}/other"]
    assert HostHolds.of(made).until == {} and HostHolds.of(made).waiting() == 0


def test_a_rendered_pages_429_holds_its_host_and_is_answered_to_the_browser(clock):
    """A request the browser of a rendered page made (rendering/paced.py):
    its Retry-After holds the host for every request, and its answer is
    handed back (the browser's fetch waits for the hold and asks again)."""
    made, _ = engined()
    middleware = RetryAfterMiddleware.from_crawler(made)
    holds_ = HostHolds.of(made)
    request = Request(f"{SITE}/data.json", meta={BROWSER: True})
    assert holds_.remaining(request) == 0
    answer = _answer(request, 429, **{"Retry-After": "3"})
    assert middleware.process_response(request, answer) is answer
    assert request.meta[HELD_BY_ANSWER] and holds_.until == {"site.test": clock.now + 3}
    assert holds_.set_aside(check("/other"))  # the audit's own requests wait too
    clock.advance(1)
    assert holds_.remaining(Request(f"{SITE}/again")) == pytest.approx(2)
    assert holds_.remaining(Request("http://far.test/x")) == 0


@pytest.mark.parametrize(
    "status, headers, tries, returned",
    [
        (429, {"Retry-After": "1"}, 2, "the answer"),  # LINKAUDIT_RETRY_AFTER_TIMES used up
        (429, {"Retry-After": "31"}, 0, "the answer"),  # longer than LINKAUDIT_RETRY_AFTER_MAX
        (503, {}, 0, "the answer"),  # an outage, not a request to slow down
        (500, {"Retry-After": "1"}, 0, "the answer"),  # not a code that asks to wait
        (503, {"Retry-After": "1"}, 0, "a retry"),
        (429, {}, 0, "a retry"),  # LINKAUDIT_RETRY_AFTER_DEFAULT
    ],
)
def test_what_a_retry_after_answer_brings(clock, status, headers, tries, returned):
    made, _ = engined()
    request = check("/x", **{RETRY_AFTER_TRIES: tries})
    answer = _answer(request, status, **headers)
    got = RetryAfterMiddleware.from_crawler(made).process_response(request, answer)
    assert (got is answer) == (returned == "the answer")
    assert bool(HostHolds.of(made).until) == (returned == "a retry")
    if status == 429 and not headers:
        assert HostHolds.of(made).until["site.test"] == clock.now + 5


def test_a_bot_walls_429_is_not_waited_for(clock):
    made, _ = engined()
    request = check("/x")
    wall = Response(
        request.url,
        status=429,
        headers={"Retry-After": "1", "cf-mitigated": "challenge"},
        request=request,
    )
    assert RetryAfterMiddleware.from_crawler(made).process_response(request, wall) is wall
    assert HostHolds.of(made).until == {}


def test_a_robots_txt_that_asks_to_wait_holds_every_request_of_its_host(clock):
    made, engine = engined()
    robots = Request(f"{SITE}/robots.txt", meta={ROBOTS_TXT: True})
    with pytest.raises(RobotsTxtWait) as raised:
        RetryAfterMiddleware.from_crawler(made).process_response(
            robots, _answer(robots, 503, **{"Retry-After": "2"})
        )
    assert raised.value.until == clock.now + 2 and raised.value.tries == 1
    # even a request set aside once before is set aside again: nothing of the
    # host is sent before its robots.txt is read
    assert HostHolds.of(made).set_aside(check("/given-back", **{HELD_ONCE: True}))
    clock.advance(2)
    assert [r.url for r in engine.crawled] == [f"{SITE}/given-back"]


def test_a_hold_takes_back_the_link_checks_queued_for_its_host(clock):
    made, engine = engined()
    queued = check("/queued")
    robots = Request(f"{SITE}/robots.txt")  # fetched outside the scheduler: stays
    again = check("/again", **{HELD_ONCE: True})  # given back once: sent at the host's pace
    slot = engine.slot(queued)
    outcomes = []
    for request in (queued, robots, again):
        deferred = defer.Deferred()
        deferred.addErrback(lambda failure, r=request: outcomes.append((r, failure.value)))
        slot.queue.append((request, deferred))
    HostHolds.of(made).hold(queued, 4)
    assert [r for r, _ in slot.queue] == [robots, again]
    [(request, failure)] = outcomes
    assert request is queued and isinstance(failure, HostHeld)
    assert made.stats.get_value("linkaudit/retry_after_taken_back") == 1


def test_a_longer_hold_stays_and_only_the_last_timer_releases(clock):
    made, engine = engined()
    hold = HostHolds.of(made)
    first = hold.hold(check("/a"), 2)
    assert hold.hold(check("/b"), 1) == first  # shorter: the longer one stays
    later = hold.hold(check("/c"), 5)
    assert later == clock.now + 5
    assert hold.set_aside(check("/d"))
    clock.advance(2)  # the first hold's timer: extended since, releases nothing
    assert engine.crawled == [] and hold.until == {"site.test": later}
    clock.advance(3)
    assert [r.url for r in engine.crawled] == [f"{SITE}/d"]


def test_a_request_given_back_once_is_sent_at_the_hosts_pace_after_a_new_hold(clock):
    made, engine = engined()
    hold = HostHolds.of(made)
    hold.hold(check("/a"), 1)
    first = check("/b")
    assert hold.set_aside(first) and first.meta[HELD_ONCE]
    clock.advance(1)
    assert engine.crawled == [first]
    hold.hold(check("/c"), 1)  # the host asks to wait again
    assert not hold.set_aside(first)  # given back once: not set aside again
    assert hold.set_aside(check("/d"))  # a request that comes after waits


def test_a_hold_over_while_the_engine_closes_gives_nothing_back(clock):
    made, engine = engined()
    hold = HostHolds.of(made)
    hold.hold(check("/a"), 1)
    assert hold.set_aside(check("/b"))
    engine.running = False
    clock.advance(1)
    assert engine.crawled == [] and hold.waiting() == 0


def test_a_hold_of_no_time_holds_nothing(clock):
    made, _ = engined()
    assert HostHolds.of(made).hold(check("/a"), 0) == clock.now
    assert HostHolds.of(made).until == {} and not HostHolds.of(made).set_aside(check("/a"))


def test_retry_after_is_off_with_no_tries_or_no_codes():
    for settings in ({"LINKAUDIT_RETRY_AFTER_TIMES": 0}, {"LINKAUDIT_RETRY_AFTER_CODES": []}):
        with pytest.raises(NotConfigured):
            RetryAfterMiddleware.from_crawler(crawler(**settings))


# -- failures: a host that cannot be reached -------------------------------------------
def test_an_unreachable_host_fails_its_other_requests_at_once():
    made = crawler()
    middleware = HostFailureCacheMiddleware.from_crawler(made)
    refused = error.ConnectionRefusedError()
    assert middleware.process_request(check("/a")) is None
    middleware.process_exception(check("/a"), refused)
    with pytest.raises(HostUnreachable) as raised:
        middleware.process_request(check("/b"))
    assert raised.value.__cause__ is refused and str(raised.value) == str(refused)
    assert middleware.process_request(Request("http://far.test/")) is None  # another host
    assert made.stats.get_value("linkaudit/host_failure_cache/hit") == 1


def test_a_timeout_condemns_a_host_only_while_it_never_answered():
    middleware = HostFailureCacheMiddleware.from_crawler(crawler())
    slow = Request("http://slow.test/page")
    middleware.process_response(slow, Response(slow.url))  # it answered once
    middleware.process_exception(slow, error.TimeoutError())
    assert middleware.process_request(Request("http://slow.test/other")) is None
    silent = Request("http://silent.test/robots.txt")
    middleware.process_exception(silent, error.TimeoutError())
    with pytest.raises(HostUnreachable):
        middleware.process_request(Request("http://silent.test/page"))


def test_an_answer_cut_short_does_not_condemn_a_host():
    middleware = HostFailureCacheMiddleware.from_crawler(crawler())
    middleware.process_exception(check("/a"), error.ConnectionLost())
    assert middleware.process_request(check("/b")) is None


def test_the_failure_cache_is_off_when_asked():
    with pytest.raises(NotConfigured):
        HostFailureCacheMiddleware.from_crawler(crawler(LINKAUDIT_HOST_FAILURE_CACHE=False))


# -- backoff: a struggling host slowed down, paused, given up ------------------------------
def _backoff(**settings):
    values = {
        "LINKAUDIT_BACKOFF_WINDOW": 4,  # a decision every 2 answers, on the last 4
        "LINKAUDIT_BACKOFF_MAX_DELAY": 1.0,  # 0.25 s doubled: 0.5 s, then 1 s (the cap)
        "LINKAUDIT_BACKOFF_PAUSE": 10.0,
        "LINKAUDIT_BACKOFF_MAX_PAUSES": 1,
        **settings,
    }
    made, engine = engined(**values)
    return made, engine, BackoffMiddleware.from_crawler(made)


def _answered(middleware, request, status):
    answer = Response(request.url, status=status, request=request)
    return asyncio.run(middleware.process_response(request, answer)), answer


def test_a_host_failing_with_5xx_is_slowed_down_paused_then_given_up(clock):
    made, engine, middleware = _backoff()
    slot = engine.slot(check("/"))
    # a lone 500 of a healthy host is judged: its answer comes back
    for n in range(3):
        got, answer = _answered(middleware, check(f"/{n}"), 500)
        assert got is answer
    assert slot.delay == 0
    # the fourth fills the window: backing off, and the failing answer asked again
    got, _ = _answered(middleware, check("/3", priority=5), 500)
    assert isinstance(got, Request) and got.meta[BACKOFF_TRIES] == 1 and got.priority == 4
    assert slot.delay == 0.5 and made.stats.get_value(BACKOFFS) == 1
    assert made.stats.get_value(RETRIES) == 1
    clock.advance(1)
    for n in range(2):  # still failing: the cap
        _answered(middleware, check(f"/cap{n}"), 502)
    assert slot.delay == 1.0 and made.stats.get_value(BACKOFFS) == 2
    clock.advance(1)
    for n in range(2):  # at the cap: paused, its slot's delay covering the pause
        _answered(middleware, check(f"/pause{n}"), 503)
    assert made.stats.get_value(PAUSES) == 1 and slot.delay >= 10
    clock.advance(10)  # the pause is over: back at the backed-off pace
    assert slot.delay == 1.0
    got, _ = _answered(middleware, check("/again"), 500)  # struggling: asked again
    assert isinstance(got, Request)
    # failing still, after its last pause: given up
    with pytest.raises(HostFailing, match="Host failing: 503 and 500 on 4 of the last 4"):
        _answered(middleware, check("/last"), 500)
    with pytest.raises(HostFailing):
        middleware.process_request(check("/never-sent"))
    assert middleware.process_request(Request("http://far.test/", meta={CHECK_URL: "x"})) is None


def test_a_host_that_recovers_gets_its_pace_back(clock):
    made, engine, middleware = _backoff()
    slot = engine.slot(check("/"))
    for n in range(4):
        _answered(middleware, check(f"/{n}"), 500)
    assert slot.delay == 0.5
    clock.advance(1)
    for n in range(4):
        got, answer = _answered(middleware, check(f"/fine{n}"), 200)
        assert got is answer
    assert slot.delay == 0  # recovered: its own pace (no delay)


def test_a_throttling_host_is_asked_one_connection_at_a_time(clock):
    made, engine, middleware = _backoff()
    slot = engine.slot(check("/"), concurrency=8)
    got, _ = _answered(middleware, check("/a"), 429)
    assert isinstance(got, Request) and got.meta[BACKOFF_TRIES] == 1
    assert slot.concurrency == 1 and slot.delay >= 0.25
    assert made.stats.get_value(THROTTLES) == 1
    # asked alone, failing again while the host answered others fine: the verdict
    again = check("/a", **{backoff.ALONE: True})
    middleware.process_request(again)
    assert again.meta[backoff.ALONE] is True
    _answered(middleware, check("/b"), 200)
    got, answer = _answered(middleware, again, 429)
    assert got is answer


def test_other_requests_and_bot_walls_are_no_trouble_of_the_host(clock):
    made, engine, middleware = _backoff()
    robots = Request(f"{SITE}/robots.txt")
    for _ in range(8):
        got, answer = _answered(middleware, robots, 503)
        assert got is answer
    wall = check("/walled")
    answer = Response(wall.url, status=403, headers={"cf-mitigated": "challenge"}, request=wall)
    for _ in range(8):
        assert asyncio.run(middleware.process_response(wall, answer)) is answer
    assert middleware.hosts == {}


def test_timeouts_count_as_a_hosts_trouble(clock):
    made, engine, middleware = _backoff()
    slot = engine.slot(check("/"))
    timeout = error.TimeoutError()
    results = [middleware.process_exception(check(f"/{n}"), timeout) for n in range(4)]
    assert results[:3] == [None, None, None]  # judged (the failure judge asks once again)
    assert isinstance(results[3], Request) and slot.delay == 0.5
    refused = middleware.process_exception(check("/r"), error.ConnectionRefusedError())
    assert refused is None  # an unreachable host: hosts/failures.py's


def test_the_backoff_is_off_when_asked():
    with pytest.raises(NotConfigured):
        BackoffMiddleware.from_crawler(crawler(LINKAUDIT_BACKOFF=False))


# -- pacehint: a hint once when the default pace will take long ---------------------------
def _hint(monkeypatch, queued: int) -> tuple[PaceHint, task.Clock]:
    made, _ = engined(DOWNLOAD_DELAY=1.0)
    hint = PaceHint.from_crawler(made)
    monkeypatch.setattr(hint, "queued", lambda: queued)
    reactor_clock = task.Clock()
    hint.call = task.LoopingCall(hint.check)  # as spider_opened starts it, on a clock of ours
    hint.call.clock = reactor_clock
    hint.call.start(hint.after, now=False)
    return hint, reactor_clock


def test_the_pace_hint_is_said_once_when_the_rest_would_take_long(monkeypatch, caplog):
    hint, reactor_clock = _hint(monkeypatch, queued=600)
    with caplog.at_level(logging.WARNING, logger=pacehint.__name__):
        reactor_clock.advance(19)
        assert not caplog.records
        reactor_clock.advance(1)
        reactor_clock.advance(20)
    [record] = caplog.records
    assert "about 600 URLs" in record.getMessage() and "about 10 min more" in record.getMessage()
    assert "--delay 0" in record.getMessage() and not hint.call.running


def test_no_pace_hint_when_the_rest_is_short(monkeypatch, caplog):
    hint, reactor_clock = _hint(monkeypatch, queued=299)
    with caplog.at_level(logging.WARNING, logger=pacehint.__name__):
        reactor_clock.advance(100)
    assert not caplog.records and hint.call.running
    hint.spider_closed(None)
    assert not hint.call.running


@pytest.mark.parametrize(
    "settings", [{"DOWNLOAD_DELAY": 0.2}, {"DOWNLOAD_DELAY": 1, "LINKAUDIT_PACE_HINT": False}]
)
def test_no_pace_hint_when_fast_already_or_off(settings):
    with pytest.raises(NotConfigured):
        PaceHint.from_crawler(crawler(**settings))


def test_held_requests_failed_from_the_queue_are_failures_of_hostheld():
    # what the failure judge receives for a request taken back (hosts/holds.py)
    failure = Failure(HostHeld("site.test asked to wait 3 s"))
    assert failure.check(HostHeld) and "asked to wait" in str(failure.value)
