"""No traps at the door (issue 31): what a newcomer meets first, tried as a
newcomer would, against real servers on 127.0.0.1."""

from __future__ import annotations

import json
import os
import stat
import subprocess

from tests.helpers.command import LINKAUDIT, run
from tests.server import Route, TestServer


def _many_broken(count: int) -> TestServer:
    # long paths: the text output is far over a pipe's 64 KiB buffer
    links = "".join(f'<a href="/missing/{"x" * 150}/{i}.html">{i}</a>\n' for i in range(count))
    return TestServer({"/": Route(body=f"<!DOCTYPE html><title>t</title>\n{links}")})


def test_a_reader_that_leaves_early_ends_the_output_quietly(tmp_path):
    """``linkaudit URL | head -1``: no BrokenPipeError traceback, the report
    written, the audit's own exit code."""
    with _many_broken(400) as site:
        script = (
            f"{LINKAUDIT} {site.url}/ --delay 0 --report {tmp_path / 'r.json'} | head -1; "
            'echo "status=${PIPESTATUS[0]}" >&2'
        )
        out = subprocess.run(
            ["bash", "-c", script], capture_output=True, text=True, timeout=120, cwd=tmp_path
        )
    assert out.stdout.startswith("linkaudit: ") and out.stdout.count("\n") == 1, out.stdout
    assert "Traceback" not in out.stderr and "BrokenPipe" not in out.stderr, out.stderr
    assert out.stderr.strip().endswith("status=1"), out.stderr
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["summary"]["broken"] == 400


def test_help_into_a_closed_pipe_ends_quietly(tmp_path):
    out = subprocess.run(
        ["bash", "-c", f"{LINKAUDIT} --help | true; echo \"status=${{PIPESTATUS[0]}}\" >&2"],
        capture_output=True, text=True, timeout=60,
    )
    assert "Traceback" not in out.stderr and "BrokenPipe" not in out.stderr, out.stderr
    assert out.stderr.strip().endswith("status=0"), out.stderr


def test_a_start_url_is_one_url_commas_and_all(tmp_path):
    with TestServer({"/list": Route(body='<a href="/ok">ok</a>'), "/ok": Route(body="ok")}) as site:
        start = f"{site.url}/list?ids=1,2&tag=a b"
        out = run(tmp_path, start, "--delay", "0", "--report", "r.json")
        assert out.returncode == 0, out.stdout + out.stderr
        report = json.loads((tmp_path / "r.json").read_text())
        assert report["start_urls"] == [f"{site.url}/list?ids=1,2&tag=a%20b"]
        assert "/list?ids=1,2&tag=a%20b" in [h.path for h in site.hits(method="GET")]
        assert "/ok" in [h.path for h in site.log]


def _umasked(mask: int):
    return lambda: os.umask(mask)


def test_reports_are_written_with_the_users_umask(tmp_path):
    page = '<a href="/moved">m</a> <a href="/gone">g</a>'
    routes = {
        "/": Route(body=page),
        "/moved": Route(301, headers={"Location": "/here"}),
        "/here": Route(body="here"),
    }
    with TestServer(routes) as site:
        for mask, mode in ((0o022, 0o644), (0o027, 0o640), (0o002, 0o664)):
            folder = tmp_path / oct(mask)
            folder.mkdir()
            out = subprocess.run(
                [LINKAUDIT, f"{site.url}/", "--delay", "0", "--report", "r.json",
                 "--html", "r.html", "--redirect-fixes", "fixes.csv"],
                capture_output=True, text=True, timeout=90, cwd=folder,
                preexec_fn=_umasked(mask),
            )
            assert out.returncode == 1, out.stderr
            for name in ("r.json", "r.html", "fixes.csv"):
                assert stat.S_IMODE((folder / name).stat().st_mode) == mode, (name, oct(mask))


def _docs() -> TestServer:
    return TestServer(
        {
            "/docs/index.html": Route(body='<a href="a.html">a</a> <a href="b.html">b</a>'),
            "/docs/a.html": Route(body='<a href="b.html">b</a> <a href="gone.html">x</a>'),
            "/docs/b.html": Route(body='<a href="index.html">home</a>'),
        }
    )


def test_a_start_at_an_index_page_audits_its_directory(tmp_path):
    with _docs() as site:
        out = run(tmp_path, f"{site.url}/docs/index.html", "--delay", "0", "--report", "r.json")
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["near_prefixes"] == [f"{site.url}/docs/"]
    assert report["summary"]["pages"] == 3
    assert out.returncode == 1  # /docs/gone.html, found on a.html
    assert f"the site is {site.url}/docs/: the directory of the start URL" in out.stderr


def test_a_site_of_one_page_suggests_its_directory(tmp_path):
    with _docs() as site:
        out = run(tmp_path, f"{site.url}/docs/a.html", "--delay", "0", "--report", "r.json")
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["summary"]["pages"] == 1
    warning = [line for line in out.stderr.splitlines() if "was one page" in line]
    assert warning == [
        f"linkaudit: warning: the site (what starts with {site.url}/docs/a.html) was one page;"
        f" to audit its directory, start at {site.url}/docs/ or give --near {site.url}/docs/"
    ]


def test_which_start_urls_stand_for_their_directory():
    from linkaudit.rules.scope import directory_of, site_prefix

    assert site_prefix("https://e.org/docs/index.html") == "https://e.org/docs/"
    assert site_prefix("https://e.org/Default.aspx") == "https://e.org/"
    assert site_prefix("https://e.org/docs/index.html?v=2") == "https://e.org/docs/index.html?v=2"
    assert site_prefix("https://e.org/docs/intro.html") == "https://e.org/docs/intro.html"
    assert site_prefix("https://e.org/docs/") == "https://e.org/docs/"
    assert directory_of("https://e.org/docs/intro.html") == "https://e.org/docs/"
    assert directory_of("https://e.org/docs/") is None


def test_the_options_users_of_other_checkers_look_for(tmp_path):
    """--user-agent, --timeout, --insecure and --accept ranges do what they
    say, on the wire; --concurrency is shown with the others by
    --print-config."""
    from tests.helpers.served import certificate

    page = '<a href="/slow">s</a> <a href="/teapot">t</a> <a href="/gone">g</a>'
    routes = {"/": Route(body=page), "/slow": Route(body="slow", delay=3), "/teapot": Route(418)}
    with TestServer(routes) as site, TestServer(
        {"/": Route(body="tls")}, tls=certificate(tmp_path, "self", expired=False)
    ) as tls:
        site.add("/", Route(body=page + f' <a href="{tls.url}/">tls</a>'))
        common = ["--delay", "0", "--report", "r.json", "--user-agent", "site-check/2 (ops@example.org)"]
        out = run(tmp_path, f"{site.url}/", *common, "--timeout", "1", "--accept", "400-418")
        report = {u["url"]: u for u in json.loads((tmp_path / "r.json").read_text())["urls"]}
        assert {h.headers.get("User-Agent") for h in site.log} == {"site-check/2 (ops@example.org)"}
        assert report[f"{site.url}/slow"]["error"].startswith("Timed out after 1")
        assert report[f"{site.url}/teapot"]["outcome"] == "ok"  # 418 in 400-418
        assert report[f"{site.url}/gone"]["outcome"] == "ok"  # 404 too
        assert report[f"{tls.url}/"]["outcome"] == "broken"
        out = run(tmp_path, f"{site.url}/", *common, "--insecure", "--accept", "200-299,404,418")
        report = {u["url"]: u for u in json.loads((tmp_path / "r.json").read_text())["urls"]}
        assert report[f"{tls.url}/"]["outcome"] == "ok", out.stderr
        assert report[f"{site.url}/slow"]["outcome"] == "ok"  # the default 15 s
    printed = run(tmp_path, "http://example.org/", "--print-config", "--concurrency", "4",
                  "--timeout", "5", "--insecure", "--user-agent", "x/1").stdout
    for line in ('concurrency = "4"', 'timeout = "5"', "insecure = true", 'user-agent = "x/1"'):
        assert line in printed.splitlines(), printed


def test_a_bad_accept_range_is_one_line(tmp_path):
    from tests.helpers.command import refused

    refused(run(tmp_path, "http://127.0.0.1:9/", "--accept", "299-200"), "not a range")
    refused(run(tmp_path, "http://127.0.0.1:9/", "--accept", "2²0"), "not an HTTP status")


def test_a_misspelt_option_or_setting_names_the_nearest(tmp_path):
    from tests.conftest import crawl_command, run_process
    from tests.helpers.command import refused

    line = refused(run(tmp_path, "http://127.0.0.1:9/", "--dely", "0"), "--dely")
    assert line.endswith("(did you mean --delay?)")
    line = refused(run(tmp_path, "http://127.0.0.1:9/", "-s", "LINKAUDIT_MAX_URL=5"), "unknown")
    assert line == (
        "linkaudit: error: LINKAUDIT_MAX_URL: unknown setting (did you mean LINKAUDIT_MAX_URLS?)"
    )
    refused(run(tmp_path, "http://127.0.0.1:9/", "-s", "LINKAUDIT_QQQQ=1"), "unknown setting")
    # scrapy crawl says the same
    out = run_process(
        crawl_command(tmp_path, "-a", "start=http://127.0.0.1:9/", settings={"LINKAUDIT_DELAY": "0"})
    )
    assert out.returncode == 2, out.stderr
    assert "LINKAUDIT_DELAY: unknown setting" in out.stderr


def test_help_is_grouped_with_examples_and_subcommands(tmp_path):
    out = run(tmp_path, "--help")
    assert out.returncode == 0
    text = out.stdout
    titles = ["what is audited:", "how links are checked:", "politeness:", "output:",
              "memory between audits:", "one audit on many workers (Redis):", "configuration:"]
    at = [text.index("\n" + title + "\n") for title in titles]
    assert at == sorted(at)
    general = text[text.index("\noptions:\n") : at[0]]
    assert general.count("\n  -") == 2  # -h and --version only: every other option has its section
    assert "linkaudit history --db PATH" in text and "linkaudit show REPORT.json" in text
    assert "examples:\n  linkaudit https://example.com/\n" in text
    for name in ("history", "show", "report"):
        assert f"\n  {name} " in text.split("subcommands:")[1]


def test_a_long_audit_at_the_default_pace_says_how_to_go_faster(tmp_path):
    pages = {f"/p{i}": Route(body="x") for i in range(40)}
    links = "".join(f'<a href="/p{i}">{i}</a>' for i in range(40))
    hint = "--delay 0 is much faster"
    quick = ["-s", "LINKAUDIT_PACE_HINT_AFTER=1", "-s", "LINKAUDIT_PACE_HINT_LONG=10"]
    with TestServer({"/": Route(body=links), **pages}) as site:
        out = run(tmp_path, f"{site.url}/", "--max-time", "3", "--report", "r.json", *quick)
        assert out.returncode == 3, out.stderr  # the time limit: incomplete
        said = [line for line in out.stderr.splitlines() if hint in line]
        assert len(said) == 1, out.stderr
        assert "URLs are still to check at one request every 1 s per host" in said[0]
        # the user's own delay: no hint
        out = run(tmp_path, f"{site.url}/", "--max-time", "3", "--delay", "1", *quick)
        assert hint not in out.stderr


def test_port_sets_a_builds_address_and_its_servers(tmp_path):
    import socket

    build = tmp_path / "site"
    build.mkdir()
    (build / "index.html").write_text('<a href="page.html">p</a>')
    (build / "page.html").write_text("page")
    with socket.socket() as probe:  # a port free now
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    out = run(tmp_path, str(build), "--port", str(port), "--report", "r.json")
    assert out.returncode == 0, out.stderr
    # the port is the build's address, inside: every output names its files
    assert json.loads((tmp_path / "r.json").read_text())["start_urls"] == [build.as_uri() + "/"]
    out = run(tmp_path, str(build), "--port", str(port), "-s", "LINKAUDIT_LOCAL_READ=false",
              "--report", "r.json")
    assert out.returncode == 0, out.stderr
    assert f"served on 127.0.0.1, read as {build.as_uri()}/" in out.stderr
    assert str(port) not in out.stderr + out.stdout
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        busy = taken.getsockname()[1]
        from tests.helpers.command import refused

        refused(run(tmp_path, str(build), "--port", str(busy), "-s", "LINKAUDIT_LOCAL_READ=false"),
                f"--port {busy}: cannot serve the build there")
    refused(run(tmp_path, str(build), "--port", "70000"), "is not a port")
    refused(run(tmp_path, "http://127.0.0.1:9/", "--port", "8080"), "only with a build directory")


def test_the_first_line_is_in_words_not_internals(tmp_path):
    """Plurals, how the audit ended and what to do about it, pages the
    database vouches for; the files' paths at the end."""
    slow = {f"/p{i}": Route(body="x", delay=1) for i in range(30)}
    links = "".join(f'<a href="/p{i}">{i}</a>' for i in range(30))
    with TestServer({"/": Route(body=links), **slow}) as site:
        out = run(tmp_path, f"{site.url}/", "--delay", "0", "--max-time", "2", "--report", "r.json",
                  "--html", "r.html")
        first = out.stdout.splitlines()[0]
        assert out.returncode == 3, out.stderr
        import re

        said = re.search(
            r"; incomplete \(time limit \(--max-time\) reached after (\d+\.\d) s\): "
            r"(\d+) URLs not checked;",
            first,
        )
        # the seconds are the wall clock's: at least the limit, however busy the machine
        # (and how many were left depends on it too: more than one, a plural)
        assert said and float(said.group(1)) >= 2.0 and 2 <= int(said.group(2)) <= 30, first
        # (nothing to continue without --db: tests/test_doors_messages.py)
        assert "URLs not checked; to make an audit that stops resumable, give it --db" in first
        assert "closespider" not in out.stdout and "(finished" not in out.stdout
        assert out.stderr.strip().splitlines()[-1] == (
            f"linkaudit: written: report {tmp_path / 'r.json'}, HTML report {tmp_path / 'r.html'}"
        )
    pages = {"/": Route(body='<a href="/a">a</a>'), "/a": Route(body="a")}
    with TestServer(pages, conditional=True) as site:
        first = run(tmp_path, f"{site.url}/", "--delay", "0", "--db", "a.db").stdout.splitlines()[0]
        assert first.startswith("linkaudit: 0 broken links; 2 URLs, 2 pages, ")
        assert first.endswith("; complete")
        again = run(tmp_path, f"{site.url}/", "--delay", "0", "--db", "a.db").stdout.splitlines()[0]
        assert "2 URLs, 2 pages (2 not modified since the last audit)," in again, again


def test_quiet_says_nothing_on_a_clean_audit_local_builds_included(tmp_path):
    build = tmp_path / "site"
    build.mkdir()
    (build / "index.html").write_text('<a href="page.html">p</a>')
    (build / "page.html").write_text("page")
    out = run(tmp_path, str(build), "-q")
    assert (out.returncode, out.stdout, out.stderr) == (0, "", "")
    (build / "page.html").unlink()
    out = run(tmp_path, str(build), "-q")
    assert out.returncode == 1 and "1 broken link" in out.stdout


def test_links_out_of_a_build_have_a_heading_of_their_own(tmp_path):
    build = tmp_path / "site"
    build.mkdir()
    (build / "index.html").write_text('<script src="lib.js"></script>')
    (build / "lib.js").symlink_to("/usr/share/javascript/nowhere.js")
    out = run(tmp_path, str(build))
    assert "Symbolic links out of the build (1):" in out.stdout, out.stdout
    assert "Failing, not reported broken yet" not in out.stdout
