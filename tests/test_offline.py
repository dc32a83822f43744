"""An offline machine is not a broken web (issue 42): when no far host
answered and enough far domains failed at name lookup or connection, the
far links are ``unchecked`` ("no network"), the first line of every format
says the machine seems offline and names ``--skip-far``; where a far host
answered, every verdict stands.

End to end: the command with far names that cannot resolve (a test resolver,
``tests/offlineresolver.py``: no query leaves the machine), three audits on
one database (a mix where a far host answers, offline, online again);
``scrapy crawl`` with refused ports on 127.0.0.x and a feed; a build
directory.  The rule itself, case by case, on reports built from a state."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from linkaudit.items import UrlResult
from linkaudit.output.formats import FORMATS
from linkaudit.output.formats.places import Options
from linkaudit.output.report.build import build_report
from linkaudit.output.report.facts import ReportFacts
from linkaudit.rules.offline import distinct_domains, domain_of, never_resolves
from linkaudit.state.memory import MemoryState
from tests.conftest import ROOT, run_crawl, run_process, validate
from tests.server import TestServer

LINKAUDIT = str(Path(sys.executable).with_name("linkaudit"))
RESOLVER = "TWISTED_DNS_RESOLVER=tests.offlineresolver.MappedResolver"
OFFLINE = "linkaudit: this machine seems offline"


def _audit(tmp_path: Path, hosts: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    """``linkaudit ARGS`` with the test resolver, ``hosts`` its only names."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), TEST_RESOLVER_HOSTS=json.dumps(hosts))
    return run_process([LINKAUDIT, *args, "-s", RESOLVER], cwd=tmp_path, env=env)


def _refused_hosts(stack: contextlib.ExitStack, count: int) -> list[str]:
    """``127.0.0.N:PORT`` on ``count`` loopback addresses (each its own far
    host, as an IP address is its own domain), each port bound and never
    listening: refused."""
    hosts = []
    for n in range(2, 2 + count):
        s = stack.enter_context(socket.socket())
        s.bind((f"127.0.0.{n}", 0))
        hosts.append(f"127.0.0.{n}:{s.getsockname()[1]}")
    return hosts


# -- end to end -------------------------------------------------------------------------


def test_names_that_cannot_resolve_mix_offline_and_back_on_one_database(tmp_path):
    """Three nightly audits on one --db: (1) a far host answers, the names
    that do not resolve are broken (verdicts stand, no offline line); (2)
    no far name resolves: unchecked, "no network", exit 3 not 1, the first
    line says offline and names --skip-far, nothing called fixed; (3) the
    network is back: the same links broken, not new, their run going on
    from the first audit (the offline one never recorded them)."""
    with TestServer() as far, TestServer() as site:
        far.add("/ok", "fine")
        gone = [
            "http://gone-a.example/",
            f"http://gone-b.example:{far.port}/x",
            "https://www.gone-c.example/y",
            "http://docs.gone-c.example/z",  # (the same domain as www.gone-c.example)
        ]
        up = f"http://up.far.example:{far.port}/ok"
        links = "\n".join(f'<a href="{url}">x</a>' for url in [up, *gone])
        site.add("/", f"<html><body>{links}</body></html>")
        start = f"{site.url}/"
        common = (start, "--db", "audit.db", "--report", "r.json", "--timeout", "5", "--delay", "0")
        table = {"up.far.example": "127.0.0.1"}

        first = _audit(tmp_path, table, *common)
        one = json.loads((tmp_path / "r.json").read_text())
        second = _audit(tmp_path, {}, *common, "--format", "markdown")
        two = json.loads((tmp_path / "r.json").read_text())
        (tmp_path / "offline.json").write_text(json.dumps(two))
        third = _audit(tmp_path, table, *common)
        three = json.loads((tmp_path / "r.json").read_text())
    for report in (one, two, three):
        validate(report)
    by_url = {u["url"]: u for u in one["urls"]}
    # (1) the mix: one far host answered, so each failure is the link's
    assert first.returncode == 1, first.stderr[-2000:]
    assert by_url[up]["outcome"] == "ok"
    for url in gone:
        assert by_url[url]["outcome"] == "broken", by_url[url]
        assert by_url[url]["error"].startswith("DNS lookup failed for ")
    assert "offline" not in one and "offline" not in one["summary"]
    assert OFFLINE not in first.stdout + first.stderr
    # (2) offline: no far host answered, 4 domains failed (far.example, gone-a,
    # gone-b, gone-c): unchecked, not broken
    assert second.returncode == 3, second.stdout + second.stderr[-2000:]
    lines = second.stdout.splitlines()
    assert lines[0].startswith(f"**{OFFLINE}"), lines[:3]
    assert "`--skip-far`" in lines[0]
    by_url = {u["url"]: u for u in two["urls"]}
    for url in [up, *gone]:
        assert by_url[url]["outcome"] == "unchecked", by_url[url]
        assert by_url[url]["error"].startswith("Not checked: no network (DNS lookup failed for ")
    assert two["summary"]["broken"] == 0 and two["summary"]["offline"] is True
    assert two["offline"] == {"failed_domains": 4, "failed_hosts": 5, "answered": 0, "urls": 5}
    assert two["fixed"] == [], two["fixed"]  # unknown, not fixed
    assert two["history"][-1]["fixed"] == 0
    assert not two["complete"]
    # (3) back online: the four are broken, as before the offline night
    assert third.returncode == 1
    by_url = {u["url"]: u for u in three["urls"]}
    for url in gone:
        entry = by_url[url]
        assert entry["outcome"] == "broken" and not entry.get("new"), entry
        assert entry["broken_since"] == one["started_at"], entry
        assert entry["audits_broken"] == 2, entry  # the offline audit not counted
    assert three["fixed"] == []
    assert "offline" not in three


def test_every_format_says_it_first(tmp_path):
    """The offline report told in every format: the first line (or its
    format's first place) says the machine seems offline and names
    --skip-far; the links are unchecked, not failures."""
    report = _offline_report()
    options = Options(max_referrers=5)
    text = FORMATS["text"](report, options)
    assert text.splitlines()[0].startswith(OFFLINE) and "--skip-far" in text.splitlines()[0]
    assert "Broken links" not in text
    markdown = FORMATS["markdown"](report, options)
    first = markdown.splitlines()[0]
    assert first.startswith(f"**{OFFLINE}") and "`--skip-far`" in first
    github = FORMATS["github"](report, options).splitlines()
    assert github[0].startswith("::warning title=linkaudit%3A offline::" + OFFLINE)
    assert "--skip-far" in github[0]
    assert not any(line.startswith("::error") for line in github)
    sarif = json.loads(FORMATS["sarif"](report, options))
    run = sarif["runs"][0]
    assert list(run)[:2] == ["tool", "invocations"]
    note = run["invocations"][0]["toolExecutionNotifications"][0]
    assert note["level"] == "warning" and note["message"]["text"].startswith(OFFLINE)
    assert "--skip-far" in note["message"]["text"]
    assert run["results"] == []
    junit = FORMATS["junit"](report, options)
    from xml.etree import ElementTree as ET

    root = ET.fromstring(junit)
    audit = root.find("testsuite[@name='audit']")
    assert audit is not None
    offline = audit.find("properties/property[@name='offline']")
    assert offline is not None and offline.get("value", "").startswith(OFFLINE)
    skipped = audit.find("testcase/skipped")
    assert skipped is not None and "--skip-far" in skipped.get("message", "")
    assert root.find("testsuite[@name='broken']") is None
    assert len(root.findall("testsuite[@name='unchecked']/testcase/skipped")) == 3
    html = FORMATS["html"](report, options)
    body = html.split("<body>", 1)[1]
    assert body.lstrip().startswith('<header class="top"><p class="offline" role="alert">')
    assert f'role="alert">{OFFLINE}' in body and "--skip-far" in body.split("</p>", 1)[0]
    # a report without the section: no such line anywhere
    report.pop("offline")
    for name in ("text", "markdown", "github", "sarif", "junit", "html"):
        assert "seems offline" not in FORMATS[name](report, options), name


def test_refused_far_hosts_under_scrapy_crawl_revise_the_feed(tmp_path):
    """``scrapy crawl`` with a feed: far hosts on 127.0.0.2-4 that refuse
    every connection.  The feed's items said broken as each was checked;
    when the audit ends they are sent again, revised: unchecked, no network;
    the report agrees, and the near page keeps its verdict."""
    with contextlib.ExitStack() as stack, TestServer() as site:
        hosts = _refused_hosts(stack, 3)
        far = [f"http://{host}/page" for host in hosts]
        links = "\n".join(f'<a href="{url}">x</a>' for url in far)
        site.add("/", f"<html><body>{links}<a href='/gone'>g</a></body></html>")
        feed = tmp_path / "items.jsonl"
        crawl = run_crawl(tmp_path, "-a", f"start={site.url}/", "-O", str(feed))
    assert crawl.report is not None
    items = [json.loads(line) for line in feed.read_text().splitlines()]
    for url in far:
        entry = crawl.url(url)
        assert entry["outcome"] == "unchecked", entry
        assert entry["error"] == "Not checked: no network (Connection refused)"
        said = [i for i in items if i["url"] == url]
        assert [(i["outcome"], i["revised"]) for i in said] == [
            ("broken", False),
            ("unchecked", True),
        ]
        assert said[-1]["error"] == entry["error"]
    assert crawl.url(f"{site.url}/gone")["outcome"] == "broken"  # the site's own: stands
    assert crawl.report["offline"]["failed_domains"] == 3
    assert OFFLINE in crawl.stderr


def test_a_build_directory_audit_offline(tmp_path):
    """``linkaudit DIR``: the build's far links refused on three loopback
    addresses: unchecked, the first line offline (before the build's line),
    exit 3, not 1."""
    build = tmp_path / "public"
    build.mkdir()
    with contextlib.ExitStack() as stack:
        hosts = _refused_hosts(stack, 3)
        links = "\n".join(f'<a href="http://{host}/doc">x</a>' for host in hosts)
        (build / "index.html").write_text(f"<html><body>{links}</body></html>")
        out = run_process([LINKAUDIT, "public", "--report", "r.json"], cwd=tmp_path)
    report = json.loads((tmp_path / "r.json").read_text())
    validate(report)
    assert out.returncode == 3, out.stdout + out.stderr[-2000:]
    lines = out.stdout.splitlines()
    assert lines[0].startswith(OFFLINE) and "--skip-far" in lines[0], lines[:3]
    assert lines[1].startswith("linkaudit: public (a build")
    assert report["summary"]["unchecked"] == 3 and report["summary"]["broken"] == 0


# -- the rule, case by case ---------------------------------------------------------------

SITE = "http://site.example/"


def _far(url: str, error: str | None = None, status: int | None = None, **more) -> UrlResult:
    outcome = "broken" if error else "ok"
    return UrlResult(
        url=url, near=False, outcome=outcome, depth=1, status=status, error=error, **more
    )


def _report(results: list[UrlResult], least: int = 3, baseline=None) -> dict:
    state = MemoryState()
    state.record(UrlResult(url=SITE, near=True, outcome="ok", depth=0, status=200), 0.0)
    for result in results:
        state.add_referrers(SITE, [(result.url, 3)])
        state.record(result, 0.0)
    facts = ReportFacts(
        start_urls=[SITE],
        near_prefixes=[SITE],
        started_at="2026-01-01T00:00:00+00:00",
        finished_at="2026-01-01T00:00:01+00:00",
        finish_reason="finished",
        pages=1,
        requests=len(results) + 1,
        offline=least,
        baseline=baseline,
        baseline_source="last.json" if baseline is not None else None,
    )
    report = build_report(state, facts)
    validate(report)
    return report


def _offline_report() -> dict:
    return _report(
        [
            _far("http://a.example/", "DNS lookup failed for a.example"),
            _far("http://127.0.0.2:81/", "Connection refused"),
            _far("http://b.example/", "No route to host"),
        ]
    )


def _outcomes(report: dict) -> dict[str, str]:
    return {u["url"]: u["outcome"] for u in report["urls"] if u["url"] != SITE}


def test_three_domains_failing_and_none_answering_is_offline():
    report = _offline_report()
    assert set(_outcomes(report).values()) == {"unchecked"}
    assert report["offline"] == {"failed_domains": 3, "failed_hosts": 3, "answered": 0, "urls": 3}
    assert report["summary"]["offline"] is True


def test_a_single_dead_far_host_among_answering_ones_stays_broken():
    """The round's lesson: a rule that softens a verdict names its cases;
    a dead host where others answer is broken, whatever answered (a 404 is
    an answer too)."""
    report = _report(
        [
            _far("http://up.example/", status=200),
            _far("http://other.example/gone", "404 Not Found", status=404),
            _far("http://a.example/", "DNS lookup failed for a.example"),
            _far("http://b.example/", "DNS lookup failed for b.example"),
            _far("http://127.0.0.2:81/", "Connection refused"),
        ]
    )
    assert _outcomes(report)["http://a.example/"] == "broken"
    assert _outcomes(report)["http://127.0.0.2:81/"] == "broken"
    assert "offline" not in report and "offline" not in report["summary"]


@pytest.mark.parametrize(
    "results",
    [
        # two domains only: not enough to be sure
        [
            _far("http://a.example/", "DNS lookup failed for a.example"),
            _far("http://www.b.example/", "DNS lookup failed for www.b.example"),
            _far("http://docs.b.example/", "DNS lookup failed for docs.b.example"),
        ],
        # connect timeouts are no evidence (a firewall, a slow host)
        [
            _far("http://a.example/", "DNS lookup failed for a.example"),
            _far("http://b.example/", "Could not connect within 5 s"),
            _far("http://c.example/", "Timed out after 5 s"),
        ],
        # names failed without a query (.invalid, .onion) say nothing of the network
        [
            _far("http://a.example/", "DNS lookup failed for a.example"),
            _far("http://x.invalid/", "DNS lookup failed for x.invalid"),
            _far("http://y.onion/", "DNS lookup failed for y.onion"),
        ],
        # a blocked far link: its robots.txt answered
        [
            _far("http://a.example/", "DNS lookup failed for a.example"),
            _far("http://b.example/", "DNS lookup failed for b.example"),
            _far("http://c.example/", "DNS lookup failed for c.example"),
            UrlResult("http://d.example/", False, "blocked", 1, error="Disallowed by robots.txt"),
        ],
    ],
    ids=["two-domains", "timeouts", "no-query-names", "blocked-answered"],
)
def test_cases_the_rule_leaves_alone(results):
    report = _report(results)
    assert "offline" not in report
    for result in results:
        assert _outcomes(report)[result.url] == result.outcome


def test_an_outcome_from_the_database_is_no_answer_and_zero_turns_the_rule_off():
    failing = [
        _far("http://a.example/", "DNS lookup failed for a.example"),
        _far("http://b.example/", "DNS lookup failed for b.example"),
        _far("http://c.example/", "Connection refused"),
    ]
    cached = _far("http://d.example/", status=200, from_cache=True)
    assert _report([*failing, cached])["summary"]["offline"] is True
    assert "offline" not in _report(failing, least=0)
    assert "offline" in _report(failing, least=3)


def test_a_baseline_s_broken_links_are_not_fixed_by_an_offline_audit():
    report = _report(
        [
            _far("http://a.example/", "DNS lookup failed for a.example"),
            _far("http://b.example/", "DNS lookup failed for b.example"),
            _far("http://c.example/", "Connection refused"),
        ],
        baseline=frozenset({"http://a.example/", "http://gone.example/"}),
    )
    assert report["summary"]["offline"] is True
    assert report["fixed"] == ["http://gone.example/"]  # no longer linked: fixed


def test_domains_and_names_without_a_query():
    assert domain_of("docs.example.co.uk") == "example.co.uk"
    assert domain_of("a.github.io") != domain_of("b.github.io")  # private suffixes
    assert domain_of("127.0.0.2") == "127.0.0.2"
    assert domain_of("up1.far.test") == "far.test"
    assert distinct_domains(["www.example.com", "docs.example.com", "127.0.0.3"]) == 2
    assert never_resolves("x.invalid") and never_resolves("a" * 64 + ".example")
    assert not never_resolves("example.com")


def test_a_shared_audit_on_redis_settles_it_and_linkaudit_report_agrees(tmp_path):
    """Two workers on one audit in Redis, its far hosts refusing on three
    loopback addresses: the report the settling worker writes, and the one
    ``linkaudit report`` builds from Redis afterwards, both say offline; no
    worker exits 1 for it."""
    from tests.conftest import Spawned
    from tests.redisserver import RedisServer

    with (
        contextlib.ExitStack() as stack,
        TestServer() as site,
        RedisServer(tmp_path / "redis") as redis,
    ):
        hosts = _refused_hosts(stack, 3)
        links = "\n".join(f'<a href="http://{host}/{i}">x</a>' for host in hosts for i in range(3))
        site.add("/", f"<html><body>{links}</body></html>")
        quick = ["-s", "LINKAUDIT_REDIS_LEASE=2", "-s", "LINKAUDIT_REDIS_POLL=0.05"]
        shared = ["--redis", redis.url, "--audit", "offline", "--delay", "0", *quick]
        workers = [
            Spawned([LINKAUDIT, f"{site.url}/", "--report", str(tmp_path / f"w{i}.json"), *shared])
            for i in range(2)
        ]
        codes = [w.wait(timeout=60) for w in workers]
        again = run_process(
            [LINKAUDIT, "report", "--redis", redis.url, "--audit", "offline", "--report", "a.json"],
            cwd=tmp_path,
        )
    assert codes == [3, 3], [w.stderr[-1500:] for w in workers]
    written = [json.loads(p.read_text()) for p in sorted(tmp_path.glob("w*.json"))]
    assert written, "no worker wrote the report"
    rebuilt = json.loads((tmp_path / "a.json").read_text())
    for report in (*written, rebuilt):
        validate(report)
        assert report["offline"]["failed_domains"] == 3 and report["offline"]["urls"] == 9
        assert report["summary"]["unchecked"] == 9 and report["summary"]["broken"] == 0
    assert again.returncode == 3, again.stdout + again.stderr
    assert again.stdout.splitlines()[0].startswith(OFFLINE)
