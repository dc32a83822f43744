"""The ``linkaudit`` console command: options, exit codes, output formats."""

from __future__ import annotations

import json
import re
import sys
from xml.etree import ElementTree as ET

import pytest

from linkaudit import __version__
from tests.conftest import run_process
from tests.helpers.command import run, stdout_on_terminal
from tests.server import Route


@pytest.fixture
def site(server):
    server.add("/", '<a href="/ok">a</a>\n<a href="/gone">b</a>')
    server.add("/ok", "ok")
    return server


def test_broken_link_exit_1_and_the_text_summary(tmp_path, site):
    out = run(tmp_path, f"{site.url}/", "--delay", "0", "--jsonl", "links.jsonl")
    assert out.returncode == 1, out.stderr
    assert f"  {site.url}/gone  [404 Not Found]\n    {site.url}/ line 2" in out.stdout
    report = json.loads((tmp_path / "linkaudit-report.json").read_text())
    assert report["summary"]["broken"] == 1
    lines = [json.loads(x) for x in (tmp_path / "links.jsonl").read_text().splitlines()]
    assert sorted(i["url"] for i in lines) == [f"{site.url}/", f"{site.url}/gone", f"{site.url}/ok"]
    assert "Traceback" not in out.stderr


def test_clean_site_exit_0_and_incomplete_exit_3(tmp_path, server):
    server.add("/", "\n".join(f'<a href="/p{i}">p</a>' for i in range(20)))
    server.add("/p*", Route(body="page", content_type="text/plain"))
    clean = run(tmp_path, f"{server.url}/", "--delay", "0", "--quiet")
    assert clean.returncode == 0, clean.stderr
    assert clean.stderr == ""
    limited = run(tmp_path, f"{server.url}/", "--delay", "0", "--max-requests", "4")
    assert limited.returncode == 3, limited.stdout
    assert "incomplete" in limited.stdout


def test_formats_for_ci(tmp_path, site):
    junit = run(tmp_path, f"{site.url}/", "--delay", "0", "--format", "junit", "-q")
    suites = ET.fromstring(junit.stdout)
    # the audit itself, then only what failed (the two ok URLs: with --junit-all)
    assert (suites.get("tests"), suites.get("failures")) == ("2", "1")
    assert [s.get("name") for s in suites] == ["audit", "broken"]
    (failed,) = [c for c in suites.iter("testcase") if c.find("failure") is not None]
    assert failed.get("name") == f"{site.url}/gone"
    every = run(tmp_path, f"{site.url}/", "--delay", "0", "--format", "junit", "--junit-all")
    suites = ET.fromstring(every.stdout)
    assert (suites.get("tests"), suites.get("failures")) == ("4", "1")
    assert [s.get("name") for s in suites] == ["audit", "broken", "ok"]

    sarif = json.loads(run(tmp_path, f"{site.url}/", "--delay", "0", "--format", "sarif").stdout)
    assert sarif["version"] == "2.1.0"
    (result,) = sarif["runs"][0]["results"]
    location = result["locations"][0]["physicalLocation"]
    assert location == {"artifactLocation": {"uri": f"{site.url}/"}, "region": {"startLine": 2}}

    markdown = run(tmp_path, f"{site.url}/", "--delay", "0", "--format", "markdown").stdout
    assert markdown.startswith("### linkaudit: 1 broken link")
    assert f"| `{site.url}/gone` | `404 Not Found` | `{site.url}/` line 2 |" in markdown

    as_json = json.loads(run(tmp_path, f"{site.url}/", "--delay", "0", "--format", "json").stdout)
    assert as_json == json.loads((tmp_path / "linkaudit-report.json").read_text()) | {
        "started_at": as_json["started_at"],
        "finished_at": as_json["finished_at"],
    }


@pytest.mark.parametrize(
    "args, message",
    [
        ([], "the following arguments are required: URL"),
        (["ftp://example.com/"], "start: 'ftp://example.com/' is not an http(s) URL"),
        (["{url}/", "--delay", "-1"], "--delay: '-1' is negative"),
        (["{url}/", "--max-time", "soon"], "--max-time: 'soon' is not a number"),
        (["{url}/", "--depth", "two"], "depth: 'two' is not a whole number"),
        (["{url}/", "--contact", "nobody"], "contact: 'nobody' is not an e-mail address"),
        (["{url}/", "-s", "DOWNLOAD_TIMEOUT=x"], "DOWNLOAD_TIMEOUT: 'x' is not a number"),
        (
            ["{url}/", "--report", "/nonexistent/r.json"],
            "report: directory /nonexistent does not exist",
        ),
        (["{url}/", "--format", "pdf"], "argument --format: invalid choice: 'pdf'"),
        (["{url}/", "--pagedir", "/nonexistent"], "pagedir: /nonexistent does not exist"),
        # a component that does not load, or a dict that is not JSON
        (
            ["{url}/", "-s", 'ITEM_PIPELINES={"nope.Pipeline": 1}'],
            "ITEM_PIPELINES: cannot load 'nope.Pipeline' (No module named 'nope')",
        ),
        (["{url}/", "-s", "EXTENSIONS=notjson"], "EXTENSIONS: 'notjson' is not a JSON object"),
        (
            ["{url}/", "-s", 'DOWNLOAD_HANDLERS={"http": "nope.Handler"}'],
            "DOWNLOAD_HANDLERS: cannot load 'nope.Handler'",
        ),
        (["{url}/", "-s", "LINKAUDIT_STATE=nope.State"], "LINKAUDIT_STATE: cannot load"),
    ],
)
def test_usage_errors_exit_2_in_one_line(tmp_path, server, args, message):
    out = run(tmp_path, *[a.replace("{url}", server.url) for a in args])
    assert out.returncode == 2
    assert out.stderr.splitlines()[0].startswith(f"linkaudit: error: {message}"), out.stderr
    assert len(out.stderr.splitlines()) == 1
    assert server.log == []


def test_help_and_version(tmp_path):
    help_text = run(tmp_path, "--help").stdout
    for option in (
        "--report",
        "--near",
        "--depth",
        "--delay",
        "--max-requests",
        "--max-time",
        "--contact",
        "--jsonl",
        "--format",
        "--quiet",
        "--verbose",
        "--version",
        "-s",
    ):
        assert option in help_text, option
    assert "(default: linkaudit-report.json)" in " ".join(help_text.split())
    assert "Exit codes: 0" in " ".join(help_text.split())
    assert run(tmp_path, "--version").stdout.strip() == f"linkaudit {__version__}"


PROGRESS = re.compile(
    r"\r\x1b\[Klinkaudit: (\d+) checked, (\d+) queued, (\d+) broken, [\d.]+ requests/s, \d+:\d\d elapsed"
)


def test_progress_line_on_a_terminal_only(tmp_path, server):
    links = [f'<a href="/p{i}">p</a>' for i in range(12)]
    server.add("/", '<a href="/x">x</a>\n' + "\n".join(links))
    server.add("/p*", Route(body="page", content_type="text/plain", delay=0.15))
    slow = ["--delay", "0", "-s", "CONCURRENT_REQUESTS_PER_DOMAIN=1", "-s", "DOWNLOAD_DELAY=0.01"]
    code, out, err = stdout_on_terminal(tmp_path, f"{server.url}/", *slow)
    assert code == 1, err
    updates = [tuple(map(int, m.groups())) for m in PROGRESS.finditer(out)]
    assert len(updates) >= 4, out  # redrawn a few times a second over ~2 s
    checked = [u[0] for u in updates]
    assert checked == sorted(checked) and checked[-1] >= 10
    assert any(queued > 0 for _, queued, _ in updates)
    # /x is broken once its GET confirms its HEAD's 404 (queued after the
    # pages asked before it): counted by the last line, or by none
    assert all(broken <= 1 for _, _, broken in updates)
    # the line is erased before the summary, which starts on a clean line
    summary = out[out.rindex("\r\x1b[K") + len("\r\x1b[K") :]
    assert summary.startswith("linkaudit: 1 broken link; 14 URLs")

    quiet = stdout_on_terminal(tmp_path, f"{server.url}/", *slow, "--quiet")[1]
    assert "checked," not in quiet and quiet.startswith("linkaudit: 1 broken link; 14 URLs")
    piped = run(tmp_path, f"{server.url}/", *slow)
    assert "checked," not in piped.stdout and "\x1b" not in piped.stdout


def test_demo_audits_the_bundled_site_offline(tmp_path):
    out = run(tmp_path, "--demo", "--report", "demo.json")
    assert out.returncode == 1, out.stderr  # the demo site has broken links, on purpose
    report = json.loads((tmp_path / "demo.json").read_text())
    (start,) = report["start_urls"]
    root = start[: -len("site/")]
    outcomes = {u["url"][len(root) :]: u for u in report["urls"]}
    assert report["complete"] is True
    assert outcomes["site/history.html"]["outcome"] == "broken"
    assert outcomes["site/history.html"]["referrers"] == [
        {"url": f"{root}site/about.html", "line": 7}
    ]
    assert outcomes["elsewhere/teapot-manual.pdf"]["outcome"] == "broken"
    assert outcomes["site/old-contact.html"]["outcome"] == "redirect"
    assert outcomes["site/old-contact.html"]["location"] == f"{root}site/contact.html"
    assert outcomes["site/private/stock.html"]["outcome"] == "blocked"
    partner = outcomes["elsewhere/partner.html"]
    assert (partner["near"], partner["outcome"], partner["method"]) == (False, "ok", "HEAD")
    assert "elsewhere/never-checked.html" not in outcomes  # a far page is not scanned
    assert outcomes["site/logo.svg"]["method"] == "HEAD"  # not a page: never downloaded
    assert f"{root}site/history.html  [404 Not Found]" in out.stdout
    assert "Traceback" not in out.stderr


def test_python_dash_m_is_the_command(tmp_path):
    out = run_process([sys.executable, "-m", "linkaudit", "--version"], timeout=60)
    assert out.stdout == f"linkaudit {__version__}\n"


def test_demo_takes_no_url(tmp_path):
    out = run(tmp_path, "--demo", "http://example.com/")
    assert out.returncode == 2
    assert out.stderr == "linkaudit: error: --demo audits the bundled site: give no URL with it\n"
