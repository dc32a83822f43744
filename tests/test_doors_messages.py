"""What the command says at the door (issue 40): the site's scope when a
start URL has a query, hints on lines of their own and only when they are
true, one clear line for each input mistake, before anything else."""

from __future__ import annotations

import json
import re

from tests.helpers.command import on_terminal, refused, run
from tests.server import Route, TestServer


def test_a_start_url_with_a_query_says_what_the_site_became(tmp_path):
    """``/?a=1,2``: only URLs that start with it are the site, so the audit
    is one page; it says so, and how to widen it."""
    pages = {
        "/": Route(body='<a href="/about">about</a> <a href="/docs/">docs</a>'),
        "/about": Route(body='<a href="/gone">gone</a>'),
        "/docs/": Route(body="docs"),
    }
    with TestServer(pages) as site:
        out = run(tmp_path, f"{site.url}/?a=1,2", "--delay", "0", "--report", "r.json")
        report = json.loads((tmp_path / "r.json").read_text())
        assert report["start_urls"] == [f"{site.url}/?a=1,2"]  # one URL, its comma and all
        assert report["summary"]["pages"] == 1
        assert out.returncode == 0, out.stdout + out.stderr
        warning = [line for line in out.stderr.splitlines() if "was one page" in line]
        assert warning == [
            f"linkaudit: warning: the site (what starts with {site.url}/?a=1,2 (its query"
            f" included)) was one page; to audit its directory, start at {site.url}/ or give"
            f" --near {site.url}/"
        ], out.stderr
        # widened as it says: the whole site, /gone found broken
        wide = run(tmp_path, f"{site.url}/?a=1,2", "--delay", "0", "--near", f"{site.url}/")
        assert wide.returncode == 1 and f"{site.url}/gone" in wide.stdout
        assert "one page" not in wide.stderr
    # a site of more pages under a query prefix: said, not warned
    pages = {"/": Route(body='<a href="/?a=1&p=2">2</a>'), "/about": Route(body="x")}
    with TestServer(pages) as site:
        out = run(tmp_path, f"{site.url}/?a=1", "--delay", "0")
        assert out.returncode == 0, out.stderr
        assert (
            f"linkaudit: the site is what starts with {site.url}/?a=1 (its query included);"
            f" to audit its directory, start at {site.url}/ or give --near {site.url}/"
        ) in out.stderr.splitlines()


def test_which_start_urls_have_a_wider_directory():
    from linkaudit.rules.scope import directory_of

    assert directory_of("https://e.org/?a=1,2") == "https://e.org/"
    assert directory_of("https://e.org/docs/?a=1") == "https://e.org/docs/"
    assert directory_of("https://e.org/docs/page.php?id=3") == "https://e.org/docs/"
    assert directory_of("https://e.org/docs/") is None


def test_input_mistakes_are_one_line_that_says_what_to_give(tmp_path):
    build = tmp_path / "site"
    build.mkdir()
    (build / "index.html").write_text('<a href="page.html">p</a>')
    (build / "page.html").write_text("page")
    # a page of a build: its directory is what to give
    refused(run(tmp_path, "site/index.html"), "site/index.html is a file: give the build directory")
    assert "(linkaudit site)" in run(tmp_path, "site/index.html").stderr
    assert "(linkaudit .)" in run(build, "index.html").stderr
    # a host and port without a scheme: the URL meant, and it works as said
    with TestServer({"/": Route(body="home")}) as site:
        address = site.url[len("http://") :]
        said = refused(run(tmp_path, address), f"did you mean http://{address}/?")
        assert said == (
            f"linkaudit: error: start: {address!r} is not an http(s) URL"
            f" (did you mean http://{address}/?)"
        )
        assert run(tmp_path, f"http://{address}/", "--delay", "0").returncode == 0
    refused(run(tmp_path, "example.com/docs/"), "(did you mean https://example.com/docs/?)")
    unknown = refused(run(tmp_path, "nothing.html"), "is not an http(s) URL")
    assert "did you mean" not in unknown  # a file's name is no host
    # --accept: the ranges it takes
    said = refused(run(tmp_path, "http://127.0.0.1:9/", "--accept", "2xx"), "'2xx'")
    assert said.endswith(
        "'2xx' is not an HTTP status; it takes statuses and ranges, comma-separated:"
        " 200-299 for 2xx (e.g. 200-299,429)"
    ), said
    refused(run(tmp_path, "http://127.0.0.1:9/", "--accept", "ok"), "(e.g. 200-299,429)")


def test_a_bad_setting_is_said_before_anything_else(tmp_path):
    """``-s NAME=...``: its error is the run's only output, whichever the
    site (a build, the demo, a URL), and a log level is one of them."""
    build = tmp_path / "site"
    build.mkdir()
    (build / "index.html").write_text("home")
    for site in (["site"], ["--demo"], ["http://127.0.0.1:9/"]):
        for setting, words in (
            ("LINKAUDIT_DEPTH=x", "LINKAUDIT_DEPTH: 'x' is not a whole number"),
            ("DOWNLOAD_HANDLERS=x", "DOWNLOAD_HANDLERS: 'x' is not a JSON object"),
            ("LOG_LEVEL=chatty", "LOG_LEVEL: 'chatty' is not a log level"),
        ):
            out = run(tmp_path, *site, "-s", setting)
            assert out.stdout == "", (site, setting, out.stdout)
            assert out.stderr.startswith(f"linkaudit: error: {words}"), out.stderr
            assert out.stderr.count("\n") == 1, (site, setting, out.stderr)
            refused(out, words)


ERASE = "\r\x1b[K"
STATUS = re.compile(
    r"linkaudit: \d+ checked, \d+ queued, \d+ broken, [\d.]+ requests/s, \d+:\d\d elapsed"
)


def _status_never_glued(sent: str) -> int:
    """Every status line is followed by the erasing of it (a redraw, a log
    line's, the end's), never by other text; how many were drawn."""
    drawn = list(STATUS.finditer(sent))
    glued = [sent[m.start() : m.end() + 80] for m in drawn if not sent.startswith(ERASE, m.end())]
    assert not glued, glued[:3]
    return len(drawn)


def test_a_hint_is_a_line_of_its_own_beside_the_status_line(tmp_path):
    """stdout and stderr on one terminal, as in a shell: the pace hint (a
    log line) starts on a line of its own, never at the end of the status
    line, and the status line comes back after it."""
    links = "".join(f'<a href="/p{i}">{i}</a>' for i in range(6))
    pages = {"/": Route(body=links), "/p*": Route(body="x", content_type="text/plain")}
    with TestServer(pages) as site:
        code, sent = on_terminal(
            tmp_path,
            f"{site.url}/",
            *("--delay", "0.5", "--concurrency", "1", "-s", "LINKAUDIT_PACE_HINT=true"),
            *("-s", "LINKAUDIT_PACE_HINT_AFTER=0.5", "-s", "LINKAUDIT_PACE_HINT_LONG=1"),
            *("-s", "LINKAUDIT_PROGRESS_INTERVAL=0.05"),
        )
    assert code == 0, sent
    hint = sent.index("WARNING: about ")
    # what the terminal shows on the hint's line before it: nothing but the
    # log line's own start (the status line erased)
    shown = sent[sent.rindex("\r", 0, hint) : hint]
    assert re.fullmatch(r"\r\x1b\[K[\d-]+ [\d:]+ \[linkaudit\.hosts\.pacehint\] ", shown), shown
    assert _status_never_glued(sent) >= 3
    assert STATUS.search(sent, hint)  # drawn again below the hint
    summary = sent[sent.rindex(ERASE) + len(ERASE) :]
    assert summary.startswith("linkaudit: 0 broken links; 7 URLs"), repr(summary[:200])


def test_a_walk_s_log_lines_are_lines_of_their_own(tmp_path):
    build = tmp_path / "chain"
    build.mkdir()
    for i in range(1_500):
        (build / f"p{i}.html").write_text(f'<a href="p{i + 1}.html">next</a>')
    (build / "index.html").write_text('<a href="p0.html">start</a>')
    code, sent = on_terminal(tmp_path, "chain", "-vv", "-s", "LINKAUDIT_PROGRESS_INTERVAL=0.01")
    assert code == 1, sent[-2000:]  # p1500.html is missing
    assert _status_never_glued(sent) >= 10
    assert sent.count("Walking depth ") >= 100


def test_continue_with_db_is_said_only_when_a_run_continues_so(tmp_path):
    """An audit stopped early: with --db the same command continues it,
    and says so; without, a rerun with --db would start afresh, so the
    words say how to make an audit resumable instead.  A walk of a build
    (no --db) is no different; a finished audit says nothing of it."""
    links = "".join(f'<a href="/p{i}">{i}</a>' for i in range(8))
    pages = {"/": Route(body=links), "/p*": Route(body="x", content_type="text/plain")}
    with TestServer(pages) as site:
        limited = (f"{site.url}/", "--delay", "0", "--max-requests", "3")
        out = run(tmp_path, *limited, "--report", "r.json")
        first = out.stdout.splitlines()[0]
        assert out.returncode == 3, out.stdout + out.stderr
        assert "with --db to continue" not in out.stdout and "continue" not in first, first
        assert first.endswith("; to make an audit that stops resumable, give it --db FILE")
        out = run(tmp_path, *limited, "--db", "a.db", "--report", "r.json")
        first = out.stdout.splitlines()[0]
        assert first.endswith("; run the same command again to continue"), first
        left = json.loads((tmp_path / "r.json").read_text())["summary"]["unchecked"]
        again = run(tmp_path, *limited, "--db", "a.db", "--report", "r.json")
        after = json.loads((tmp_path / "r.json").read_text())["summary"]["unchecked"]
        assert after < left, (left, after, again.stdout)  # it did continue
        done = run(tmp_path, f"{site.url}/", "--delay", "0", "--db", "a.db")
        assert done.stdout.splitlines()[0].endswith("; complete"), done.stdout
    build = tmp_path / "chain"
    build.mkdir()
    for i in range(3_000):
        (build / f"p{i}.html").write_text(f'<a href="p{i + 1}.html">next</a>')
    (build / "index.html").write_text('<a href="p0.html">start</a>')
    out = run(tmp_path, "chain", "--max-time", "0.3")
    first = out.stdout.splitlines()[1]  # (the build's line first, then the headline)
    assert "time limit (--max-time) reached" in first, first
    assert first.endswith("; to make an audit that stops resumable, give it --db FILE"), first
