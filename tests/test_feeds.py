"""Feed exports: every checked URL is one item, in JSON lines, JSON and CSV,
as docs/item.schema.json describes it."""

from __future__ import annotations

import csv
import json

from linkaudit.items import CONTRACT_FIELDS, OPTIONAL_FIELDS
from tests.conftest import SCHEMA, run_crawl
from tests.helpers.reports import ITEM_SCHEMA, valid_item
from tests.server import Route

FIELDS = [*CONTRACT_FIELDS, *OPTIONAL_FIELDS]


def test_item_schema_agrees_with_the_report_schema():
    """A feed item is a report entry plus the optional fields, always present."""
    entry = SCHEMA["$defs"]["url"]
    assert ITEM_SCHEMA["required"] == [*entry["required"], *OPTIONAL_FIELDS]
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
