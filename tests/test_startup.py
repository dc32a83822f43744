"""Start-up: what the command imports is what it uses.  An audit in memory
that prints text imports no Redis client, no SQLite state, no other report
format, none of Scrapy's components that are off (the remote control's
aiohttp server, the cookies middleware's tldextract and requests); and
``linkaudit --version`` imports no Scrapy at all.  Each is a fraction of a
second at every start, which a small site's whole audit pays."""

from __future__ import annotations

import json
import sys

from tests.conftest import run_process
from tests.server import Route

# runs the command in a fresh process, then prints the modules it imported
PROBE = """
import json
import sys
from linkaudit.cli import main
try:
    code = main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
print("MODULES", " ".join(sorted(sys.modules)))
sys.exit(code)
"""

# imported only by what an audit in memory printing text does not use
UNUSED = (
    "redis",
    "hiredis",
    "scrapy_redis",
    "linkaudit.state.redis",
    "linkaudit.state.sqlite",
    "aiohttp",
    "tldextract",
    "requests",
    "twisted.conch",
    "scrapy.downloadermiddlewares.cookies",
    "linkaudit.output.formats.html.page",
    "linkaudit.output.formats.sarif",
    "linkaudit.output.formats.junit",
    "linkaudit.output.formats.markdown",
    # the parsers of --sources: only when a finding's source file is read
    "docutils",
    "markdown_it",
    "mdit_py_plugins",
)


def _modules(*args: str) -> tuple[int, set[str], str]:
    proc = run_process([sys.executable, "-c", PROBE, *args])
    line = next(x for x in proc.stdout.splitlines() if x.startswith("MODULES"))
    return proc.returncode, set(line.split()[1:]), proc.stderr


def _imported(modules: set[str], names: tuple[str, ...]) -> list[str]:
    return sorted(m for m in modules if any(m == n or m.startswith(n + ".") for n in names))


def test_an_audit_imports_only_what_it_uses(server, tmp_path):
    server.add("/", Route(body='<title>home</title><a href="/a">a</a>'))
    server.add("/a", Route(body="<title>a</title>"))
    report = tmp_path / "report.json"
    code, modules, stderr = _modules(f"{server.url}/", "--report", str(report), "-q")
    assert code == 0, stderr[-2000:]
    assert report.exists()
    assert "scrapy" in modules and "linkaudit.output.formats.text" in modules  # it did run
    assert _imported(modules, UNUSED) == []


def test_version_imports_no_scrapy():
    code, modules, _ = _modules("--version")
    assert code == 0
    assert _imported(modules, ("scrapy", "twisted", *UNUSED)) == []


def test_a_build_walked_imports_no_scrapy(tmp_path):
    """``linkaudit DIR`` with nothing but the build to check: the walk of
    its files (linkaudit/walk/) writes the report without Scrapy, Twisted
    or the HTTP client; a link elsewhere brings the crawl in."""
    build = tmp_path / "public"
    build.mkdir()
    (build / "index.html").write_text('<a href="a.html">a</a> <a href="gone.html">b</a>')
    (build / "a.html").write_text("<title>a</title>")
    report = tmp_path / "report.json"
    code, modules, stderr = _modules(str(build), "--report", str(report), "-q")
    assert code == 1, stderr[-2000:]  # gone.html
    assert json.loads(report.read_text())["summary"]["broken"] == 1
    assert _imported(modules, ("scrapy", "twisted", "OpenSSL", *UNUSED)) == []
    (build / "a.html").write_text('<a href="http://127.0.0.1:9/far">far</a>')
    code, modules, stderr = _modules(str(build), "--report", str(report), "-q")
    assert code == 1 and "scrapy" in modules, stderr[-2000:]
