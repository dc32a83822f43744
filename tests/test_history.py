"""A site watched over time (issue 26): with ``--db`` every finished audit
is kept, ``linkaudit history`` prints them, and each report carries its
``history``, how long each broken URL has been broken (``broken_since``,
``audits_broken``) and since when each page carries broken links, shown in
text, markdown and SARIF.

Real audits of a real test server, the site changing between them; ages
are computed from the reports' own start times, never from sleeping."""

from __future__ import annotations

import json
import sqlite3

import pytest

from linkaudit.output.formats.text import summary_text
from linkaudit.output.words import broken_for
from linkaudit.state.database import open_database
from tests.conftest import validate
from tests.helpers.command import run

COUNTS = ("urls", "pages", "requests", "ok", "redirect", "broken", "blocked", "excluded")
COUNTS += ("unchecked",)


def audit(tmp_path, server, n: int, *more: str):
    out = run(tmp_path, f"{server.url}/", "--db", "audit.sqlite", "--delay", "0",
              "--report", f"{n}.json", *more)  # fmt: skip
    report = json.loads((tmp_path / f"{n}.json").read_text())
    validate(report)
    return out, report


def entry(report: dict, url: str) -> dict:
    (found,) = [u for u in report["urls"] if u["url"] == url]
    return found


def run_of(report: dict, url: str) -> tuple[str | None, int | None]:
    found = entry(report, url)
    return found.get("broken_since"), found.get("audits_broken")


def test_links_break_stay_broken_get_fixed_and_break_again(tmp_path, server):
    """Five audits of one database: /b broken (1-2), fixed (3), broken again
    (5); /c broken from the second on, through an incomplete audit (4, depth
    0: neither checked) that neither ends nor counts in its run."""
    site = server.url
    server.add("/", '<a href="/b">b</a>\n<a href="/c">c</a>')
    server.add("/c", "c")
    out1, r1 = audit(tmp_path, server, 1)
    assert out1.returncode == 1, out1.stderr
    assert run_of(r1, f"{site}/b") == (r1["started_at"], 1)
    assert run_of(r1, f"{site}/c") == (None, None)  # ok: no run
    home = entry(r1, f"{site}/")
    assert (home["broken_links_since"], home["audits_with_broken_links"]) == (r1["started_at"], 1)

    server.routes.pop("/c")
    out2, r2 = audit(tmp_path, server, 2)  # text on stdout
    assert run_of(r2, f"{site}/b") == (r1["started_at"], 2)
    assert run_of(r2, f"{site}/c") == (r2["started_at"], 1)
    assert f"{site}/b  [404 Not Found]  (broken for under an hour, 2 audits)" in out2.stdout
    assert f"{site}/c  [404 Not Found]\n" in out2.stdout  # new: no "broken for"
    assert "Over time (2 audits since " in out2.stdout

    server.add("/b", "b")  # fixed
    out3, r3 = audit(tmp_path, server, 3, "--format", "sarif")
    assert run_of(r3, f"{site}/b") == (None, None) and r3["fixed"] == [f"{site}/b"]
    assert run_of(r3, f"{site}/c") == (r2["started_at"], 2)
    sarif = json.loads(out3.stdout)["runs"][0]["results"]
    since = ("brokenSince", "auditsBroken")
    assert [{k: r["properties"][k] for k in since} for r in sarif if r["ruleId"] == "broken-link"] == [
        {"brokenSince": r2["started_at"], "auditsBroken": 2}
    ]

    out4, r4 = audit(tmp_path, server, 4, "--depth", "0")  # /b, /c not checked
    assert not r4["complete"] and r4["summary"]["broken"] == 0
    assert entry(r4, f"{site}/c")["outcome"] == "unchecked"

    server.routes.pop("/b")  # broken again: a new run
    out5, r5 = audit(tmp_path, server, 5, "--format", "markdown")
    assert run_of(r5, f"{site}/b") == (r5["started_at"], 1)
    assert run_of(r5, f"{site}/c") == (r2["started_at"], 3)  # 2, 3, 5: not 4
    home = entry(r5, f"{site}/")  # carrying broken links since the first audit
    assert (home["broken_links_since"], home["audits_with_broken_links"]) == (r1["started_at"], 4)
    assert "(broken for under an hour, 3 audits)" in out5.stdout
    assert "Over time (5 audits since " in out5.stdout

    # the history: one record per audit, each its own report's figures
    reports = [r1, r2, r3, r4, r5]
    for n, report in enumerate(reports, 1):
        assert len(report["history"]) == n
        if n > 1:  # the earlier records as the audit before listed them
            assert report["history"][:-1] == reports[n - 2]["history"]
        record = report["history"][-1]
        assert record["summary"] == {name: report["summary"][name] for name in COUNTS}
        for key in ("started_at", "finished_at", "finish_reason", "complete"):
            assert record[key] == report[key]
        new = sum(1 for u in report["urls"] if u.get("new"))
        assert (record["new"], record["fixed"]) == (
            new if n > 1 else report["summary"]["broken"],
            len(report.get("fixed", [])),
        )
    assert [r["summary"]["broken"] for r in r5["history"]] == [1, 2, 1, 0, 2]
    printed = run(tmp_path, "history", "--db", "audit.sqlite", "--format", "json")
    assert printed.returncode == 0, printed.stderr
    assert json.loads(printed.stdout) == r5["history"]
    table = run(tmp_path, "history", "--db", "audit.sqlite")
    assert table.returncode == 0, table.stderr
    lines = table.stdout.splitlines()
    assert lines[0] == f"Audits of {site}/ (5):"
    assert len(lines) == 7 and "broken" in lines[1] and "new" in lines[1]
    # started (date, time), took ("0 s"), URLs, pages, requests, ok, redirect, broken
    assert [line.split()[9] for line in lines[2:]] == ["1", "2", "1", "0", "2"]
    assert lines[5].endswith("finished, incomplete")


def test_a_database_from_before_gains_the_audits(tmp_path, server):
    """A database written before audits were kept (its ``audits`` and
    ``broken_runs`` tables dropped: the schema as it was) opens, gains
    them, and its baseline still counts."""
    server.add("/", '<a href="/gone">b</a>')
    out, _ = audit(tmp_path, server, 1)
    assert out.returncode == 1, out.stderr
    conn = sqlite3.connect(tmp_path / "audit.sqlite")
    conn.executescript("DROP TABLE audits; DROP TABLE broken_runs;")
    conn.close()
    empty = run(tmp_path, "history", "--db", "audit.sqlite")
    assert (empty.returncode, empty.stdout.strip()) == (0, "No finished audit in audit.sqlite yet.")
    out, report = audit(tmp_path, server, 2)
    assert out.returncode == 1, out.stderr
    assert [r["started_at"] for r in report["history"]] == [report["started_at"]]
    assert report["baseline"].startswith(str(tmp_path / "audit.sqlite"))  # the old run
    assert report["history"][0]["new"] == 0  # /gone was broken in the baseline already
    assert run_of(report, f"{server.url}/gone") == (report["started_at"], 1)  # runs start now


@pytest.mark.parametrize("kind", ["missing", "directory", "text", "foreign"])
def test_history_of_what_is_not_an_audit_database_is_one_line(tmp_path, kind):
    path = tmp_path / "db"
    if kind == "directory":
        path.mkdir()
    elif kind == "text":
        path.write_text("not a database\n")
    elif kind == "foreign":
        conn = sqlite3.connect(path)
        conn.execute("CREATE TABLE notes (body TEXT)")
        conn.commit()
        conn.close()
    before = path.read_bytes() if path.is_file() else None
    out = run(tmp_path, "history", "--db", str(path))
    assert out.returncode == 2 and out.stdout == ""
    assert "Traceback" not in out.stderr
    (line,) = out.stderr.splitlines()
    assert line.startswith(f"linkaudit history: error: {path}: ")
    assert path.exists() is (kind != "missing")  # nothing created
    if before is not None:
        assert path.read_bytes() == before  # nor written


def test_broken_for_counts_days_from_the_audit_s_start():
    """Ages come from the report's stamps: 12 days and 3 hours before this
    audit's start reads "12 days"."""
    since, now = "2026-11-12T07:00:00+00:00", "2026-11-24T10:00:00+00:00"
    assert broken_for({"broken_since": since, "audits_broken": 5}, now) == (
        "broken for 12 days, 5 audits"
    )
    assert broken_for({"broken_since": now, "audits_broken": 1}, now) == ""  # new
    assert broken_for({"broken_since": "yesterday", "audits_broken": 2}, now) == (
        "broken since yesterday, 2 audits"
    )
    report = {
        "summary": dict.fromkeys(COUNTS, 0) | {"broken": 1, "urls": 1},
        "finish_reason": "finished",
        "complete": True,
        "started_at": now,
        "urls": [
            {"url": "https://s.test/x", "outcome": "broken", "error": "404 Not Found",
             "referrers": [], "broken_since": since, "audits_broken": 5}
        ],  # fmt: skip
        "history": [{"started_at": since, "summary": {"broken": 1}}] * 5,
    }
    text = summary_text(report)
    assert "https://s.test/x  [404 Not Found]  (broken for 12 days, 5 audits)" in text
    assert "Over time (5 audits since 2026-11-12): broken 1, 1, 1, 1, 1" in text


def test_the_database_opens_with_the_tables(tmp_path):
    conn = open_database(str(tmp_path / "new.sqlite"))
    names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    conn.close()
    assert {"audits", "broken_runs"} <= names


def test_without_a_database_the_report_has_no_history(tmp_path, server):
    server.add("/", '<a href="/gone">gone</a>')
    out = run(tmp_path, f"{server.url}/", "--delay", "0", "--report", "plain.json")
    assert out.returncode == 1, out.stderr
    report = json.loads((tmp_path / "plain.json").read_text())
    validate(report)
    assert "history" not in report and "Over time" not in out.stdout
    fields = ("broken_since", "audits_broken", "broken_links_since", "audits_with_broken_links")
    assert not [f for u in report["urls"] for f in fields if f in u]


def test_the_trend_line_prints_only_numbers_whatever_a_report_holds():
    """A report read back may hold anything: the counts of the trend line
    are numbers or "?", never the text they were replaced with."""
    from linkaudit.output.words import history_line

    report = {
        "history": [
            {"started_at": "2026-11-12T00:00:00+00:00", "summary": {"broken": "<b>x</b>"}},
            {"started_at": "2026-11-13T00:00:00+00:00", "summary": {"broken": 3}},
            {"started_at": "2026-11-14T00:00:00+00:00", "summary": None},
        ]
    }
    assert history_line(report) == "Over time (3 audits since 2026-11-12): broken ?, 3, ?"


def test_a_local_build_audited_again_keeps_its_history(tmp_path):
    """A build directory has the same port from run to run (by its path),
    so its audits are one site's in the database: the second audit knows
    the first's broken link.  Its files read, no socket is made, so a
    program listening on that port changes nothing; served (over HTTP), the
    audit goes on on the next port."""
    import socket

    from linkaudit.localbuild.directory import stable_ports

    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text('<a href="gone.html">g</a> <a href="b.html">b</a>')
    (site / "b.html").write_text("ok")
    db = str(tmp_path / "audits.sqlite")
    reports = []
    for i in range(2):
        report = tmp_path / f"r{i}.json"
        out = run(tmp_path, str(site), "--db", db, "--report", str(report), "-q")
        assert out.returncode == 1, out.stderr
        reports.append(json.loads(report.read_text()))
    first, second = reports
    assert first["start_urls"] == second["start_urls"]
    gone = [u for u in second["urls"] if u["outcome"] == "broken"]
    assert [u["audits_broken"] for u in gone] == [2]
    assert gone[0]["broken_since"] == first["started_at"]
    assert len(second["history"]) == 2
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", stable_ports(str(site))[0]))
        taken.listen()
        out = run(tmp_path, str(site), "--db", db, "--report", str(tmp_path / "r2.json"), "-q")
        assert out.returncode == 1, out.stderr
        kept = json.loads((tmp_path / "r2.json").read_text())["start_urls"]
        assert kept == first["start_urls"]
        # served, with the port taken: the audit goes on, on the next one
        served = ("-s", "LINKAUDIT_LOCAL_READ=false", "--report", str(tmp_path / "r3.json"))
        out = run(tmp_path, str(site), "--db", db, *served, "-q")
        assert out.returncode == 1, out.stderr
        moved = json.loads((tmp_path / "r3.json").read_text())["start_urls"]
        # (its report names the build as the others do: by its files)
        assert moved == first["start_urls"] == [site.as_uri() + "/"]
