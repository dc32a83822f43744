"""One odd link never costs its page (issue 23).

A link that cannot be resolved is a ``broken`` entry ``Invalid URL: ...``
with its referrer and line; an exception of ours while handling one link is
an internal error of that link alone (``unchecked``, exit 4, an ERROR with
the traceback), and every other link of the page is still checked.  Real
crawls against a real server: the first page is one that cost the whole
audit before the fix (``HTTP://0:¹``); the second injects a bug for one
link value through a component chosen by a setting (tests/faulty.py),
where the spider judges and queues a new link; the reading of a value (the
rules) is the unit test at the end."""

from __future__ import annotations

import html
import json

from linkaudit.components.discovery import Discovery
from linkaudit.rules.guards import TrapGuards
from linkaudit.rules.judge import LinkRules
from linkaudit.rules.statuses import internal_error
from tests.conftest import check_no_fault, run_crawl
from tests.corpus import UNICODE_DIGIT_PORTS
from tests.helpers.served import urlset
from tests.server import Route

FINE = ["/a", "/b", "/c"]


def _page(hrefs: list[str]) -> str:
    """One link a line (line n+1 holds hrefs[n])."""
    lines = ["<!doctype html><title>links</title>"]
    lines += [f'<a href="{html.escape(h)}">link {n}</a>' for n, h in enumerate(hrefs)]
    return "\n".join(lines)


def _referrers(entry: dict) -> set[tuple[str, int | None]]:
    return {(r["url"], r.get("line")) for r in entry["referrers"]}


def test_unicode_digits_in_a_port_cost_nothing(tmp_path, server):
    """Before the fix, explaining ``HTTP://0:¹`` raised ValueError: the start
    page was an internal error, none of its links checked, the audit lost."""
    odd = [h for h in UNICODE_DIGIT_PORTS if not h.startswith("//")]
    hrefs = [FINE[0], *odd, FINE[1], "//host:⁹⁹/", FINE[2]]
    server.add("/", _page(hrefs))
    for path in FINE:
        server.add(path, "<p>fine</p>")
    crawl = run_crawl(tmp_path, "-a", f"start={server.url}/")  # fails on a fault of ours
    assert crawl.returncode == 0, crawl.stderr[-3000:]
    start = server.url + "/"
    for path in FINE:
        assert crawl.url(server.url + path)["outcome"] == "ok"
        assert len(server.hits(path)) >= 1
    for n, href in enumerate(hrefs):
        if href in FINE:
            continue
        entry = crawl.url(href)  # reported as written
        assert entry["outcome"] == "broken", entry
        assert entry["error"].startswith("Invalid URL: bad port"), entry
        assert _referrers(entry) == {(start, n + 2)}, entry
    assert crawl.report["summary"]["broken"] == len(hrefs) - len(FINE)
    assert crawl.report["complete"]


def _buggy_crawl(tmp_path, server):
    """An audit of ``server`` whose state fails on ``/bug-link`` (tests.faulty)."""
    return run_crawl(
        tmp_path,
        "-a",
        f"start={server.url}/",
        settings={"LINKAUDIT_STATE": "tests.faulty.BuggyState"},
        allow_faults=True,
    )


def test_a_bug_on_one_link_is_an_internal_error_of_that_link(tmp_path, server):
    """tests.faulty.BuggyState fails while queueing ``/bug-link``: that link
    is ``unchecked`` with an internal error, the page and its other links
    are checked, the log has the traceback once, the run exits 4."""
    hrefs = [FINE[0], "/bug-link", FINE[1], "/missing", FINE[2], "/bug-link#again"]
    server.add("/", _page(hrefs))
    server.add("/other", _page(["/bug-link", FINE[0]]))
    for path in [*FINE, "/bug-link"]:
        server.add(path, '<p>fine</p><a href="/other">other</a>')
    crawl = _buggy_crawl(tmp_path, server)
    assert crawl.returncode == 4, crawl.stderr[-3000:]  # scrapy crawl exits 4 on one
    start = server.url + "/"
    assert crawl.url(start)["outcome"] == "ok"
    assert crawl.url(server.url + "/other")["outcome"] == "ok"
    for path in FINE:
        assert crawl.url(server.url + path)["outcome"] == "ok"
    assert crawl.url(server.url + "/missing")["error"] == "404 Not Found"
    entry = crawl.url(server.url + "/bug-link")
    words = internal_error(RuntimeError("injected bug while queueing a link"))
    assert entry["outcome"] == "unchecked" and entry["error"] == words, entry
    assert _referrers(entry) == {(start, 3), (start, 7), (server.url + "/other", 2)}
    assert not server.hits("/bug-link")  # never requested: not a verdict on it
    summary = crawl.report["summary"]
    assert summary["internal_errors"] == 1 and summary["unchecked"] == 1
    assert not crawl.report["complete"]
    said = [line for line in crawl.stderr.splitlines() if "ERROR: Internal error while" in line]
    assert len(said) == 1, said  # once per URL, not once per page that links to it
    assert f"judging the link '{server.url}/bug-link' found on {start}" in said[0]
    assert "RuntimeError: injected bug while queueing a link" in crawl.stderr
    assert "Traceback (most recent call last)" in crawl.stderr
    # only this fault: the report's other entries are verdicts
    others = dict(crawl.report, urls=[u for u in crawl.report["urls"] if u is not entry])
    check_no_fault(report=json.loads(json.dumps(others)))


class _BuggyRules(LinkRules):
    """The audit's rules with a bug for one value (a unit test of the
    spider's reading of links: the crawl above injects its bug elsewhere)."""

    def resolve(self, value: str, base: str):
        if value == " /bug-value":
            raise TypeError("injected bug while reading a link")
        return super().resolve(value, base)


class _Scanner(Discovery):
    def __init__(self) -> None:
        self.rules = _BuggyRules((BASE,), TrapGuards(), 65536)
        self.link_faults: set[str] = set()
        self.counts: dict[str, int] = {}

    def count(self, name: str, count: int = 1) -> None:
        self.counts[name] = self.counts.get(name, 0) + count


BASE = "http://example.com/"


def test_an_exception_reading_one_value_is_that_links_internal_error(caplog):
    scanner = _Scanner()
    for line in (7, 9):  # the traceback once per URL
        verdict = scanner.resolve_link(" /bug-value", BASE, BASE + "page", line)
        words = internal_error(TypeError("injected bug while reading a link"))
        assert verdict == ("/bug-value", "unchecked", words)  # keyed as written
    assert scanner.resolve_link("/fine", BASE, BASE, 8) == (BASE + "fine", None, None)
    errors = [r for r in caplog.records if r.levelname == "ERROR"]
    assert len(errors) == 1 and errors[0].exc_info is not None
    assert errors[0].getMessage().startswith(
        f"Internal error while reading the link ' /bug-value' on {BASE}page line 7"
    )
    assert scanner.counts["linkaudit/internal_errors"] == 1


def test_a_bug_on_one_sitemap_url_costs_only_that_url(tmp_path, server):
    """A sitemap's <loc> is a link like any: the same handling."""
    server.add("/robots.txt", f"User-agent: *\nAllow: /\nSitemap: {server.url}/sitemap.xml\n")
    locs = [f"{server.url}{path}" for path in (FINE[0], "/bug-link", FINE[1])]
    server.add("/sitemap.xml", Route(200, urlset(*locs), "application/xml"))
    server.add("/", "<p>no links</p>")
    for path in FINE[:2]:
        server.add(path, "<p>fine</p>")
    crawl = _buggy_crawl(tmp_path, server)
    assert crawl.returncode == 4, crawl.stderr[-3000:]
    assert crawl.url(f"{server.url}/sitemap.xml")["outcome"] == "ok"
    for path in FINE[:2]:
        assert crawl.url(server.url + path)["outcome"] == "ok"
    entry = crawl.url(f"{server.url}/bug-link")
    assert entry["outcome"] == "unchecked" and entry["error"].startswith("Internal error: ")
    assert _referrers(entry) == {(f"{server.url}/sitemap.xml", 7)}
    assert crawl.report["summary"]["internal_errors"] == 1
