"""The README and the documentation do not lie: the README is the page a
newcomer starts from (its two commands, the first audit's real output, links
into docs/ that exist); the audit and export examples marked with an HTML
comment, in the README and the docs pages, are run as written against a
local site (example.com swapped for it), and what they promise is checked.
The site itself is built and audited by tests/test_docs.py."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT, run_process, validate
from tests.helpers.reports import valid_item
from tests.server import Route

MARK = "<!-- tests/test_readme.py runs this block against a local site -->"
README = (ROOT / "README.md").read_text()
DOCS = sorted((ROOT / "docs").rglob("*.md"))
INSTALL = (
    "python3 -m venv .venv && .venv/bin/pip install -q -r requirements.txt -e . "
    "&& .venv/bin/linkaudit --demo"
)
TESTS = "bash tests/setup.sh && .venv/bin/python -m pytest"


def _blocks() -> list[tuple[str, list[str]]]:
    """(where, commands) of every marked block of the README and the docs."""
    blocks = []
    for path in [ROOT / "README.md", *DOCS]:
        for part in path.read_text().split(MARK)[1:]:
            m = re.match(r"\s*```sh\n(.*?)```", part, re.DOTALL)
            assert m, f"{path}: a marked block must be a sh code block right after the mark"
            lines = [line for line in m.group(1).splitlines() if line.strip()]
            blocks.append((path.relative_to(ROOT).as_posix(), lines))
    return blocks


BLOCKS = _blocks()


def test_the_readme_is_a_page_to_start_from():
    assert len(README.splitlines()) < 200
    shell = re.findall(r"```sh\n(.*?)```", README, re.DOTALL)
    assert INSTALL in shell[0] and TESTS in shell[1]  # the two commands, first
    assert TESTS in (ROOT / ".ci" / "run").read_text()  # what CI runs
    # the system packages tests/setup.sh installs are named
    setup = (ROOT / "tests" / "setup.sh").read_text()
    packages = re.findall(r"need\+=\(([\w.+-]+)\)", setup)
    assert {"redis-server", "chromium", "chromium-driver"} <= set(packages)
    assert [p for p in packages if f"`{p}`" not in README] == []


def _links(path: Path) -> list[str]:
    text = re.sub(r"```.*?```", "", path.read_text(), flags=re.DOTALL)
    return [t for t in re.findall(r"\]\(([^)\s]+)\)", text) if "://" not in t]


def test_the_readme_links_into_docs_that_exist():
    links = _links(ROOT / "README.md")
    assert any(t.startswith("docs/contributing/layout.md") for t in links)
    assert "bench/README.md" in links
    for target in links:
        assert (ROOT / target.split("#")[0]).exists(), target


def test_the_readme_shows_the_first_audit_as_it_prints(tmp_path):
    """The demo's output in the README is a real run's, but for the port and
    the report's path."""
    shown = README.split("$ .venv/bin/linkaudit --demo\n", 1)[1].split("```", 1)[0]
    port = re.search(r"127\.0\.0\.1:(\d+)", shown).group(1)
    ran = run_process([sys.executable, "-m", "linkaudit", "--demo"], cwd=tmp_path)
    assert ran.returncode == 1, ran.stderr
    printed = (ran.stderr + ran.stdout).replace(str(tmp_path), "/tmp/linkaudit")
    printed = re.sub(r"127\.0\.0\.1:\d+", f"127.0.0.1:{port}", printed)
    assert sorted(printed.splitlines()) == sorted(shown.splitlines())


def test_no_issue_numbers_in_user_documentation():
    """The docs say what is, not the history of the work."""
    for path in [ROOT / "README.md", ROOT / "bench" / "README.md", *DOCS]:
        found = re.findall(r"\bissues? \d+", path.read_text(), flags=re.IGNORECASE)
        assert not found, (path, found)


def test_the_docs_mark_the_audit_and_export_examples():
    commands = [c for _, block in BLOCKS for c in block]
    assert any(c.startswith("linkaudit ") for c in commands)
    assert any(c.startswith("scrapy crawl linkaudit") for c in commands)
    assert any(" -O " in c for c in commands) and any("--jsonl" in c for c in commands)


def _outputs(command: str) -> tuple[list[str], list[str]]:
    """(reports, feeds) a command writes, read from its options."""
    words = shlex.split(command)
    reports, feeds = [], []
    for flag, value in zip(words, words[1:], strict=False):
        if flag == "--report":
            reports.append(value)
        elif flag == "-a" and value.startswith("report="):
            reports.append(value[len("report=") :])
        elif flag in ("-O", "-o", "--jsonl"):
            feeds.append(value)
    return reports, feeds


@pytest.mark.parametrize(
    "block",
    [block for _, block in BLOCKS],
    ids=[f"{where}:{b[0].split()[0]}{i}" for i, (where, b) in enumerate(BLOCKS)],
)
def test_readme_example_runs_as_written(tmp_path, server, block):
    server.add("/", '<a href="/about.html">about</a>\n<a href="/missing.html">oops</a>\n')
    server.add("/about.html", "<p>About</p>")
    server.add("/robots.txt", Route(body="User-agent: *\nAllow: /\n", content_type="text/plain"))
    # a directory like a user's checkout: scrapy crawl finds the project there
    shutil.copy(ROOT / "scrapy.cfg", tmp_path / "scrapy.cfg")
    env = dict(
        os.environ, PATH=f"{os.path.dirname(sys.executable)}{os.pathsep}{os.environ['PATH']}"
    )
    for command in block:
        # the site under test, and no politeness delay for a test site
        run = command.replace("https://example.com/", f"{server.url}/")
        run += " -s DOWNLOAD_DELAY=0"
        result = run_process(run, shell=True, cwd=tmp_path, env=env)
        # the command's exit code tells about /missing.html; scrapy crawl's
        # only tells that the crawl ran
        expected = 1 if command.startswith("linkaudit ") else 0
        assert result.returncode == expected, (command, result.stderr[-2000:])
        assert "Traceback" not in result.stderr
        if command.startswith("linkaudit "):
            assert f"  {server.url}/missing.html  [404 Not Found]" in result.stdout
            assert f"    {server.url}/ line 2" in result.stdout
        reports, feeds = _outputs(command)
        assert reports, command
        for name in reports:
            report = json.loads((tmp_path / name).read_text())
            validate(report)
            assert report["complete"] is True and report["summary"]["broken"] == 1
        for name in feeds:
            items = [json.loads(line) for line in (tmp_path / name).read_text().splitlines()]
            for item in items:
                valid_item(item)
            assert {i["url"] for i in items} == {u["url"] for u in report["urls"]}
