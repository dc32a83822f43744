"""What changed since last time: --baseline, the database's previous audit,
--fail-on new, and the text summary."""

from __future__ import annotations

import json
import sqlite3

import pytest

from linkaudit.config.baseline import load_baseline
from linkaudit.items import UrlResult
from linkaudit.output.report.build import build_report
from linkaudit.state.memory import MemoryState
from tests.conftest import validate
from tests.helpers.command import run
from tests.helpers.reports import site_facts


def test_the_report_marks_new_and_lists_fixed():
    state = MemoryState()
    for url, outcome in [("http://s/a", "broken"), ("http://s/b", "broken"), ("http://s/c", "ok")]:
        state.discover(url, 0)
        state.record(UrlResult(url=url, near=True, outcome=outcome, depth=0), 0.0)
    report = build_report(
        state,
        site_facts(
            baseline=frozenset({"http://s/b", "http://s/c", "http://s/gone"}),
            baseline_source="last.json",
        ),
    )
    assert report["fixed"] == ["http://s/c", "http://s/gone"]
    assert [u.get("new") for u in report["urls"]] == [True, None, None]


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (None, "does not exist"),
        ("{not json", "is not JSON"),
        ('{"urls": 3}', "is not a linkaudit report"),
        ('[{"url": "x"}]', "is not a linkaudit report"),
    ],
)
def test_a_bad_baseline_is_one_clear_error(tmp_path, content, words):
    path = tmp_path / "old.json"
    if content is not None:
        path.write_text(content)
    with pytest.raises(ValueError, match=words):
        load_baseline(str(path))


def report(tmp_path, name):
    data = json.loads((tmp_path / name).read_text())
    validate(data)
    return data


def test_baseline_report_new_fixed_and_fail_on_new(tmp_path, server):
    server.add("/", '<a href="/a-missing">a</a>\n<a href="/b">b</a>\n<a href="/old-missing">o</a>')
    server.add("/b", "b")
    first = run(tmp_path, f"{server.url}/", "--delay", "0", "--report", "first.json")
    assert first.returncode == 1

    # /a-missing is repaired, /b breaks, /old-missing stays broken
    server.add("/a-missing", "here now")
    server.routes.pop("/b")
    base = ("--delay", "0", "--baseline", "first.json")
    second = run(tmp_path, f"{server.url}/", *base, "--report", "second.json", "--fail-on", "new")
    assert second.returncode == 1, second.stdout
    data = report(tmp_path, "second.json")
    assert data["fixed"] == [f"{server.url}/a-missing"]
    assert data["baseline"] == str(tmp_path / "first.json")
    by_url = {u["url"]: u for u in data["urls"]}
    assert by_url[f"{server.url}/b"]["new"] is True
    assert "new" not in by_url[f"{server.url}/old-missing"]
    # the first line says it all
    assert second.stdout.startswith(
        "linkaudit: 2 broken links (1 new, 1 still broken, 1 fixed since the baseline); "
    )
    assert second.stdout.index("New broken links (1):") < second.stdout.index("Still broken (1):")
    assert f"Fixed (1):\n  {server.url}/a-missing" in second.stdout

    # nothing new since the second report: --fail-on new passes, the default does not
    again = ("--delay", "0", "--baseline", "second.json", "--report", "third.json")
    assert run(tmp_path, f"{server.url}/", *again, "--fail-on", "new").returncode == 0
    assert run(tmp_path, f"{server.url}/", *again).returncode == 1
    assert run(tmp_path, f"{server.url}/", *again, "--fail-on", "none").returncode == 0


def test_the_database_previous_audit_is_the_baseline(tmp_path, server):
    server.add("/", '<a href="/x">x</a>')
    server.add("/x", "x")
    db = ("--db", "audit.sqlite", "--delay", "0")
    first = run(tmp_path, f"{server.url}/", *db, "--report", "first.json")
    assert first.returncode == 0
    assert "fixed" not in report(tmp_path, "first.json")  # nothing to compare with yet
    server.routes.pop("/x")
    second = run(tmp_path, f"{server.url}/", *db, "--report", "second.json", "--fail-on", "new")
    assert second.returncode == 1
    data = report(tmp_path, "second.json")
    assert data["baseline"].startswith(str(tmp_path / "audit.sqlite"))
    assert [u["url"] for u in data["urls"] if u.get("new")] == [f"{server.url}/x"]
    third = run(tmp_path, f"{server.url}/", *db, "--report", "third.json", "--fail-on", "new")
    assert third.returncode == 0, third.stdout
    assert "0 new, 1 still broken, 0 fixed" in third.stdout


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("--baseline", "nope.json"), "linkaudit: error: baseline: nope.json does not exist"),
        (("--db", "no/such/dir/a.sqlite"), "linkaudit: error: db: directory "),
        (("--db", "garbage.sqlite"), "linkaudit: error: db: "),
        (("--fail-on", "sometimes"), "linkaudit: error: argument --fail-on: invalid choice"),
    ],
)
def test_bad_db_and_baseline_options(tmp_path, server, args, words):
    (tmp_path / "garbage.sqlite").write_bytes(b"this is not a database, " * 100)
    out = run(tmp_path, f"{server.url}/", *args)
    assert out.returncode == 2
    assert out.stderr.startswith(words), out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
    assert server.log == []


def test_scrapy_crawl_takes_db_and_baseline(tmp_path, server):
    from tests.conftest import run_crawl

    server.add("/", '<a href="/gone">g</a>')
    first = run_crawl(tmp_path, "-a", f"start={server.url}/", "-a", f"db={tmp_path / 'a.db'}")
    assert first.report["summary"]["broken"] == 1
    second = run_crawl(
        tmp_path,
        "-a",
        f"start={server.url}/",
        "-a",
        f"baseline={tmp_path / 'report.json'}",
        report_name="second.json",
    )
    assert second.report["fixed"] == []
    assert "new" not in second.url(f"{server.url}/gone")
    conn = sqlite3.connect(tmp_path / "a.db")
    assert conn.execute("SELECT count(*) FROM runs").fetchone() == (1,)
    conn.close()
