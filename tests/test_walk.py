"""``linkaudit DIR`` walks the build's files (``linkaudit/localbuild/``) instead of
crawling it: the same report as the build served over HTTP and crawled
(``-s LINKAUDIT_LOCAL_READ=false``), option by option; far links handed to
the crawl; an interruption still writes the report; and what needs the
crawl for the build itself (an audit database, feeds...) gets it."""

from __future__ import annotations

import json
import signal
import sys

import pytest

from tests.conftest import Spawned, check_no_fault, wait_for
from tests.helpers.command import run
from tests.server import TestServer

PAGE_CAP = 30_000
FOOTER = '<footer><a href="/gone-footer.html">a footer link</a> <a href="/page">p</a></footer>'

FILES = {
    "index.html": "\n".join(
        [
            "<!doctype html><title>Home</title>",
            '<a href="guide/">dir</a> <a href="guide">no slash</a> <a href="page">clean</a>',
            '<a href="page.html#top">anchor</a> <a href="page.html#nowhere">no anchor</a>',
            '<a href="missing.html">missing</a> <img src="img/logo.png">',
            '<link rel="stylesheet" href="style.css"> <a href="latin.html">latin-1</a>',
            '<a href="app.xhtml">xhtml</a> <a href="big.html">big</a> <a href="soft.html">soft</a>',
            '<a href="/other/place.html">root-relative</a> <a href="mailto:a@b.c">mail</a>',
            '<a href="http://[bad">invalid</a> <a href="img/">folder without index</a>',
            '<a href="https://docs.example.invalid/v2/page.html#top">own address</a>',
            '<a href="notes.txt">plain text</a> <a href="out.html#x">link out of the build</a>',
            FOOTER,
        ]
    ),
    "page.html": f'<h1 id="top">Page</h1>\n<a href="guide/install">deeper</a>\n{FOOTER}',
    "guide/index.html": f'<a href="../index.html">home</a>\n<a href="install.html">i</a>\n{FOOTER}',
    "guide/install.html": '<a href="../img/logo.png">logo</a>\n<a href="../gone/">gone</a>',
    "img/logo.png": "PNG",
    "style.css": "body { background: url(img/bg.png) }\n@import 'more.css';",
    "more.css": "p { background: url(img/logo.png) }",
    "big.html": '<a href="page.html">early</a>\n' + "x" * PAGE_CAP + '\n<a href="late.html">',
    "soft.html": "<title>Page not found</title><p>Sorry</p>",
    "café.html": "<p>accents</p>",
    "other/place.html": "<p>outside the site under --root-url</p>",
    "404.html": "<h1>Not here</h1>",
    "notes.txt": "<a href='never-read.html'>not HTML: not scanned</a>",
}


@pytest.fixture
def site(tmp_path):
    for name, text in FILES.items():
        path = tmp_path / "site" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    # pages in ISO-8859-1, decoded as the crawl (and a browser) decodes
    # them: a .html file is sent as UTF-8, which wins over its <meta>; an
    # XHTML file is sent without a charset, so its own declaration counts
    latin = '<meta charset="iso-8859-1">\n<a href="caf\xe9.html">caf\xe9</a>'
    (tmp_path / "site" / "latin.html").write_bytes(latin.encode("latin-1"))
    xhtml = '<?xml version="1.0" encoding="iso-8859-1"?>\n<html><a href="caf\xe9.html">x</a></html>'
    (tmp_path / "site" / "app.xhtml").write_bytes(xhtml.encode("latin-1"))
    # a file reached through a symbolic link out of the build: ok, a
    # warning, never read (the walk's answer and the crawl's middleware)
    (tmp_path / "outside.html").write_text('<a href="secret.html">s</a>')
    (tmp_path / "site" / "out.html").symlink_to(tmp_path / "outside.html")
    return tmp_path


def audit(tmp_path, *args: str) -> tuple[dict, str]:
    """An audit of the build; its link to its own future address is never
    requested (``.invalid``, and excluded: mapped into the build by
    ``--root-url`` first)."""
    settings = ("-s", f"LINKAUDIT_PAGE_MAXSIZE={PAGE_CAP}", "--exclude", r"\.invalid/")
    out = run(tmp_path, *args, "-v", *settings)
    assert out.returncode in (1, 3), out.stdout + out.stderr[-3000:]
    return json.loads((tmp_path / "linkaudit-report.json").read_text()), out.stderr


VOLATILE = {"checked_at", "started_at", "finished_at"}


def _portless(report: dict, part: str) -> object:
    """A part of the report, the build's origin (its port differs from run
    to run) taken out of every URL."""
    netloc = report["start_urls"][0].split("/")[2]
    return json.loads(json.dumps(report.get(part)).replace(f"http://{netloc}", "ORIGIN"))


def comparable(report: dict) -> dict:
    """Everything but times and the groups (see ``grouped``)."""
    parts = {k: _portless(report, k) for k in report if k not in VOLATILE and k != "groups"}
    for entry in parts["urls"]:
        entry.pop("checked_at", None)
    return parts


def grouped(report: dict) -> list:
    """The report's groups, referrers in order (the crawl records pages as
    they arrive) and run digests (of URLs with the port) left out."""
    groups = _portless(report, "groups") or []
    for group in groups:
        group["referrers"].sort(key=lambda r: (r["url"], r["line"]))
        if group.get("block", "").startswith("links:"):
            del group["block"]
    return sorted(groups, key=lambda g: json.dumps(g, sort_keys=True))


OPTIONS = {
    "defaults": (),
    "fragments": ("--check-fragments",),
    "root-url": ("--root-url", "https://docs.example.invalid/v2/", "--check-fragments"),
    "depth": ("--depth", "1"),
    "max-urls": ("--max-urls", "9"),
    "findings off": ("--soft-404", "off", "--no-css", "-s", "LINKAUDIT_TEMPLATES=false"),
    "accept 404": ("-s", "LINKAUDIT_ACCEPT_STATUS=404", "--soft-404", "error"),
}


@pytest.mark.parametrize("options", OPTIONS.values(), ids=OPTIONS.keys())
def test_walked_and_served_give_the_same_report(site, options):
    served, log = audit(site, "site", *options, "-s", "LINKAUDIT_LOCAL_READ=false")
    assert "Walked the build" not in log
    walked, log = audit(site, "site", *options)
    assert "Walked the build" in log, log[-2000:]
    assert comparable(walked) == comparable(served)
    assert walked["complete"] == served["complete"]
    assert grouped(walked) == grouped(served)


def test_what_the_walk_finds(site):
    report, _log = audit(site, "site", "--check-fragments")
    origin = report["start_urls"][0]
    entries = {u["url"][len(origin) :]: u for u in report["urls"] if u["url"].startswith(origin)}
    outcome = {path: entry["outcome"] for path, entry in entries.items()}
    assert outcome["guide"] == "redirect" and entries["guide"]["location"] == origin + "guide/"
    assert outcome["caf%C3%A9.html"] == "ok"  # from the XHTML page, read in ISO-8859-1
    assert outcome["caf%EF%BF%BD.html"] == "broken"  # from the page sent as UTF-8
    assert entries["app.xhtml"]["content_type"] == "application/xhtml+xml"
    assert outcome["img/bg.png"] == "broken" and outcome["more.css"] == "ok"  # CSS read
    assert entries["big.html"]["truncated"] is True and "late.html" not in outcome
    assert entries["soft.html"]["soft_404"] is True
    assert report["summary"]["pages"] == sum(1 for e in entries.values() if e.get("page"))
    assert [gap["fragment"] for gap in entries["page.html"]["missing_fragments"]] == ["nowhere"]
    assert outcome["img/"] == "broken"
    # a near file that is no page: ok, never scanned; one out of the build: ok, a warning
    assert outcome["notes.txt"] == "ok" and "never-read.html" not in outcome
    assert outcome["out.html"] == "ok" and "outside.html" in entries["out.html"]["warning"]
    assert "secret.html" not in outcome
    footer = [g for g in report["groups"] if g["target"] == origin + "gone-footer.html"]
    # /, index.html (one file), page, page.html (one file: the clean URL), guide/
    assert footer and footer[0]["kind"] == "template" and footer[0]["pages"] == 3


def test_views_are_written_from_the_walk(site):
    """--html and --redirect-fixes: written as the crawl writes them."""
    args = ("site", "--html", "report.html", "--redirect-fixes", "fixes.csv")
    _served, _log = audit(site, *args, "-s", "LINKAUDIT_LOCAL_READ=false")
    served_fixes = (site / "fixes.csv").read_text()
    (site / "report.html").unlink()
    walked, log = audit(site, *args)
    assert "Walked the build" in log
    origin = walked["start_urls"][0]
    assert "<html" in (site / "report.html").read_text()
    fixes = (site / "fixes.csv").read_text()
    assert f"{origin}guide,{origin}guide/" in fixes
    ported = served_fixes.split("\n", 1)[1].count("http://127.0.0.1:")
    assert fixes.split("\n", 1)[1].count("http://127.0.0.1:") == ported


def test_far_links_are_handed_to_the_crawl(site):
    """The walk leaves a far link to the crawl, which checks it with the
    walk's state: one request to the far server, one report."""
    with TestServer(host="127.0.0.2") as far:
        far.add("/ok", "far page")
        index = site / "site" / "index.html"
        index.write_text(index.read_text() + f'\n<a href="{far.url}/ok">far</a>')
        served, _log = audit(site, "site", "--delay", "0", "-s", "LINKAUDIT_LOCAL_READ=false")
        assert len(far.hits("/ok")) == 1
        fed, log = audit(site, "site", "--delay", "0", "--jsonl", "items.jsonl")
        assert "Walked the build" not in log  # a feed: the crawl reads the build
        items = [json.loads(x) for x in (site / "items.jsonl").read_text().splitlines()]
        assert len(items) == fed["summary"]["urls"] and comparable(fed) == comparable(served)
        walked, log = audit(site, "site", "--delay", "0")
        assert "Walked the build" in log and "1 URLs left for the crawl" in log
        assert comparable(walked) == comparable(served)
        assert {e["url"]: e["outcome"] for e in walked["urls"]}[f"{far.url}/ok"] == "ok"
        assert len(far.hits("/ok")) == 3  # once per audit, whatever the route


def test_what_needs_the_crawl_gets_it(site):
    """The build's own robots.txt is obeyed, as the crawl obeys it."""
    (site / "site" / "robots.txt").write_text("User-agent: *\nDisallow: /guide/\n")
    report, log = audit(site, "site")
    assert "Walked the build" not in log
    blocked = {e["url"] for e in report["urls"] if e["outcome"] == "blocked"}
    assert any(url.endswith("/guide/") for url in blocked)


def test_an_interrupted_walk_still_writes_its_report(tmp_path):
    """SIGINT in the middle of a walk (a chain of 20,000 pages, one per
    level: the log names each level) stops it; the report is written,
    incomplete, with what was checked."""
    build = tmp_path / "chain"
    build.mkdir()
    pages = 20_000
    for i in range(pages):
        (build / f"p{i}.html").write_text(f'<a href="p{i + 1}.html">next</a>')
    (build / "index.html").write_text('<a href="p0.html">start</a>')
    report = tmp_path / "report.json"
    cmd = [sys.executable, "-m", "linkaudit", str(build), "--report", str(report), "-vv"]
    spawned = Spawned(cmd)
    wait_for(lambda: "Walking depth 3:" in spawned.stderr, timeout=60, what="the walk")
    spawned.signal(signal.SIGINT)
    code = spawned.wait(timeout=60)
    written = json.loads(report.read_text())
    check_no_fault(spawned.stderr, report=written)
    assert code == 3, spawned.stderr[-2000:]  # nothing broken, incomplete
    assert written["finish_reason"] == "shutdown" and written["complete"] is False
    assert 3 <= written["summary"]["pages"] < pages
    assert written["summary"]["unchecked"] >= 1


def test_a_walk_shows_its_progress_on_a_terminal(tmp_path):
    """LINKAUDIT_PROGRESS (on when stdout is a terminal): the walk redraws
    the crawl's status line, then erases it before the summary."""
    build = tmp_path / "chain"
    build.mkdir()
    for i in range(2_000):
        (build / f"p{i}.html").write_text(f'<a href="p{i + 1}.html">next</a>')
    (build / "index.html").write_text('<a href="p0.html">start</a>')
    settings = ("-s", "LINKAUDIT_PROGRESS=true", "-s", "LINKAUDIT_PROGRESS_INTERVAL=0.01")
    out = run(tmp_path, "chain", *settings)
    assert out.returncode == 1, out.stderr[-2000:]  # p2000.html is missing
    # (text mode reads the carriage return as a new line)
    assert "\033[Klinkaudit: " in out.stdout and " checked, " in out.stdout
    summary = out.stdout.rsplit("\033[K", 1)[1]
    assert "requests/s" not in summary and "p2000.html" in summary
