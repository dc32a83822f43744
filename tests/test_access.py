"""A site behind a password: --header, --auth and .netrc reach the site's
own hosts and never a far one (asserted on the far server's log, robots.txt
included); --header-host widens it; --cookie-jar sends a session cookie."""

from __future__ import annotations

import base64
import json
from contextlib import ExitStack

import pytest

from tests.conftest import run_crawl
from tests.helpers.command import run
from tests.server import TestServer

AUTH = "Basic " + base64.b64encode(b"editor:pa:ss").decode()


@pytest.fixture
def hosts():
    """A near site behind a password, a far host (127.0.0.2) and a partner
    host (127.0.0.3) that the user trusts with the credentials."""
    with ExitStack() as stack:
        near, far, partner = (
            stack.enter_context(TestServer(host=host))
            for host in ("127.0.0.1", "127.0.0.2", "127.0.0.3")
        )
        near.add(
            "/",
            "\n".join(
                [
                    '<a href="/inside">inside</a>',
                    f'<a href="{far.url}/out">far</a>',
                    f'<a href="{partner.url}/api">partner</a>',
                ]
            ),
        )
        near.add("/inside", "inside")
        far.add("/out", "out")
        partner.add("/api", "api")
        yield near, far, partner


def _report(tmp_path) -> dict[str, dict]:
    report = json.loads((tmp_path / "linkaudit-report.json").read_text())
    return {u["url"]: u for u in report["urls"]}


def _secrets(hit) -> set[str]:
    return {k.lower() for k in hit.headers} & {"authorization", "x-token", "cookie"}


def test_header_and_auth_reach_near_hosts_and_never_far(tmp_path, hosts):
    near, far, partner = hosts
    near.required = {"Authorization": AUTH, "X-Token": "s3cret, really"}
    partner.required = dict(near.required)
    out = run(
        tmp_path,
        f"{near.url}/",
        *("--delay", "0", "--auth", "editor:pa:ss", "--header", "X-Token: s3cret, really"),
        *("--header-host", "127.0.0.3"),
    )
    assert out.returncode == 0, out.stdout + out.stderr
    urls = _report(tmp_path)
    assert {u["outcome"] for u in urls.values()} == {"ok"}
    assert {h.path for h in near.log} >= {"/robots.txt", "/", "/inside"}
    assert all(h.status != 401 for h in near.log + partner.log)
    assert {h.path for h in far.log} == {"/robots.txt", "/out"}
    assert [h for h in far.log if _secrets(h)] == []


def test_without_credentials_the_site_answers_401(tmp_path, hosts):
    near, _far, _partner = hosts
    near.required = {"Authorization": AUTH}
    out = run(tmp_path, f"{near.url}/", "--delay", "0")
    assert out.returncode == 1
    assert _report(tmp_path)[f"{near.url}/"]["status"] == 401


def test_netrc_names_the_host_and_spider_arguments(tmp_path, hosts, monkeypatch):
    near, far, partner = hosts
    near.required = {"Authorization": AUTH}
    partner.required = {"Authorization": "Basic " + base64.b64encode(b"api:key").decode()}
    netrc = tmp_path / "netrc"
    netrc.write_text(
        "machine 127.0.0.1 login editor password pa:ss\nmachine 127.0.0.3\n"
        "  login api password key\n"
    )
    netrc.chmod(0o600)
    crawl = run_crawl(
        tmp_path, "-a", f"start={near.url}/", "-a", "headers=X-Trace: 1", env={"NETRC": str(netrc)}
    )
    assert crawl.returncode == 0, crawl.stderr
    assert all(h.status != 401 for h in near.log + partner.log)
    assert [h for h in far.log if _secrets(h) or "X-Trace" in h.headers] == []
    assert all(h.headers.get("X-Trace") == "1" for h in near.log)
    assert not any("X-Trace" in h.headers for h in partner.log)  # netrc: auth only


def test_cookie_jar_sends_the_session_cookie_where_its_domain_says(tmp_path, hosts):
    near, far, _partner = hosts
    near.required = {"Cookie": "session=abc123"}
    jar = tmp_path / "cookies.txt"
    jar.write_text(
        "# Netscape HTTP Cookie File\n"
        "127.0.0.1\tFALSE\t/\tFALSE\t0\tsession\tabc123\n"  # 0: a session cookie
        "127.0.0.1\tFALSE\t/\tFALSE\t1\told\texpired\n"
    )
    out = run(tmp_path, f"{near.url}/", "--delay", "0", "--cookie-jar", str(jar))
    assert out.returncode == 0, out.stdout + out.stderr
    assert all(h.status == 200 for h in near.log if h.path != "/robots.txt")
    assert all(h.headers.get("Cookie") == "session=abc123" for h in near.log)
    assert [h for h in far.log if _secrets(h)] == []


@pytest.mark.parametrize(
    ("options", "words"),
    [
        (("--auth", "nopassword"), "auth: is not user:password"),
        (("--header", "no colon"), "headers: header 1 has no colon: give Name: Value"),
        (("--cookie-jar", "missing.txt"), "cookie_jar: 'missing.txt' is not a readable"),
    ],
)
def test_bad_access_options_are_one_line(tmp_path, server, options, words):
    out = run(tmp_path, f"{server.url}/", *options)
    assert out.returncode == 2
    assert out.stderr.strip().count("\n") == 0 and words in out.stderr, out.stderr
    assert server.log == []


def test_a_broken_netrc_is_one_line(tmp_path, server):
    netrc = tmp_path / "netrc"
    netrc.write_text("machine\n")
    out = run_crawl(tmp_path, "-a", f"start={server.url}/", env={"NETRC": str(netrc)})
    assert out.returncode != 0 and server.log == [] and out.report is None
    assert f"{netrc}: " in out.stderr
