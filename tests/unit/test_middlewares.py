"""The downloader and spider middlewares of linkaudit/middlewares/ (and the
local build's), each built ``from_crawler`` as a crawl builds it and fed
Request and Response objects (tests/helpers/crawlers.py).  The recheck
middleware's own tests are in tests/unit/test_state_db.py; what they do in
an audit, against servers on 127.0.0.1: tests/test_politeness.py,
tests/test_privacy.py, tests/test_bodies.py, tests/test_internal_errors.py."""

from __future__ import annotations

import asyncio
import gzip
import sys

import pytest
from scrapy.exceptions import NotConfigured, StopDownload
from scrapy.http import HtmlResponse, Request, Response
from scrapy.settings import Settings
from scrapy.statscollectors import MemoryStatsCollector
from twisted.internet import error

from linkaudit.audit import start_audit
from linkaudit.exceptions import HostHeld, RobotsBlocked, RobotsTxtWait, RobotsUnanswered
from linkaudit.meta import (
    CHECK_URL,
    DEPTH,
    LOCATION,
    LOCATION_ERROR,
    MAXSIZE,
    PHASE,
    RENDER,
    SITEMAP,
    TRUNCATED,
)
from linkaudit.middlewares.cookiejar import CookieJarMiddleware
from linkaudit.middlewares.cookies import CookieFileMiddleware
from linkaudit.middlewares.credentials import NearCredentialsMiddleware
from linkaudit.middlewares.decompress import CappedDecompressionMiddleware
from linkaudit.middlewares.internalerrors import InternalErrorMiddleware
from linkaudit.middlewares.redirects import RedirectRecorderMiddleware
from linkaudit.middlewares.robots import RobotsMiddleware
from linkaudit.middlewares.stats import DownloaderStats
from linkaudit.signals import request_sent
from tests.helpers.crawlers import crawler, engined

SITE = "http://site.test"


def check(url: str, method: str = "HEAD", **meta) -> Request:
    return Request(url, method=method, meta={CHECK_URL: url, **meta})


# -- redirects: noted, not followed (but robots.txt's) ------------------------------
def _redirect(request: Request, location: str, status: int = 301) -> Response:
    return Response(request.url, status=status, headers={"Location": location}, request=request)


def test_a_link_checks_redirect_is_noted_not_followed():
    middleware = RedirectRecorderMiddleware.from_crawler(crawler())
    request = check(f"{SITE}/old/page")
    answer = _redirect(request, "../new%7e/Page?q#top")
    assert middleware.process_response(request, answer) is answer
    assert request.meta[LOCATION] == f"{SITE}/new~/Page?q"  # canonical: no fragment
    assert LOCATION_ERROR not in request.meta


def test_a_redirect_to_no_url_is_said_with_its_password_masked():
    middleware = RedirectRecorderMiddleware.from_crawler(crawler())
    request = check(f"{SITE}/old")
    answer = _redirect(request, "http://user:hunter2@[bad/")
    assert middleware.process_response(request, answer) is answer
    assert LOCATION not in request.meta
    error_text = request.meta[LOCATION_ERROR]
    assert (
        error_text.startswith("Invalid redirect Location 'http://user:")
        and "hunter2" not in error_text
    )


def test_robots_txt_redirects_are_followed_to_http_urls_only():
    middleware = RedirectRecorderMiddleware.from_crawler(crawler())
    robots = Request(f"{SITE}/robots.txt")
    followed = middleware.process_response(robots, _redirect(robots, "/real-robots.txt"))
    assert isinstance(followed, Request) and followed.url == f"{SITE}/real-robots.txt"
    for location in ("javascript:alert(1)", "http://u:p@site.test/robots.txt"):
        answer = middleware.process_response(robots, _redirect(robots, location))
        assert isinstance(answer, Response) and answer.body == b""  # no rules


# -- decompress: a compressed body expanded to its cap, never further ----------------
def _gzipped(request: Request, body: bytes, **headers) -> Response:
    headers = {"Content-Encoding": "gzip", "Content-Type": "text/html", **headers}
    return Response(request.url, body=gzip.compress(body), headers=headers, request=request)


def test_a_compressed_page_is_expanded_to_its_cap_and_marked_cut():
    middleware = CappedDecompressionMiddleware.from_crawler(
        crawler(LINKAUDIT_PAGE_MAXSIZE=1000, LINKAUDIT_SITEMAP_MAXSIZE=3000)
    )
    page = check(f"{SITE}/", "GET")
    got = middleware.process_response(page, _gzipped(page, b"<p>x</p>" * 1000))
    assert isinstance(got, HtmlResponse) and len(got.body) == 1000
    assert got.body.startswith(b"<p>x</p>") and b"Content-Encoding" not in got.headers
    assert page.meta[TRUNCATED] is True
    sitemap = check(f"{SITE}/sitemap.xml", "GET", **{PHASE: SITEMAP})
    assert len(middleware.process_response(sitemap, _gzipped(sitemap, b"y" * 5000)).body) == 3000
    robots = Request(f"{SITE}/robots.txt", meta={MAXSIZE: 10})
    assert middleware.process_response(robots, _gzipped(robots, b"z" * 50)).body == b"z" * 10
    small = check(f"{SITE}/small", "GET")
    assert middleware.process_response(small, _gzipped(small, b"small")).body == b"small"
    assert TRUNCATED not in small.meta


def test_a_body_that_does_not_decode_is_empty_and_a_head_untouched():
    middleware = CappedDecompressionMiddleware.from_crawler(crawler())
    page = check(f"{SITE}/", "GET")
    answer = Response(page.url, body=b"not gzip at all", headers={"Content-Encoding": "gzip"})
    assert middleware.process_response(page, answer).body == b""
    head = check(f"{SITE}/", "HEAD")
    answer = _gzipped(head, b"x")
    assert middleware.process_response(head, answer) is answer


def test_scrapys_own_fetches_keep_scrapys_decompression():
    middleware = CappedDecompressionMiddleware.from_crawler(crawler(LINKAUDIT_PAGE_MAXSIZE=10))
    other = Request(f"{SITE}/other")  # no cap: not a request of linkaudit's
    assert middleware.process_response(other, _gzipped(other, b"w" * 100)).body == b"w" * 100


# -- credentials: --header and --auth for the site's own origins only -----------------
def _credentials(**settings) -> NearCredentialsMiddleware:
    return NearCredentialsMiddleware.from_crawler(
        crawler(LINKAUDIT_START=f"{SITE}/", LINKAUDIT_NETRC=False, **settings)
    )


def test_headers_and_a_login_go_to_the_sites_origin_only():
    middleware = _credentials(LINKAUDIT_HEADERS=["X-Token: s3cret"], LINKAUDIT_AUTH="ann:pw")
    ours = check(f"{SITE}/page")
    assert middleware.process_request(ours) is None
    assert ours.headers[b"X-Token"] == b"s3cret"
    assert (ours.meta["http_user"], ours.meta["http_pass"]) == ("ann", "pw")
    assert ours.meta["http_auth_domain"] == "site.test"
    # a far link, and a request copied from ours (a redirect followed), get none
    for url in ("http://far.test/", "https://site.test/page", "http://site.test:8080/"):
        copied = ours.replace(url=url)
        middleware.process_request(copied)
        assert b"X-Token" not in copied.headers, url
        assert "http_user" not in copied.meta and "http_pass" not in copied.meta, url


def test_a_header_the_request_has_is_not_replaced_and_header_hosts_get_them():
    middleware = _credentials(
        LINKAUDIT_HEADERS=["X-Token: s3cret", "Accept: text/html"],
        LINKAUDIT_HEADER_HOSTS=["api.test"],
    )
    request = Request(f"{SITE}/", headers={"Accept": "*/*"})
    middleware.process_request(request)
    assert request.headers[b"Accept"] == b"*/*" and request.headers[b"X-Token"] == b"s3cret"
    api = Request("https://api.test/v1")
    middleware.process_request(api)
    assert api.headers[b"X-Token"] == b"s3cret"


def test_no_credentials_middleware_without_credentials():
    with pytest.raises(NotConfigured):
        _credentials()


# -- cookies: a cookies.txt for the site's own origins ------------------------------------
COOKIES = (
    "# Netscape HTTP Cookie File\n"
    "site.test\tFALSE\t/\tFALSE\t0\tsession\tabc\n"
    "site.test\tFALSE\t/\tFALSE\t1\told\tgone\n"  # expired in 1970: not loaded
)


def _cookies(tmp_path, **settings):
    jar = tmp_path / "cookies.txt"
    jar.write_text(COOKIES)
    return CookieFileMiddleware.from_crawler(
        crawler(LINKAUDIT_START=f"{SITE}/", LINKAUDIT_COOKIE_JAR=str(jar), **settings)
    )


def test_the_cookie_jar_sends_its_cookies_to_the_site_only(tmp_path):
    middleware = _cookies(tmp_path)
    assert isinstance(middleware, CookieJarMiddleware)
    ours = Request(f"{SITE}/page")
    middleware.process_request(ours)
    assert ours.headers.getlist("Cookie") == [b"session=abc"]
    far = Request("http://site.test:8080/", headers={"Cookie": "session=abc"})  # copied
    middleware.process_request(far)
    assert b"Cookie" not in far.headers


def test_a_far_servers_set_cookie_is_not_kept(tmp_path):
    middleware = _cookies(tmp_path)
    far = Request("http://site.test:8080/")  # another origin of the same host
    middleware.process_response(
        far, Response(far.url, headers={"Set-Cookie": "planted=1"}, request=far)
    )
    near = Request(f"{SITE}/login")
    middleware.process_response(
        near, Response(near.url, headers={"Set-Cookie": "fresh=2"}, request=near)
    )
    ours = Request(f"{SITE}/next")
    middleware.process_request(ours)
    sent = b"; ".join(ours.headers.getlist("Cookie"))
    assert b"fresh=2" in sent and b"session=abc" in sent and b"planted" not in sent


def test_no_cookies_without_a_jar():
    with pytest.raises(NotConfigured):
        CookieFileMiddleware.from_crawler(crawler())


# -- stats: a request counted when it is sent -------------------------------------------
def test_requests_are_counted_when_sent_and_renders_not_at_all():
    made = crawler()
    middleware = DownloaderStats.from_crawler(made)
    request = Request(f"{SITE}/")
    assert middleware.process_request(request) is None
    assert made.stats.get_value("downloader/request_count") is None  # in the downloader: not sent
    made.signals.send_catch_log(request_sent, request=request)
    made.signals.send_catch_log(request_sent, request=Request(f"{SITE}/h", method="HEAD"))
    made.signals.send_catch_log(request_sent, request=Request(f"{SITE}/r", meta={RENDER: True}))
    assert made.stats.get_value("downloader/request_count") == 2
    assert made.stats.get_value("downloader/request_method_count/HEAD") == 1
    rendered = Request(f"{SITE}/r", meta={RENDER: True})
    middleware.process_response(rendered, Response(rendered.url, request=rendered))
    assert made.stats.get_value("downloader/response_count") is None
    middleware.process_response(request, Response(request.url, request=request))
    assert made.stats.get_value("downloader/response_count") == 1


# -- robots: RFC 9309's statuses, one line for a failure --------------------------------
def _robots(answer: Response | BaseException, **settings):
    made, engine = engined(**settings)
    engine.answers[f"{SITE}/robots.txt"] = answer
    return RobotsMiddleware.from_crawler(made), engine, made


def _asked(middleware: RobotsMiddleware, *paths: str) -> dict[str, str]:
    """What robots.txt says of each path: allowed, or the exception's words."""

    async def each() -> dict[str, str]:
        said = {}
        for path in paths:
            request = check(SITE + path)
            try:
                middleware.process_request_2(await middleware.robot_parser(request), request)
                said[path] = "allowed"
            except Exception as exc:  # noqa: BLE001 -- what a request is told
                said[path] = f"{type(exc).__name__}: {exc}"
        return said

    return asyncio.run(each())


def _text(body: str, status: int = 200) -> Response:
    return Response(f"{SITE}/robots.txt", status=status, body=body.encode())


def test_robots_txt_rules_are_obeyed_and_fetched_once():
    middleware, engine, made = _robots(_text("User-agent: *\nDisallow: /secret\n"))
    said = _asked(middleware, "/secret/x", "/open")
    assert said == {
        "/secret/x": "RobotsBlocked: Disallowed by robots.txt",
        "/open": "allowed",
    }
    assert [r.url for r in engine.downloaded] == [f"{SITE}/robots.txt"]
    assert made.stats.get_value("robotstxt/request_count") == 1


@pytest.mark.parametrize(
    "status, said",
    [
        (404, "allowed"),  # no rules
        (
            503,
            "RobotsBlocked: Disallowed: robots.txt answered 503 (RFC 9309: a host whose "
            "robots.txt fails counts as disallowed)",
        ),
    ],
)
def test_robots_txt_statuses_as_rfc_9309_reads_them(status, said):
    middleware, _, _ = _robots(_text("User-agent: *\nDisallow: /\n", status))
    assert _asked(middleware, "/page") == {"/page": said}


def test_a_robots_txt_past_its_cap_is_read_to_the_cap():
    body = "User-agent: *\nDisallow: /early\n" + "#" * 200 + "\nDisallow: /late\n"
    middleware, _, _ = _robots(_text(body), LINKAUDIT_ROBOTSTXT_MAXSIZE=100)
    assert _asked(middleware, "/early", "/late") == {
        "/early": "RobotsBlocked: Disallowed by robots.txt",
        "/late": "allowed",
    }


def test_a_robots_txt_download_stops_at_its_cap():
    middleware, _, _ = _robots(_text(""))
    request = Request(f"{SITE}/robots.txt", meta={MAXSIZE: 10})
    middleware._on_bytes(b"123456", request, None)
    with pytest.raises(StopDownload) as stopped:
        middleware._on_bytes(b"789012", request, None)
    assert stopped.value.fail is False and request.meta[TRUNCATED] is True


def test_a_robots_txt_that_never_answers_leaves_its_hosts_urls_unasked():
    middleware, _, _ = _robots(error.TimeoutError())
    [said] = _asked(middleware, "/page").values()
    assert said.startswith("RobotsUnanswered: robots.txt of site.test did not answer within")


def test_a_host_that_cannot_be_reached_has_its_urls_asked():
    middleware, _, _ = _robots(error.ConnectionRefusedError())
    assert _asked(middleware, "/page") == {"/page": "allowed"}  # each reports the failure


def test_a_robots_txt_that_asks_to_wait_holds_its_hosts_requests():
    middleware, engine, _ = _robots(RobotsTxtWait("asked to wait 5 s", 1, until=sys.float_info.max))
    [said] = _asked(middleware, "/page").values()
    assert said == "HostHeld: robots.txt of site.test asked to wait (Retry-After)"
    assert _asked(middleware, "/other") == {"/other": said}  # asked once, not again
    assert len(engine.downloaded) == 1


def test_a_rendering_browser_is_allowed_only_what_an_answer_allows():
    middleware, _, _ = _robots(_text("User-agent: *\nDisallow: /private/\n"))
    allowed = asyncio.run(middleware.allows(f"{SITE}/data.json"))
    refused = asyncio.run(middleware.allows(f"{SITE}/private/data.json"))
    assert (allowed, refused) == (True, False)
    middleware, _, _ = _robots(error.ConnectionRefusedError())
    assert asyncio.run(middleware.allows(f"{SITE}/data.json")) is False


def test_unanswered_robots_is_its_own_exception():
    assert issubclass(RobotsUnanswered, Exception) and issubclass(HostHeld, Exception)
    assert RobotsBlocked is not RobotsUnanswered


# -- internalerrors: a fault of ours is never a verdict ---------------------------------
class _Crawler:
    """What ``start_audit`` and the audit read of a crawler: its settings, its stats."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.stats = MemoryStatsCollector(self)


def test_an_exception_while_judging_a_check_makes_it_unchecked(caplog):
    made = _Crawler(Settings(crawler().settings.copy_to_dict()))
    start_audit(made, {"start": f"{SITE}/"})  # an audit's crawler: settings it may set
    middleware = InternalErrorMiddleware.from_crawler(made)
    request = check(f"{SITE}/page", "GET", **{DEPTH: 1})
    answer = Response(request.url, request=request)
    try:
        raise KeyError("la_missing")
    except KeyError as exc:
        [result] = middleware.process_spider_exception(answer, exc)
    assert (result.url, result.outcome, result.depth) == (f"{SITE}/page", "unchecked", 1)
    assert result.error.startswith("Internal error: KeyError")
    assert "Traceback" in caplog.text and "a bug in linkaudit" in caplog.text
    robots = Request(f"{SITE}/robots.txt")
    assert (
        middleware.process_spider_exception(Response(robots.url, request=robots), KeyError())
        is None
    )


def test_no_internal_error_middleware_outside_an_audit():
    with pytest.raises(NotConfigured):
        InternalErrorMiddleware.from_crawler(crawler())
