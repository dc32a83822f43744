"""linkaudit on the oldest Python it allows (``requires-python``): Debian 12's
python3, CPython 3.11.2, made into ``.venv-oldest`` by tests/setup.sh.

Its ``re`` misreads a possessive repeat of a group (CPython gh-100061 and
gh-106052, fixed in 3.11.5): before ``linkaudit.rules.repeats``, the page
scan found no link there and an audit of a broken site passed with exit 0.
The scan's own tests run again on it, a real audit finds every broken link,
and the start-up self-check refuses, in one line, a scan that would find
nothing."""

from __future__ import annotations

import json
import re
import subprocess
import tomllib

import pytest

from tests.conftest import ROOT, run_process
from tests.server import Route, TestServer

OLDEST = ROOT / ".venv-oldest" / "bin"
# the scan's tests: the tokenizer, the html5lib and parity differentials, CSS
SCAN_TESTS = (
    "tests/unit/test_extract.py",
    "tests/unit/test_css.py",
    "tests/test_css_links.py",
    "tests/test_scan_parity.py",
    "tests/test_differential.py",
    "tests/test_patterns.py",
)


def _floor() -> tuple[int, ...]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    found = re.fullmatch(r">=\s*([0-9.]+)", project["requires-python"])
    assert found, project["requires-python"]
    return tuple(int(part) for part in found.group(1).split("."))


@pytest.fixture(scope="module")
def oldest() -> str:
    python = OLDEST / "python"
    if not python.exists():  # not a skip: the suite's claim rests on this run
        pytest.fail("no .venv-oldest: run tests/setup.sh (it makes it from /usr/bin/python3.11)")
    return str(python)


def _version(python: str) -> tuple[int, ...]:
    out = subprocess.run(
        [python, "-c", "import sys; print(*sys.version_info[:3])"],
        capture_output=True, text=True, timeout=30, check=True,
    )
    return tuple(int(part) for part in out.stdout.split())


def test_it_is_the_oldest_python_allowed(oldest):
    assert _version(oldest) == _floor()


@pytest.mark.timeout(400)
def test_the_scan_tests_pass_on_the_oldest_python(oldest):
    out = subprocess.run(
        [oldest, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider", *SCAN_TESTS],
        capture_output=True, text=True, timeout=380, cwd=ROOT,
    )
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
    assert re.search(r"\b\d{3,} passed\b", out.stdout), out.stdout[-500:]


def _broken_site() -> TestServer:
    links = "".join(f'<li><a class="nav" href="/gone/{i}.html">{i}</a></li>\n' for i in range(14))
    page = (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Home</title>'
        '<link rel="stylesheet" href="/site.css"></head>\n'
        f'<body class="home"><div id="main"><ul>\n{links}</ul></div></body></html>'
    )
    return TestServer({"/": Route(body=page), "/site.css": Route(body="", content_type="text/css")})


def test_an_audit_on_the_oldest_python_finds_every_broken_link(oldest, tmp_path):
    with _broken_site() as site:
        out = run_process(
            [str(OLDEST / "linkaudit"), site.url + "/", "--delay", "0",
             "--report", str(tmp_path / "r.json"), "--format", "json"],
            cwd=tmp_path,
        )
    assert out.returncode == 1, out.stderr
    report = json.loads((tmp_path / "r.json").read_text())
    broken = sorted(u["url"] for u in report["urls"] if u["outcome"] == "broken")
    assert broken == sorted(f"{site.url}/gone/{i}.html" for i in range(14))


def test_a_page_built_by_javascript_is_rendered_on_the_oldest_python(oldest, tmp_path):
    script = "document.getElementById('root').innerHTML = '<a href=\"/gone.html\">gone</a>';"
    shell = '<!DOCTYPE html><title>App</title><div id="root"></div><script src="/app.js"></script>'
    routes = {"/": Route(body=shell), "/app.js": Route(body=script, content_type="text/javascript")}
    with TestServer(routes) as site:
        out = run_process(
            [str(OLDEST / "linkaudit"), site.url + "/", "--delay", "0", "--render", "auto",
             "--report", str(tmp_path / "r.json")],
            cwd=tmp_path,
        )
    assert out.returncode == 1, out.stderr
    report = json.loads((tmp_path / "r.json").read_text())
    gone = next(u for u in report["urls"] if u["url"] == f"{site.url}/gone.html")
    assert gone["outcome"] == "broken"
    assert gone["referrers"] == [{"url": f"{site.url}/", "line": None, "rendered": True}]


def test_a_scan_that_finds_nothing_is_refused_in_one_line(oldest, tmp_path):
    """The patterns as they were (possessive groups, misread there): the
    self-check sees the known page come out empty, and linkaudit stops
    before any request, in one line, exit 2."""
    as_before = (
        "import sys, linkaudit.rules.repeats as r; r.POSSESSIVE_GROUPS_WORK = True; "
        "from linkaudit.cli import main; sys.exit(main(sys.argv[1:]))"
    )
    with _broken_site() as site:
        out = run_process([oldest, "-c", as_before, site.url + "/", "--delay", "0"], cwd=tmp_path)
        assert site.log == []  # nothing was asked
    assert out.returncode == 2, out.stdout + out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, out.stderr
    assert lines[0].startswith("linkaudit: error: the page scan fails its self-check on Python 3.11")
    assert "0 of the 8 links" in lines[0]


def test_scrapy_crawl_refuses_a_scan_that_finds_nothing_too(oldest, tmp_path):
    as_before = (
        "import sys, linkaudit.rules.repeats as r; r.POSSESSIVE_GROUPS_WORK = True; "
        "from scrapy.cmdline import execute; execute(['scrapy', *sys.argv[1:]])"
    )
    with _broken_site() as site:
        out = run_process(
            [oldest, "-c", as_before, "crawl", "linkaudit", "-a", f"start={site.url}/",
             "-a", f"report={tmp_path / 'r.json'}", "-s", "LOG_LEVEL=ERROR"],
        )
        assert site.log == []
    assert out.returncode == 2, out.stdout + out.stderr
    errors = [line for line in out.stderr.splitlines() if "linkaudit: error:" in line]
    assert len(errors) == 1 and "fails its self-check" in errors[0], out.stderr
