"""Feed exports: every checked URL is one item, in JSON lines, JSON and CSV,
as docs/item.schema.json describes it; a verdict the report makes when the
audit ends is one more item, revised, so the last item of a URL is the
report's verdict."""

from __future__ import annotations

import csv
import dataclasses
import json

from linkaudit.items import CONTRACT_FIELDS, OPTIONAL_FIELDS, UrlResult
from linkaudit.output.report.build import build_report
from linkaudit.output.report.revisions import revisions
from linkaudit.rules.recheck import RecheckPolicy, iso
from linkaudit.state.memory import MemoryState
from tests.conftest import SCHEMA, run_crawl
from tests.helpers.command import run
from tests.helpers.reports import ITEM_SCHEMA, site_facts, valid_item
from tests.server import Route

FIELDS = [*CONTRACT_FIELDS, *OPTIONAL_FIELDS, "revised"]


def test_item_schema_agrees_with_the_report_schema():
    """A feed item is a report entry plus the optional fields, always
    present, and whether it revises an earlier item."""
    entry = SCHEMA["$defs"]["url"]
    assert ITEM_SCHEMA["required"] == [*entry["required"], *OPTIONAL_FIELDS, "revised"]
    assert list(ITEM_SCHEMA["properties"]) == FIELDS
    for name in CONTRACT_FIELDS:
        strip = {k: v for k, v in ITEM_SCHEMA["properties"][name].items() if k != "description"}
        assert strip == {k: v for k, v in entry["properties"][name].items() if k != "description"}
    assert ITEM_SCHEMA["allOf"] == entry["allOf"]


def test_jsonl_json_and_csv_feeds_in_one_crawl(tmp_path, server):
    server.add(
        "/",
        '<a href="/x">x</a>\n<a href="/missing">m</a> <a href="mailto:a@b.c">m</a>\n'
        '<a href="/old">old</a> <img src="/é.png">',
    )
    server.add("/x", Route(body="x", headers={"Last-Modified": "Wed, 21 Oct 2015 07:28:00 GMT"}))
    server.add("/old", Route(301, headers={"Location": "/x"}))
    server.add("/%C3%A9.png", Route(body=b"png", content_type="image/png"))
    jsonl, array, table = tmp_path / "links.jsonl", tmp_path / "links.json", tmp_path / "links.csv"
    crawl = run_crawl(
        tmp_path,
        "-a",
        f"start={server.url}/",
        *("-O", str(jsonl), "-O", str(array), "-O", str(table)),
    )
    assert crawl.returncode == 0, crawl.stderr[-2000:]
    report_urls = [u["url"] for u in crawl.report["urls"]]

    lines = [json.loads(line) for line in jsonl.read_text(encoding="utf-8").splitlines()]
    for item in lines:
        valid_item(item)
        assert list(item) == FIELDS
    assert sorted(i["url"] for i in lines) == report_urls  # each checked URL once
    by_url = {i["url"]: i for i in lines}
    missing = by_url[f"{server.url}/missing"]
    assert missing["outcome"] == "broken" and missing["error"] == "404 Not Found"
    assert missing["referrers"] == [{"url": f"{server.url}/", "line": 2}]
    assert by_url[f"{server.url}/old"]["location"] == f"{server.url}/x"
    home = by_url[f"{server.url}/"]
    assert home["page"]["links"] == 5 and home["page"]["images"] == 1
    assert by_url[f"{server.url}/%C3%A9.png"]["page"] is None

    assert json.loads(array.read_text(encoding="utf-8")) == lines  # same items, same order

    with table.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert list(rows[0]) == FIELDS
    assert [r["url"] for r in rows] == [i["url"] for i in lines]
    row = next(r for r in rows if r["url"] == f"{server.url}/missing")
    # list and object cells are JSON, booleans as in JSON, None empty
    assert json.loads(row["referrers"]) == missing["referrers"]
    assert row["near"] == "true" and row["truncated"] == "false" and row["location"] == ""
    home_row = next(r for r in rows if r["url"] == f"{server.url}/")
    assert json.loads(home_row["page"]) == home["page"]


ERROR_PAGE = (
    "<!DOCTYPE html><title>Acme</title><h1>Oops</h1><p>We looked everywhere and could not"
    " find what you asked for. Try the search box, or start again from the home page.</p>"
)
VERDICT = ("outcome", "status", "error", "warning", "soft_404", "new")


def _late_site(server) -> None:
    """A redirect loop, a soft 404 only a probe finds, one whose title says
    so, and a redirect to a missing page; every unknown path answers 200."""
    links = ("/loop-a", "/old", "/blog/post-1.html", "/blog/post-9.html", "/says")
    server.add(
        "/",
        "<!DOCTYPE html><title>Home</title>\n" + "\n".join(f'<a href="{p}">{p}</a>' for p in links),
    )
    server.add("/loop-a", Route(301, headers={"Location": "/loop-b"}))
    server.add("/loop-b", Route(302, headers={"Location": "/loop-a"}))
    server.add("/old", Route(301, headers={"Location": "/gone"}))
    server.add("/gone", Route(404, "gone"))
    words = " ".join(f"word{i} lorem ipsum dolor" for i in range(60))
    server.add("/blog/post-1.html", f"<!DOCTYPE html><title>Post</title><p>{words}</p>")
    server.add("/says", "<!DOCTYPE html><title>Page not found</title><p>Sorry.</p>")
    server.missing = Route(200, ERROR_PAGE)  # /blog/post-9.html and the probes


def _last_items(items: list[dict]) -> dict[str, dict]:
    """Each URL's last item: its verdict."""
    return {item["url"]: item for item in items}


def _verdict(entry: dict) -> dict:
    """What an item or an entry says of its URL (an unset optional field: None)."""
    return {k: entry.get(k) or None for k in VERDICT}


def _cell(value: object) -> str:
    """A value as the CSV feed writes it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)


def test_the_last_item_of_a_url_is_the_report_s_verdict(tmp_path, server):
    """What the report decides when the audit ends (a redirect loop, a soft
    404 found by a probe) reaches every feed as one more item, revised: for
    each URL the last item says what the report says, in -O JSON lines, CSV
    and JSON and in --jsonl; a soft 404 its title tells is said at once."""
    _late_site(server)
    n = server.url
    jsonl, table, array = tmp_path / "x.jsonl", tmp_path / "x.csv", tmp_path / "x.json"
    crawl = run_crawl(
        tmp_path,
        *("-a", f"start={n}/", "-a", "soft_404=error", "-a", "soft_404_probes=true"),
        *("-O", str(jsonl), "-O", str(table), "-O", str(array)),
    )
    assert crawl.returncode == 0, crawl.stderr[-2000:]  # (scrapy crawl: 0 unless a fault)
    report = {u["url"]: u for u in crawl.report["urls"]}
    late = {f"{n}/loop-a", f"{n}/loop-b", f"{n}/blog/post-9.html"}
    assert {u for u, e in report.items() if e["outcome"] == "broken"} == late | {
        f"{n}/gone",
        f"{n}/says",
    }
    items = [json.loads(line) for line in jsonl.read_text(encoding="utf-8").splitlines()]
    assert json.loads(array.read_text(encoding="utf-8")) == items
    for item in items:
        valid_item(item)
        assert list(item) == FIELDS
    # and a 404 the start page reaches through /old: its place through it
    revised = late | {f"{n}/gone"}
    assert {i["url"] for i in items if i["revised"]} == revised  # once each
    assert len([i for i in items if i["revised"]]) == len(revised)
    last = _last_items(items)
    assert set(last) == set(report)
    for url, entry in report.items():
        assert _verdict(last[url]) == _verdict(entry), url
    loop = last[f"{n}/loop-a"]
    assert (
        loop["error"] == "Redirect loop" and loop["referrers"] == report[loop["url"]]["referrers"]
    )
    gone = last[f"{n}/gone"]
    assert gone["referrers"] == report[f"{n}/gone"]["referrers"]
    assert [r["via"] for r in gone["referrers"] if r.get("via")] == [f"{n}/old"]
    # a title that says not found: broken from the first item, never revised
    (says,) = [i for i in items if i["url"] == f"{n}/says"]
    assert says["outcome"] == "broken" and says["soft_404"] and not says["revised"]
    with table.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert [r["url"] for r in rows] == [i["url"] for i in items]
    by_url = {r["url"]: r for r in rows}  # the last row of each URL: the last item's
    for url, item in last.items():
        assert [by_url[url][k] for k in VERDICT] == [_cell(item[k]) for k in VERDICT], url
    assert {r["url"] for r in rows if r["revised"] == "true"} == revised

    # --jsonl, soft 404s as warnings: the probe's soft 404 stays ok, revised
    out = run(tmp_path, f"{n}/", "--delay", "0", "--soft-404-probes", "--jsonl", "cli.jsonl")
    assert out.returncode == 1, out.stderr
    report = {
        u["url"]: u for u in json.loads((tmp_path / "linkaudit-report.json").read_text())["urls"]
    }
    items = [json.loads(line) for line in (tmp_path / "cli.jsonl").read_text().splitlines()]
    last = _last_items(items)
    assert set(last) == set(report)
    for url, entry in report.items():
        assert _verdict(last[url]) == _verdict(entry), url
    post = last[f"{n}/blog/post-9.html"]
    assert post["revised"] and post["outcome"] == "ok" and post["soft_404"]
    assert post["warning"].startswith("soft 404: the page is the answer to a URL")
    assert {i["url"] for i in items if i["revised"]} == revised


def test_revisions_are_the_verdicts_the_report_decides_at_the_end():
    """From the recorded results alone (what the report pipeline sends as
    the crawl closes): a loop's URLs, and a failure whose grace period ran
    out while the audit ran, as the report shows them; nothing else."""
    start = 1_800_000_000.0
    state = MemoryState()
    for path, depth in (("/", 0), ("/a", 1), ("/b", 2), ("/flaky", 1), ("/gone", 1)):
        state.discover(f"http://s{path}", depth)
    state.add_referrers(
        "http://s/", [("http://s/a", 2), ("http://s/flaky", 3), ("http://s/gone", 4)]
    )
    state.add_referrers("http://s/a", [("http://s/b", None)])
    state.add_referrers("http://s/b", [("http://s/a", None)])
    results = [
        UrlResult("http://s/", True, "ok", 0, status=200, method="GET"),
        UrlResult("http://s/a", True, "redirect", 1, status=301, location="http://s/b"),
        UrlResult("http://s/b", True, "redirect", 2, status=302, location="http://s/a"),
        UrlResult("http://s/flaky", True, "broken", 1, status=503, error="503", method="GET"),
        UrlResult("http://s/gone", True, "broken", 1, status=404, error="404", method="GET"),
    ]
    for result in results:  # failing since it is recorded (the memory state)
        state.record(result, start - 100 if result.url.endswith("/gone") else start + 1)
    facts = site_facts(
        started_at=iso(start),
        now=start + 100,
        # /flaky: ok at the start, broken by now; /gone: broken from the start
        policy=RecheckPolicy(report_after=50),
        baseline=frozenset(),
    )
    items = {item["url"]: item for item in revisions(state, facts)}
    assert set(items) == {"http://s/a", "http://s/b", "http://s/flaky"}
    for item in items.values():
        valid_item(item)
        assert list(item) == FIELDS and item["revised"] is True
        assert item["outcome"] == "broken" and item["new"] is True  # (an empty baseline)
    assert items["http://s/a"]["error"] == items["http://s/b"]["error"] == "Redirect loop"
    assert items["http://s/flaky"]["warning"] is None
    report = {u["url"]: u for u in build_report(state, facts)["urls"]}
    for url, item in items.items():  # as the report will show them
        assert _verdict(item) == _verdict(report[url])
        assert item["referrers"] == report[url]["referrers"]
    # the grace period still running at the end: shown ok as it was, no revision
    still = revisions(state, dataclasses.replace(facts, now=start + 10))
    assert {item["url"] for item in still} == {"http://s/a", "http://s/b"}
