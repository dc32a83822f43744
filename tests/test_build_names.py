"""A build directory is audited at an internal address on 127.0.0.1, and no
output ever names it: the report, every format, the HTML report and the
fix-list, the feeds, the journal's rebuilt report, the log, the status
line and the first line name the build's files (``file://`` URLs of its
paths, file paths in the formats) or, with ``--root-url``, its deployed
URLs (``rules/names.py``).  Far servers on other ports of 127.0.0.1 stay
as they are.  A baseline and an audit database compare across runs."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import pytest

from linkaudit.localbuild.directory import DirectorySite, stable_ports
from linkaudit.rules.names import BuildNames, file_url, path_in_build, shown_path
from tests.conftest import run_crawl, run_process, validate
from tests.helpers.command import run, stdout_on_terminal
from tests.server import TestServer

FORMATS = ("text", "json", "markdown", "junit", "sarif", "html")


# -- the names, pure ------------------------------------------------------------


def test_a_build_url_is_named_by_its_file_url(tmp_path):
    names = BuildNames(str(tmp_path / "public"), "http://127.0.0.1:24068/", cwd=str(tmp_path))
    root = (tmp_path / "public").as_uri()
    assert names.url == root + "/" and names.directory == "public"
    assert names.shown("http://127.0.0.1:24068/") == root + "/"
    assert (
        names.shown("http://127.0.0.1:24068/a%20b/x.html?q=1#top") == root + "/a%20b/x.html?q=1#top"
    )
    # another port of 127.0.0.1 is another server (a far one): as it is
    assert names.shown("http://127.0.0.1:2406/x") == "http://127.0.0.1:2406/x"
    assert names.shown("http://127.0.0.1:240680/x") == "http://127.0.0.1:240680/x"
    assert names.shown("https://example.com/") == "https://example.com/"
    assert names.is_build("http://127.0.0.1:24068/x") and not names.is_build("http://127.0.0.1:9/")
    # a path that starts with a digit is the build's too, in a text as alone
    assert names.text("http://127.0.0.1:24068/404.html") == root + "/404.html"
    assert names.translate(["http://127.0.0.1:24068/2024/"]) == [root + "/2024/"]
    # in any text: the URL, or its host and port alone; never a longer port
    said = names.text(
        "Redirect to http://127.0.0.1:24068/b (from http://127.0.0.1:240681/c); "
        "host 127.0.0.1:24068 and 127.0.0.1:240689"
    )
    assert said == (
        f"Redirect to {root}/b (from http://127.0.0.1:240681/c); host public and 127.0.0.1:240689"
    )
    entry = {"url": "http://127.0.0.1:24068/", "referrers": [{"url": "http://127.0.0.1:24068/a"}]}
    assert names.translate(entry) == {"url": root + "/", "referrers": [{"url": root + "/a"}]}
    kept = {"url": "https://example.com/", "n": 3}
    assert names.translate(kept) == kept
    # an older report's internal keys and this one's names compare as names
    assert names.keys(["http://127.0.0.1:24068/x", root + "/x"]) == {root + "/x"}


def test_with_root_url_a_build_url_is_its_deployed_url():
    names = BuildNames("/srv/public", "http://127.0.0.1:24068/docs/", "https://example.com/docs/")
    assert names.url == "https://example.com/docs/"
    assert names.shown("http://127.0.0.1:24068/docs/a.html") == "https://example.com/docs/a.html"
    # a root-relative link out of the build's path: the deployed site's URL too
    assert names.shown("http://127.0.0.1:24068/blog/") == "https://example.com/blog/"
    assert names.shown("http://127.0.0.1:24068") == "https://example.com"
    assert names.text("at 127.0.0.1:24068 and http://127.0.0.1:24068/x") == (
        "at example.com and https://example.com/x"
    )
    assert names.section() == {
        "directory": "/srv/public",
        "path": "/srv/public",
        "url": "https://example.com/docs/",
        "root_url": "https://example.com/docs/",
    }


def test_a_builds_files_are_named_relative_when_below_the_current_directory(tmp_path):
    assert shown_path(str(tmp_path / "site" / "public"), cwd=str(tmp_path)) == "site/public"
    assert shown_path(str(tmp_path), cwd=str(tmp_path)) == "."
    elsewhere = str(tmp_path / "b")
    assert shown_path(elsewhere, cwd=str(tmp_path / "a")) == elsewhere  # above: absolute
    assert shown_path(str(tmp_path / "ab"), cwd=str(tmp_path / "a")) == str(tmp_path / "ab")
    assert file_url("/srv/my site/ä") == "file:///srv/my%20site/%C3%A4"
    build = {"url": "file:///srv/public/", "directory": "public"}
    assert path_in_build("file:///srv/public/a%20b.html#top", build) == "public/a b.html#top"
    assert path_in_build("file:///srv/public/", build) == "public/"
    assert path_in_build("https://example.com/", build) is None
    assert (
        path_in_build("file:///srv/public/x?v=2", {"url": "file:///srv/public/", "directory": "."})
        == "x?v=2"
    )


# -- every output of a build audit ------------------------------------------------


@pytest.fixture
def build(tmp_path):
    """A build with a broken link in its template and on a page, a missing
    fragment, a directory linked without its slash (a redirect to update),
    a file reached through a symbolic link out of the build, a link to a
    far server on another port of 127.0.0.1."""
    far = TestServer()
    far.add("/ok", "far page")
    pages = {
        "index.html": (
            '<nav><a href="guide">guide</a> <a href="missing.html">missing</a></nav>\n'
            f'<a href="guide/install.html#nope">frag</a> <a href="{far.url}/ok">far</a>\n'
            '<a href="about.html">about</a> <a href="_static/x.js">script</a>\n'
        ),
        "about.html": '<nav><a href="guide">guide</a> <a href="missing.html">missing</a></nav>',
        "guide/index.html": '<a href="../gone.png">img</a>\n<a href="install.html">install</a>',
        "guide/install.html": '<h1 id="setup">Setup</h1>\n<a href="/index.html">home</a>',
    }
    for name, text in pages.items():
        path = tmp_path / "public" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "x.js").write_text("x")
    (tmp_path / "public" / "_static").mkdir()
    (tmp_path / "public" / "_static" / "x.js").symlink_to("../../outside/x.js")
    with far:
        yield tmp_path, far


def _internal(build: Path) -> str:
    """The build's address when its files are read (its stable port)."""
    return f"127.0.0.1:{stable_ports(str(build))[0]}"


def _no_internal_address(text: str, far: TestServer, where: str) -> None:
    """No address of 127.0.0.1 in ``text`` but the far server's."""
    far_address = far.url.split("//", 1)[1]
    leaked = [m for m in re.findall(r"127\.0\.0\.1:\d+", text) if m != far_address]
    assert not leaked, f"{where}: {leaked[:3]}"


def test_no_output_of_a_walked_build_names_its_address(build):
    tmp_path, far = build
    public = tmp_path / "public"
    views = ("--html", "out/r.html", "--redirect-fixes", "fixes.csv", "--report", "r.json")
    (tmp_path / "out").mkdir()
    # on a terminal: the status line, the first line, the log (-v), the text
    code, terminal, stderr = stdout_on_terminal(
        tmp_path,
        "public",
        "--check-fragments",
        "-v",
        *views,
        "-s",
        "LINKAUDIT_PROGRESS_INTERVAL=0.01",
    )
    assert code == 1, stderr
    assert "linkaudit: public read as " + public.as_uri() + "/" in stderr
    assert f"200 {far.url}/ok" in stderr  # far links stay as they are
    outputs = {"terminal": terminal, "log": stderr}
    for name in ("r.json", "out/r.html", "fixes.csv"):
        outputs[name] = (tmp_path / name).read_text()
    report = json.loads(outputs["r.json"])
    validate(report)
    assert report["start_urls"] == [public.as_uri() + "/"]
    assert (
        report["build"]["directory"] == "public" and report["build"]["url"] == public.as_uri() + "/"
    )
    assert far.url + "/ok" in [u["url"] for u in report["urls"]]
    missing = next(u for u in report["urls"] if u["url"].endswith("/missing.html"))
    assert missing["url"] == public.as_uri() + "/missing.html"
    assert {r["file"] for r in missing["referrers"]} == {"public/index.html", "public/about.html"}
    page = next(u for u in report["urls"] if u["url"] == public.as_uri() + "/guide/")
    assert page["file"] == "public/guide/index.html"  # an entry of the build names its file
    assert report["redirect_fixes"][0]["to"] == public.as_uri() + "/guide/"
    for fmt in FORMATS:
        shown = run(tmp_path, "show", "r.json", "--format", fmt, "--fail-on", "none")
        assert shown.returncode == 0, shown.stderr
        outputs[fmt] = shown.stdout + shown.stderr
    assert "--report" not in outputs["log"]
    # the text names the files from here, as the audit printed them, and
    # shows the symbolic link out under its one name
    text = outputs["text"]
    printed = terminal.replace("\r\n", "\n").rsplit("\x1b[K", 1)[-1]  # (the status line cleared)
    assert text.strip() == printed.strip()
    assert "  public/missing.html  [404 Not Found]" in text.splitlines()
    assert "    public/about.html:1" in text.splitlines()
    assert "Symbolic links out of the build (1):\n  public/_static/x.js  [symbolic link" in text
    _html_links_open_files(tmp_path / "out" / "r.html", public)
    for where, text in outputs.items():
        assert text, where
        _no_internal_address(text, far, where)
    assert _internal(public) not in "".join(outputs.values())


def _html_links_open_files(page: Path, build: Path) -> None:
    """Each link of the HTML report to a file (its sections', and its
    table's rows, which the script draws from the page's data) is a path
    relative to the report, of a file of the build that is there."""
    html = page.read_text()
    data = json.loads(html.split('id="linkaudit-data">', 1)[1].split("</script>", 1)[0])
    hrefs = re.findall(r'<a class="url" href="([^"]+)"', html)
    hrefs += [row["href"] for row in data["urls"] if row.get("href")]
    hrefs += [row["from"][3] for row in data["urls"] if len(row.get("from", ())) > 3]
    files = [h for h in hrefs if not h.startswith(("http:", "https:", "#"))]
    assert len(files) > 5, hrefs
    for href in files:
        path = Path(os.path.normpath(page.parent / href.split("#")[0]))
        assert path.is_file() and build in path.parents, href
    named = [row["name"] for row in data["urls"] if "name" in row]
    assert "public/missing.html" in named and "public/guide/index.html" in named


def test_no_output_of_a_crawled_or_served_build_names_its_address(build):
    """The crawl reads the build (a feed asks for it), or requests it from
    the build's server: its feed, its kept journal's rebuilt report and its
    log name the files too."""
    tmp_path, far = build
    public = tmp_path / "public"
    for route in ((), ("-s", "LINKAUDIT_LOCAL_READ=false")):
        out = run(
            tmp_path,
            "public",
            "--jsonl",
            "feed.jsonl",
            "--journal",
            "j.jsonl",
            "--report",
            "r.json",
            "--html",
            "r.html",
            "-v",
            *route,
        )
        assert out.returncode == 1, out.stderr
        assert ("served on 127.0.0.1, read as" in out.stderr) == bool(route)
        feed = [json.loads(line) for line in (tmp_path / "feed.jsonl").read_text().splitlines()]
        assert public.as_uri() + "/missing.html" in {item["url"] for item in feed}
        places = [r for item in feed for r in item["referrers"]]
        assert places and all(r["file"].startswith("public/") for r in places if r["line"])
        rebuilt = run_process(
            [sys.executable, "-m", "linkaudit.output.journal", "j.jsonl", "-o", "again.json"],
            cwd=tmp_path,
        )
        assert rebuilt.returncode == 0, rebuilt.stderr
        again = json.loads((tmp_path / "again.json").read_text())
        assert again["start_urls"] == [public.as_uri() + "/"]
        texts = {
            "stdout": out.stdout,
            "log": out.stderr,
            "feed": (tmp_path / "feed.jsonl").read_text(),
            "report": (tmp_path / "r.json").read_text(),
            "html": (tmp_path / "r.html").read_text(),
            "rebuilt": (tmp_path / "again.json").read_text(),
        }
        for where, text in texts.items():
            _no_internal_address(text, far, f"{route}: {where}")


def test_with_root_url_outputs_name_the_deployed_urls(tmp_path):
    public = tmp_path / "public"
    (public / "guide").mkdir(parents=True)
    (public / "index.html").write_text(
        '<a href="https://docs.example.com/v2/guide/">own address</a>\n'
        '<a href="/v2/gone.html">gone</a>\n<a href="/blog/">outside the build</a>'
    )
    (public / "guide" / "index.html").write_text("guide")
    out = run(
        tmp_path,
        "public",
        "--root-url",
        "https://docs.example.com/v2/",
        "--report",
        "r.json",
        "--html",
        "r.html",
    )
    assert out.returncode == 1, out.stderr
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["start_urls"] == ["https://docs.example.com/v2/"]
    urls = {u["url"]: u["outcome"] for u in report["urls"]}
    assert urls == {
        "https://docs.example.com/v2/": "ok",
        "https://docs.example.com/v2/guide/": "ok",
        "https://docs.example.com/v2/gone.html": "broken",
        "https://docs.example.com/blog/": "broken",  # above --root-url's path: its origin too
    }
    assert report["build"]["root_url"] == "https://docs.example.com/v2/"
    assert "linkaudit: public read as https://docs.example.com/v2/" in out.stderr
    assert "127.0.0.1" not in out.stdout + out.stderr + (tmp_path / "r.json").read_text()
    # the formats: the file, the deployed URL beside it; the HTML report links the deployed URLs
    gone = "public/gone.html (https://docs.example.com/v2/gone.html)"
    lines = out.stdout.splitlines()
    assert f"  {gone}  [404 Not Found]" in lines
    assert [
        x for x in lines if x.startswith("    public/index.html:2 (https://docs.example.com/v2/)")
    ]
    for fmt in FORMATS:
        shown = run(tmp_path, "show", "r.json", "--format", fmt, "--fail-on", "none").stdout
        assert "127.0.0.1" not in shown and "https://docs.example.com/v2/" in shown, fmt
    html = (tmp_path / "r.html").read_text()
    assert '<a class="url" href="https://docs.example.com/v2/">public/index.html</a>' in html
    assert "127.0.0.1" not in html


def test_a_baseline_and_an_audit_database_compare_across_runs(build):
    """A report names the build's files: the next run's baseline (that
    report, or an older one that named the internal address) and the audit
    database's last audit mark nothing new, and what was fixed is named."""
    tmp_path, _far = build
    public = tmp_path / "public"
    first = run(tmp_path, "public", "--check-fragments", "--report", "r1.json", "-q")
    assert first.returncode == 1, first.stderr
    old = json.loads((tmp_path / "r1.json").read_text())
    # the same report as an older linkaudit wrote it: the internal address
    root, internal = public.as_uri() + "/", f"http://{_internal(public)}/"
    (tmp_path / "old.json").write_text(json.dumps(old).replace(root, internal))
    (public / "about.html").write_text("no links")
    (public / "guide" / "index.html").write_text("no links")  # ../gone.png: fixed
    for baseline in ("r1.json", "old.json"):
        out = run(
            tmp_path,
            "public",
            "--check-fragments",
            "--baseline",
            baseline,
            "--report",
            "r2.json",
            "--fail-on",
            "new",
        )
        assert out.returncode == 0, out.stdout + out.stderr  # nothing new
        report = json.loads((tmp_path / "r2.json").read_text())
        assert not [u["url"] for u in report["urls"] if u.get("new")], baseline
        assert report["fixed"] == [root + "gone.png"], baseline
        assert "Fixed (1):" in out.stdout and "public/gone.png" in out.stdout
    db = ("--db", "a.db", "--check-fragments", "--fail-on", "new", "-q")
    for i in range(2):
        out = run(tmp_path, "public", *db, "--report", f"d{i}.json")
    assert out.returncode == 0, out.stdout + out.stderr
    second = json.loads((tmp_path / "d1.json").read_text())
    assert second["history"][-1]["new"] == 0
    assert [u["audits_broken"] for u in second["urls"] if u["outcome"] == "broken"] == [2]


def test_scrapy_crawl_of_a_served_build_names_its_files(build):
    """``scrapy crawl -a local_dir=DIR`` of a build served at the start URL
    (here by linkaudit's own build server): the report, the feed (``-O``)
    and the log name the files, not the server's address."""
    tmp_path, far = build
    public = tmp_path / "public"
    with DirectorySite(str(public)) as site:
        crawl = run_crawl(
            tmp_path,
            "-a",
            f"start={site.url}",
            "-a",
            f"local_dir={public}",
            "-O",
            str(tmp_path / "items.jsonl"),
            "-a",
            "check_fragments=true",
        )
        address = site.url.split("//", 1)[1].rstrip("/")
    assert crawl.returncode == 0, crawl.stderr[-2000:]  # (scrapy crawl exits 0)
    assert crawl.report["start_urls"] == [public.as_uri() + "/"]
    feed = (tmp_path / "items.jsonl").read_text()
    assert public.as_uri() + "/missing.html" in feed
    for where, text in {
        "log": crawl.stderr,
        "feed": feed,
        "report": json.dumps(crawl.report),
    }.items():
        assert address not in text, where
        _no_internal_address(text, far, where)


def test_print_config_of_a_build_names_no_address(build):
    tmp_path, _far = build
    out = run(tmp_path, "public", "--root-url", "https://example.com/", "--print-config")
    assert out.returncode == 0 and 'urls = ["public"]' in out.stdout
    assert "127.0.0.1" not in out.stdout + out.stderr


def test_a_build_outside_the_current_directory_is_named_by_absolute_paths(build):
    """``linkaudit ../site/public``: the build is not below the current
    directory, so its files are named by absolute paths, in the report as
    in the text."""
    tmp_path, _far = build
    here = tmp_path / "elsewhere"
    here.mkdir()
    out = run(here, "../public", "--report", "r.json", "--html", "r.html")
    assert out.returncode == 1, out.stderr
    public = str(tmp_path / "public")
    report = json.loads((here / "r.json").read_text())
    assert report["build"]["directory"] == public
    missing = next(u for u in report["urls"] if u["url"].endswith("/missing.html"))
    assert {r["file"] for r in missing["referrers"]} == {
        f"{public}/index.html",
        f"{public}/about.html",
    }
    assert f"  {public}/missing.html  [404 Not Found]" in out.stdout.splitlines()
    assert (
        f'<a class="url" href="../public/about.html">{public}/about.html</a>'
        in (here / "r.html").read_text()
    )
