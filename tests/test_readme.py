"""The README does not lie: its audit and export examples, marked with an
HTML comment, are run as written against a local site (example.com swapped
for it), and what they promise is checked."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import sys

import pytest

from tests.conftest import ROOT, run_process, validate
from tests.helpers.reports import valid_item
from tests.server import Route

MARK = "<!-- tests/test_readme.py runs this block against a local site -->"
README = (ROOT / "README.md").read_text()


def _blocks() -> list[list[str]]:
    blocks = []
    for part in README.split(MARK)[1:]:
        m = re.match(r"\s*```sh\n(.*?)```", part, re.DOTALL)
        assert m, "a marked block must be a sh code block right after the mark"
        blocks.append([line for line in m.group(1).splitlines() if line.strip()])
    return blocks


BLOCKS = _blocks()


def test_the_readme_marks_the_audit_and_export_examples():
    commands = [c for block in BLOCKS for c in block]
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
    "block", BLOCKS, ids=[b[0].split()[0] + str(i) for i, b in enumerate(BLOCKS)]
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
