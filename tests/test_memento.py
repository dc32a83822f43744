"""--archive: each broken link's archived copy, the one readers saw
(linkaudit/memento/, linkaudit/rules/memento.py).

The rules and the walk alone first (fast), then audits against a Memento
service on 127.0.0.1 in the Wayback shapes (tests/helpers/memento.py): a
TimeMap in link format, archived 404s, soft 404s, a redirect to the error
page, a redirect between captures, a 429 with Retry-After, a service that
never answers, and a public service that is never sent a private URL."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from linkaudit.memento.walk import Ask, Found, Walk
from linkaudit.rules.memento import (
    copies,
    may_look_up,
    parse_links,
    private_host,
    raw_copy,
    robust_link,
    same_original,
    shown_copy,
)
from tests.conftest import validate
from tests.helpers.command import refused, run
from tests.helpers.memento import GOOD, SOFT, Archive, http_date
from tests.server import Route, TestServer

IA = "https://web.archive.org/web/"
URL = "http://example.com/guide"
TIMEMAP = f"""<http://example.com:80/guide>; rel="original",
<{IA}timemap/link/{URL}>; rel="self"; type="application/link-format"; from="Tue, 01 Jan 2019 00:00:00 GMT",
<https://web.archive.org>; rel="timegate",
<{IA}20190101000000/http://example.com:80/guide>; rel="first memento"; datetime="Tue, 01 Jan 2019 00:00:00 GMT",
<{IA}20200101000000/http://example.com/guide>; rel="memento"; datetime="Wed, 01 Jan 2020 00:00:00 GMT",
<{IA}20210601000000/http://example.com/guide>; rel="memento"; datetime="Tue, 01 Jun 2021 00:00:00 GMT",
<{IA}20230101000000/http://www.example.com/guide/>; rel="last memento"; datetime="Sun, 01 Jan 2023 00:00:00 GMT"
"""


def at(day: str) -> datetime:
    return datetime.fromisoformat(day).replace(tzinfo=UTC)


# -- the rules ----------------------------------------------------------------
def test_a_timemap_in_link_format_lists_its_copies_newest_first():
    links = parse_links(TIMEMAP)
    assert [link.rels for link in links][:3] == [("original",), ("self",), ("timegate",)]
    found = copies(links)
    assert [c.when.year for c in found] == [2023, 2021, 2020, 2019]
    assert found[-1].url == f"{IA}20190101000000/http://example.com:80/guide"
    # garbage between the links is skipped, a comma inside quotes is no separator
    odd = parse_links('junk, <a>; rel="memento"; datetime="Wed, 01 Jan 2020 00:00:00 GMT", x <b>')
    assert [link.uri for link in odd] == ["a", "b"] and copies(odd)[0].when.year == 2020


def test_the_same_original_as_an_archive_keys_it():
    assert same_original("http://example.com:80/guide", "https://www.example.com/guide/")
    assert not same_original("http://example.com/guide", "http://example.com/404.html")
    assert raw_copy(f"{IA}20200101000000/{URL}") == f"{IA}20200101000000id_/{URL}"
    assert shown_copy(f"{IA}20200101000000id_/{URL}") == f"{IA}20200101000000/{URL}"


def test_private_urls_are_never_sent_to_a_public_service():
    for host in ("127.0.0.1", "10.1.2.3", "192.168.0.1", "[::1]", "localhost", "wiki.local"):
        assert private_host(host), host
        assert not may_look_up(f"http://{host}/a", IA)
    assert not private_host("example.com") and may_look_up(URL, IA)
    assert may_look_up("http://10.1.2.3/a", "http://127.0.0.1:8080/web/")  # the user's own


def test_the_robust_links_markup_is_escaped():
    markup = robust_link('http://a.test/?q="x"&y', "https://arch.test/web/1/a", "2020-01-01T00:00Z")
    assert markup == (
        '<a href="http://a.test/?q=&quot;x&quot;&amp;y" '
        'data-originalurl="http://a.test/?q=&quot;x&quot;&amp;y" '
        'data-versionurl="https://arch.test/web/1/a" data-versiondate="2020-01-01">'
        "http://a.test/?q=&quot;x&quot;&amp;y</a>"
    )


def _copy(stamp: str, status: int = 200, body: str = "", **headers: str) -> tuple:
    return status, {"memento-datetime": http_date(stamp), **headers}, body.encode()


def test_the_walk_skips_archived_errors_and_follows_captures_of_the_same_page():
    walk = Walk(URL, IA, at("2023-06-01"), tries=5)
    ask = walk.first()
    assert ask == Ask(f"{IA}timemap/link/{URL}", "timemap", {})
    step = walk.answer(ask, 200, {}, TIMEMAP.encode())
    assert step.url == f"{IA}20230101000000id_/http://www.example.com/guide/"  # the newest first
    step = walk.answer(step, *_copy("20230101000000", 404, "<title>404</title>"))
    assert step.url == f"{IA}20210601000000id_/{URL}"
    step = walk.answer(step, *_copy("20210601000000", body=SOFT))  # a soft 404
    assert step.url == f"{IA}20200101000000id_/{URL}"
    moved = f"/web/20191231000000id_/{URL}"  # another capture of the same page: followed
    step = walk.answer(step, *_copy("20200101000000", 302, location=moved))
    assert step.url == f"https://web.archive.org{moved}"
    found = walk.answer(step, *_copy("20191231000000", body=GOOD.format(url="")))
    assert found == Found(f"{IA}20191231000000/{URL}", "2019-12-31T00:00:00Z", None, True, 3)


def test_the_walk_is_bounded_and_never_takes_a_copy_made_after_the_break():
    walk = Walk(URL, IA, at("2022-01-01"), tries=2)
    step = walk.answer(walk.first(), 200, {}, TIMEMAP.encode())
    assert "20210601" in step.url  # 2023 is after the break
    away = "/web/20210601000000id_/http://example.com/404.html"
    step = walk.answer(step, *_copy("20210601000000", 302, location=away))
    found = walk.answer(
        step, *_copy("20200101000000", 200, GOOD, link='<http://x.test/>; rel="original"')
    )
    assert found.url is None and found.final and found.tried == 2
    assert "a redirect to http://example.com/404.html" in found.note
    assert "a copy of http://x.test/" in found.note
    early = Walk(URL, IA, at("2018-01-01"))
    assert (
        early.answer(early.first(), 200, {}, TIMEMAP.encode()).note
        == "no copy made before 2018-01-01"
    )
    gone = Walk(URL, IA, None)
    assert gone.answer(gone.first(), 404, {}, b"").note == "not in the archive"
    busy = Walk(URL, IA, None)
    assert busy.answer(busy.first(), 429, {}, b"").trouble  # the service struggles: not final


def test_another_memento_service_is_asked_through_its_timegate():
    service = "http://memgator.test:1208/timegate/"
    walk = Walk(URL, service, at("2022-01-01"))
    ask = walk.first()
    assert ask.url == service + URL and ask.headers == {
        "Accept-Datetime": http_date("20220101000000")
    }
    link = f'<{URL}>; rel="original", <http://memgator.test:1208/timemap/link/{URL}>; rel="timemap"'
    step = walk.answer(ask, 302, {"location": f"{IA}20230101000000/{URL}", "link": link}, b"")
    assert step == Ask(f"http://memgator.test:1208/timemap/link/{URL}", "timemap", {})


def test_the_service_must_be_an_http_url(tmp_path):
    out = run(tmp_path, "http://127.0.0.1:9/", "--archive", "--archive-service", "ftp://a.test/")
    refused(out, "archive_service")


# -- audits against a Memento service on 127.0.0.1 ---------------------------------
def _audit(tmp_path: Path, site: TestServer, archive: str, *more: str) -> tuple:
    report = tmp_path / "report.json"
    out = run(
        tmp_path,
        f"{site.url}/",
        "--archive",
        "--archive-service",
        archive,
        "--report",
        str(report),
        "--delay",
        "0",
        "-s",
        "LINKAUDIT_ARCHIVE_DELAY=0.3",
        "-s",
        "DOWNLOAD_TIMEOUT=2",
        *more,
    )
    data = json.loads(report.read_text())
    validate(data)
    return out, data


def _entry(report: dict, url: str) -> dict:
    return next(u for u in report["urls"] if u["url"] == url)


def test_each_broken_link_gets_the_copy_readers_saw_once_in_every_format(tmp_path):
    with TestServer() as site, Archive(host="127.0.0.2") as archive:
        site.add("/", '<a href="/gone">gone</a> <a href="/old-links">more</a>')
        modified = {"Last-Modified": "Mon, 01 Jun 2020 00:00:00 GMT"}
        site.add("/old-links", Route(body='<a href="/old">old</a>', headers=modified))
        gone, old = f"{site.url}/gone", f"{site.url}/old"
        archive.captures[gone] = [
            ("20190101000000", "good"),
            ("20200101000000", "moved:20190101000000"),  # a capture moved to another
            ("20210601000000", "soft"),  # 200, "Page not found"
            ("20220101000000", "away"),  # a redirect to the site's /404.html
            ("20230101000000", "404"),  # the newest: the archive's copy of the error page
        ]
        # made after the page that links to it last changed: not what its readers saw
        archive.captures[old] = [("20180101000000", "good"), ("20210101000000", "good")]
        archive.throttled[old] = 1  # its TimeMap answers 429 once, Retry-After: 1
        db = str(tmp_path / "links.db")
        out, report = _audit(tmp_path, site, archive.service, "--db", db)
        assert out.returncode == 1, out.stderr[-2000:]
        copy = _entry(report, gone)["archived"]
        assert copy["url"] == archive.copy_url("20190101000000", gone)
        assert copy["date"] == "2019-01-01T00:00:00Z"
        assert copy["markup"] == (
            f'<a href="{gone}" data-originalurl="{gone}" data-versionurl="{copy["url"]}" '
            f'data-versiondate="2019-01-01">{gone}</a>'
        )
        assert _entry(report, old)["archived"]["url"] == archive.copy_url("20180101000000", old)
        assert report["summary"]["archived"] == 2
        # the archive is a host like any other: robots.txt first, its delay, Retry-After
        paths = [hit.path for hit in archive.log]
        assert paths[0] == "/robots.txt"
        assert paths.count(f"/web/timemap/link/{old}") == 2  # the 429, then its list
        times = [hit.arrived for hit in archive.log[1:]]
        assert all(b - a >= 0.28 for a, b in zip(times, times[1:], strict=False)), times
        throttled = [h.arrived for h in archive.log if h.path == f"/web/timemap/link/{old}"]
        assert throttled[1] - throttled[0] >= 0.95
        assert not any("/404.html" in p for p in paths)  # a redirect elsewhere: not followed
        asked = len(archive.log)
        # every format shows it beside the finding
        assert f"archived copy (2019-01-01): {copy['url']}" in out.stdout
        assert f"Robust Link: {copy['markup']}" in out.stdout
        shown = {}
        for fmt in ("markdown", "html", "junit", "sarif", "github"):
            shown[fmt] = run(
                tmp_path, "show", str(tmp_path / "report.json"), "--format", fmt
            ).stdout
            assert copy["url"] in shown[fmt], fmt
        assert 'data-versiondate="2019-01-01"' in shown["markdown"]
        assert "data-versionurl=&quot;" in shown["html"] and "&lt;a href=" in shown["junit"]
        sarif = json.loads(shown["sarif"])["runs"][0]["results"]
        assert {r["properties"].get("robustLink") for r in sarif} >= {copy["markup"]}
        # the next night: the copies are in the audit database, not asked again
        out, again = _audit(tmp_path, site, archive.service, "--db", db)
        assert _entry(again, gone)["archived"] == copy and again["summary"]["archived"] == 2
        assert len(archive.log) == asked, [h.path for h in archive.log[asked:]]


def test_a_service_that_never_answers_costs_one_wait_and_changes_no_verdict(tmp_path):
    with TestServer() as site, Archive(host="127.0.0.2") as archive:
        site.add("/", '<a href="/a">a</a> <a href="/b">b</a>')
        archive.timemap_route = Route(body="", delay=6)
        started = datetime.now(UTC)
        out, report = _audit(tmp_path, site, archive.service)
        assert (datetime.now(UTC) - started).total_seconds() < 20
        assert out.returncode == 1 and report["summary"]["broken"] == 2
        assert report["summary"]["archived"] == 0
        for path in ("/a", "/b"):
            entry = _entry(report, site.url + path)
            assert entry["archived"] is None and entry["outcome"] == "broken"
            assert entry["archive_note"].startswith("not looked up: the archive did not answer")
        assert len(archive.hits("/timemap/")) <= 2  # one, and no other link waited for
        assert out.stderr.count("Archive look-ups stopped") == 1


def test_a_public_service_is_never_sent_a_private_url(tmp_path):
    with TestServer() as site:
        site.add("/", '<a href="/gone">gone</a>')
        out, report = _audit(tmp_path, site, "http://archive.invalid/web/")
        entry = _entry(report, f"{site.url}/gone")
        assert entry["archived"] is None
        assert entry["archive_note"] == "not looked up: a private address"
        assert "archive.invalid" not in out.stderr  # no request, not even its robots.txt
        assert "no archived copy: not looked up: a private address" in out.stdout


def test_without_archive_nothing_is_asked_and_the_report_is_unchanged(tmp_path):
    with TestServer() as site:
        site.add("/", '<a href="/gone">gone</a>')
        report = tmp_path / "r.json"
        out = run(tmp_path, f"{site.url}/", "--report", str(report), "--delay", "0")
        data = json.loads(report.read_text())
        assert "archived" not in data["summary"] and "archive" not in out.stdout
        assert "archived" not in _entry(data, f"{site.url}/gone")
