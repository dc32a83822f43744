"""The user's credentials and headers (issue 23): a password in a URL the
user gives is refused in one line that never shows it, header values HTTP
cannot carry are refused before the crawl, and no output (report, exports,
journal, database, stdout, the log at -vv) ever holds a secret of the user's."""

from __future__ import annotations

import base64
import json
import subprocess
from contextlib import ExitStack

import pytest

from tests.conftest import ROOT, check_no_fault, run_crawl
from tests.helpers.command import HANG_BOUND as BOUND
from tests.helpers.command import LINKAUDIT, refused, run
from tests.server import Route, TestServer

SECRET = "Hunter2Secret"


# -- credentials in a URL the user gives -------------------------------------------------
@pytest.mark.parametrize(
    "args",
    [
        ["{auth}/"],
        ["{url}/", "--sitemap", "{auth}/sitemap.xml"],
        ["{url}/", "--near", "{auth}/"],
        ["{auth}:99999/"],  # not a valid URL either: the error hides it as well
        ["{site}", "--root-url", "{auth}/"],  # a build directory's own address
    ],
)
def test_a_password_in_a_url_is_refused_unseen(tmp_path, server, args):
    auth = server.url.replace("://", f"://editor:{SECRET}@")
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "index.html").write_text("<p>hi</p>")
    values = {"{auth}": auth, "{url}": server.url, "{site}": str(tmp_path / "site")}
    for key, value in values.items():
        args = [a.replace(key, value) for a in args]
    out = run(tmp_path, *args, timeout=BOUND)
    line = refused(out, "editor:***@")
    assert SECRET not in out.stdout + out.stderr
    assert "--auth" in line or "not a valid URL" in line
    assert server.log == []


def test_a_password_in_a_url_from_the_file_and_scrapy_crawl(tmp_path, server):
    auth = server.url.replace("://", f"://editor:{SECRET}@")
    (tmp_path / "linkaudit.toml").write_text(f'urls = ["{auth}/"]\n')
    out = run(tmp_path, timeout=BOUND)
    refused(out, "holds a user name or password: give them with --auth")
    assert SECRET not in out.stdout + out.stderr
    crawl = run_crawl(tmp_path, "-a", f"start={auth}/", "-a", f"sitemap={auth}/s.xml")
    refused(crawl, "start: 'http://editor:***@")
    assert SECRET not in crawl.stdout + crawl.stderr and crawl.report is None
    assert server.log == []


# -- headers and credentials HTTP cannot carry ------------------------------------------
@pytest.mark.parametrize(
    ("option", "words"),
    [
        (b"--header=X-A: " + SECRET.encode() + b"\xff", "the value of 'X-A' is not UTF-8 text"),
        (b"--header=X-A: " + SECRET.encode() + b"\x01", "the value of 'X-A' holds a control"),
        (b"--header=X-A: " + SECRET.encode() + b"\x7f", "the value of 'X-A' holds a control"),
        (b"--header=X \xff: 1", "'X \\udcff' is not a header name"),
        (b"--header=" + SECRET.encode(), "header 1 has no colon"),
        (b"--auth=editor:" + SECRET.encode() + b"\xff", "auth: user:password is not Latin-1"),
        (b"--contact=web\x7fmaster@example.com", "contact: 'web\\x7fmaster@example.com' is not"),
    ],
)
def test_bytes_and_controls_in_headers_are_one_line(tmp_path, server, option, words):
    """Bytes in argv that are not UTF-8 reach Python as lone surrogates:
    before, the option was accepted and every request failed (exit 4)."""
    proc = subprocess.run(
        [LINKAUDIT.encode(), f"{server.url}/".encode(), b"--delay=0", option],
        cwd=tmp_path,
        capture_output=True,
        timeout=BOUND,
    )
    stderr = proc.stderr.decode("utf-8", "backslashreplace")
    check_no_fault(stderr)
    out = subprocess.CompletedProcess(proc.args, proc.returncode, proc.stdout.decode(), stderr)
    refused(out, words)
    assert SECRET not in stderr and server.log == []


def test_header_values_from_the_file_and_scrapy_crawl(tmp_path, server):
    (tmp_path / "linkaudit.toml").write_text('headers = { X-A = "a\\u0000b" }\n')
    refused(run(tmp_path, f"{server.url}/", timeout=BOUND), "the value of 'X-A' holds a control")
    crawl = run_crawl(
        tmp_path, "-a", f"start={server.url}/", "-a", 'headers=["X-A: a\\r\\nX-Evil: 1"]'
    )
    refused(crawl, "headers: the value of 'X-A' holds a control character")
    for setting, value in (
        ("USER_AGENT", "bot\x01"),
        ("DEFAULT_REQUEST_HEADERS", '{"X-A": "a\\nb"}'),
    ):
        crawl = run_crawl(tmp_path, "-a", f"start={server.url}/", settings={setting: value})
        refused(crawl, f"{setting}: the value")
    assert server.log == []


# -- no output holds the user's secrets --------------------------------------------------
def test_no_output_holds_a_secret_of_the_users(tmp_path):
    """--auth, --header and .netrc are sent where they belong (the servers
    require them) and appear in nothing the audit writes, at -vv."""
    auth, token, netrc_password = f"A{SECRET}", f"T{SECRET}", f"N{SECRET}"
    basic = "Basic " + base64.b64encode(f"editor:{auth}".encode()).decode()
    far_basic = "Basic " + base64.b64encode(f"api:{netrc_password}".encode()).decode()
    secrets = [auth, token, netrc_password, basic.split()[1], far_basic.split()[1]]
    with ExitStack() as stack:
        near = stack.enter_context(TestServer(host="127.0.0.1"))
        far = stack.enter_context(TestServer(host="127.0.0.2"))
        near.add("/", f'<a href="/a">a</a>\n<a href="/moved">m</a>\n<a href="{far.url}/x">x</a>')
        near.add("/a", "a")
        near.add("/moved", Route(status=301, headers={"Location": "/a"}))  # the fix list
        far.add("/x", "x")
        near.required = {"Authorization": basic, "X-Token": token}
        far.required = {"Authorization": far_basic}
        netrc = tmp_path / "netrc"
        netrc.write_text(f"machine 127.0.0.2 login api password {netrc_password}\n")
        netrc.chmod(0o600)
        out_dir = tmp_path / "out"
        out_dir.mkdir()
        proc = subprocess.run(
            [
                LINKAUDIT,
                f"{near.url}/",
                *("--delay", "0", "-vv", "--auth", f"editor:{auth}"),
                *("--header", f"X-Token: {token}"),
                *("--jsonl", "links.jsonl", "--html", "report.html"),
                *("--redirect-fixes", "fixes.csv", "--journal", "journal.jsonl"),
                *("--db", "audit.db", "--pagedir", "."),
            ],
            cwd=out_dir,
            capture_output=True,
            timeout=90,
            env={"NETRC": str(netrc), "PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)},
        )
        check_no_fault(proc.stdout.decode(), proc.stderr.decode())
        assert proc.returncode == 0, proc.stderr.decode()[-3000:]
        assert all(h.status != 401 for h in near.log + far.log)  # they were sent
        assert far.hits("/x") and len(near.log) >= 3
    outputs = {"stdout": proc.stdout, "stderr": proc.stderr}
    outputs.update({p.name: p.read_bytes() for p in out_dir.iterdir() if p.is_file()})
    assert {"linkaudit-report.json", "links.jsonl", "report.html", "audit.db"} <= set(outputs)
    assert len(proc.stderr.splitlines()) > 20  # -vv logged every request
    leaks = [(name, s) for name, data in outputs.items() for s in secrets if s.encode() in data]
    assert leaks == []


def test_a_password_in_a_pages_link_is_never_sent_nor_written(tmp_path, server, far_server):
    """Such links are excluded (LINKAUDIT_EXCLUDE_USERINFO): reported with
    the password masked (a private site's page may hold one), never requested."""
    far = far_server.url.replace("://", f"://svc:{SECRET}@")
    server.add(
        "/",
        f'<a href="{far}/x">x</a>\n<a href="{far_server.url.replace("://", "://T0K3N@")}/y">y</a>\n'
        f'<a href="ftp://f:{SECRET}@ftp.example/">f</a>\n<a href="mailto:web@example.com">m</a>',
    )
    out = run(tmp_path, f"{server.url}/", "--delay", "0", "-v", "--format", "markdown")
    assert out.returncode == 0, out.stdout + out.stderr
    report = (tmp_path / "linkaudit-report.json").read_text()
    for text in (report, out.stdout, out.stderr):
        assert SECRET not in text and "T0K3N" not in text
    urls = {u["url"]: u for u in json.loads(report)["urls"]}
    masked = [
        far_server.url.replace("://", "://svc:***@") + "/x",
        far_server.url.replace("://", "://***@") + "/y",
        "ftp://f:***@ftp.example/",
    ]
    assert {urls[u]["outcome"] for u in masked} == {"excluded"}
    assert urls["mailto:web@example.com"]["outcome"] == "excluded"
    assert far_server.log == []
