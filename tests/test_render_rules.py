"""The pure rules of --render: when a page is rendered, how a link only
in the DOM and a script's navigation are written in the report, a render's
section; and what --render asks of the machine before any request."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import socket
import sys
from pathlib import Path

import pytest
from scrapy.utils.test import get_crawler

from linkaudit import settings as default_settings
from linkaudit.config.rendering import check_browser, find_browser
from linkaudit.rendering.reach import Reach, address_kind
from linkaudit.rules.appshell import looks_like_app_shell
from linkaudit.rules.rendered import (
    LISTED,
    NAVIGATION_LINE,
    RENDERED_LINE,
    RenderFacts,
    referrer_fields,
    render_section,
    should_render,
    source_line,
)
from linkaudit.signals import robots_asked
from tests.conftest import validate
from tests.helpers.command import run
from tests.helpers.jsapp import LOOP_EARLY_SHELL, SHELL

ROOT = Path(__file__).resolve().parent.parent


def _bench_shell() -> str:
    spec = importlib.util.spec_from_file_location("bench_jsapp", ROOT / "bench" / "jsapp.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_jsapp"] = module
    spec.loader.exec_module(module)
    return module.SHELL


def test_every_page_of_the_test_apps_is_rendered_in_auto():
    for html in (SHELL, LOOP_EARLY_SHELL, _bench_shell()):
        shell = looks_like_app_shell(html)
        assert shell is not None, html
        assert should_render("auto", shell) and should_render("always", shell)
        assert not should_render("never", shell)


def test_always_renders_a_plain_page_and_auto_does_not():
    plain = looks_like_app_shell("<!doctype html><title>Doc</title><p>Words</p><a href=a>a</a>")
    assert plain is None
    assert should_render("always", plain) and not should_render("auto", plain)


def test_a_link_only_in_the_dom_has_no_line_and_says_rendered():
    assert referrer_fields("http://h/", 12) == {"url": "http://h/", "line": 12}
    assert referrer_fields("http://h/", None) == {"url": "http://h/", "line": None}
    assert referrer_fields("http://h/", RENDERED_LINE) == {
        "url": "http://h/",
        "line": None,
        "rendered": True,
    }
    assert referrer_fields("http://h/", NAVIGATION_LINE) == {
        "url": "http://h/",
        "line": None,
        "rendered": True,
        "navigation": True,
    }
    assert [source_line(n) for n in (3, None, RENDERED_LINE, NAVIGATION_LINE)] == [
        3,
        None,
        None,
        None,
    ]


def test_a_section_lists_at_most_its_share_and_counts_all():
    added = [f"http://h/{n}" for n in range(LISTED + 50)]
    facts = RenderFacts(requests=4, refused=2, settled=True, seconds=1.23456, windows=1)
    section = render_section(facts, added, ["http://h/old"], ["http://h/next"])
    assert section["added"] == added[:LISTED] and section["added_count"] == LISTED + 50
    assert section["removed"] == ["http://h/old"] and section["removed_count"] == 1
    assert section["navigations"] == ["http://h/next"]
    assert (section["requests"], section["refused"], section["settled"]) == (4, 2, True)
    assert section["seconds"] == 1.235 and section["windows_closed"] == 1
    assert "dialogs_dismissed" not in section


def test_the_browser_is_found_and_checked(tmp_path):
    assert Path(find_browser("")).name.startswith(("chromium", "google-chrome"))
    check_browser(find_browser(""))  # Debian's chromium answers --version
    with pytest.raises(ValueError, match="apt install chromium"):
        find_browser(str(tmp_path / "nothing"))
    with pytest.raises(ValueError, match="is not a Chromium"):
        check_browser("/bin/true")


@pytest.mark.parametrize(
    "args, words",
    [
        (["--browser", "/bin/echo"], "browser: /bin/echo is not a Chromium"),
        (["--render", "sometimes"], "render: 'sometimes' is not one of never, auto, always"),
    ],
)
def test_render_without_a_usable_browser_is_one_line(tmp_path, args, words):
    argv = ["http://127.0.0.1:9/"] + (["--render", "auto"] if "--render" not in args else []) + args
    out = run(tmp_path, *argv)
    assert out.returncode == 2
    assert out.stderr.splitlines() == [out.stderr.strip()] and words in out.stderr
    assert "Traceback" not in out.stderr
    assert not (tmp_path / "linkaudit-report.json").exists()


# A redirect page (jekyll-redirect-from's, a host's "moved" page): it
# navigates by script at once and its link is read, so it is no app shell
JEKYLL_REDIRECT = (
    '<!DOCTYPE html><html lang="en-US"><meta charset="utf-8"><title>Redirecting&hellip;</title>'
    '<link rel="canonical" href="/new/"><script>location="/new/"</script>'
    '<meta http-equiv="refresh" content="0; url=/new/"><meta name="robots" content="noindex">'
    '<h1>Redirecting&hellip;</h1><a href="/new/">Click here if you are not redirected.</a></html>'
)


def moved(target: str) -> str:
    return (
        "<!doctype html><title>Moved</title>"
        f'<script>window.location.replace("{target}");</script>'
        f'<p>This page has moved: <a href="{target}">here</a>.</p>'
    )


def test_a_page_that_redirects_by_script_with_its_link_read_is_no_shell():
    assert looks_like_app_shell(JEKYLL_REDIRECT) is None
    assert looks_like_app_shell(moved("/new/")) is None
    refresh_only = '<meta content="0;URL=/new/" http-equiv="Refresh"><script src="/a.js"></script>'
    assert looks_like_app_shell(refresh_only) is None  # the refresh is the link read
    for navigation in (
        "location.href = '/n'",
        "document.location.assign('/n')",
        "top.location='/n'",
    ):
        page = f'<title>M</title><script>{navigation}</script><a href="/n">n</a>'
        assert looks_like_app_shell(page) is None, navigation
    # a script that only reads location, a refresh without a URL, or a
    # navigation with no link to read: still named
    reads = '<title>M</title><script>if (location == "x") go();</script><a href="/n">n</a>'
    assert looks_like_app_shell(reads) is not None
    reload = (
        '<meta http-equiv="refresh" content="300"><div id="root"></div><script src=a.js></script>'
    )
    assert looks_like_app_shell(reload) is not None
    unread = '<title>M</title><script>location.replace("/n")</script><p>Moved.</p>'
    assert looks_like_app_shell(unread) is not None
    assert looks_like_app_shell('<title>M</title><a href="/n">n</a><script src=a.js></script>')


@pytest.mark.parametrize("mode", ["never", "auto"])
def test_an_audit_reads_a_script_redirect_and_does_not_name_it(tmp_path, server, mode):
    """Its link is checked (a broken target is found), the page is not
    "built by JavaScript; its links were not checked", and auto starts no
    browser for it."""
    server.add(
        "/", '<title>Home</title><p>Home</p><a href="/old/">old</a><a href="/gone-old/">g</a>'
    )
    server.add("/old/", JEKYLL_REDIRECT)
    server.add("/gone-old/", moved("/gone/"))
    server.add("/new/", "<title>New</title><p>The new page.</p>")
    out = run(tmp_path, f"{server.url}/", "--delay", "0", "--render", mode, "-v")
    assert out.returncode == 1, out.stdout + out.stderr  # /gone/ is a 404: the link was read
    report = json.loads((tmp_path / "linkaudit-report.json").read_text())
    validate(report)
    summary = report["summary"]
    assert summary.get("app_shells", 0) == 0 and summary.get("rendered_pages", 0) == 0
    assert not [u["url"] for u in report["urls"] if u.get("app_shell")]
    broken = {u["url"] for u in report["urls"] if u["outcome"] == "broken"}
    assert broken == {f"{server.url}/gone/"}
    assert "built by JavaScript" not in out.stdout
    assert "Browser started" not in out.stderr


# What the browser may reach (rendering/reach.py) -----------------------------
def _reach(*starts: str, **settings) -> Reach:
    values = {k: getattr(default_settings, k) for k in dir(default_settings) if k.isupper()}
    values.update(LINKAUDIT_START=list(starts), **settings)
    return Reach(get_crawler(settings_dict=values))


def _refusals(reach: Reach, *urls: str, method: str = "GET", body: bool = False) -> list:
    async def each() -> list:
        return [await reach._refusal(url, method, body) for url in urls]

    return asyncio.run(each())


@pytest.mark.parametrize(
    "address, kind",
    [
        ("127.0.0.1", "loopback"),
        ("127.8.9.10", "loopback"),
        ("::1", "loopback"),
        ("0.0.0.0", "loopback"),  # reaches the machine itself
        ("::ffff:127.0.0.1", "loopback"),
        ("169.254.169.254", "link-local"),  # a cloud's metadata service
        ("fe80::1%eth0", "link-local"),
        ("10.1.2.3", "private"),
        ("172.16.0.1", "private"),
        ("192.168.1.1", "private"),
        ("100.64.0.1", "private"),  # shared address space: not public
        ("fd00::1", "private"),
        ("224.0.0.1", "reserved"),
        ("93.184.216.34", "public"),
        ("2606:4700::1", "public"),
    ],
)
def test_address_kinds(address, kind):
    assert address_kind(address) == kind


def test_a_local_address_is_reached_only_when_it_is_the_sites():
    here = "a loopback address, not the site's"
    public = _reach("http://93.184.216.34/")
    assert _refusals(
        public,
        "http://93.184.216.34/app.js",
        "http://8.8.8.8/lib.js",
        "http://10.0.0.6/api",
        "http://127.0.0.1:9/secret",
        "http://[::1]:9/",
        "http://169.254.169.254/latest/meta-data/",
    ) == [
        None,
        None,
        "a private address, not the site's (--near adds an origin to the site)",
        f"{here} (--near adds an origin to the site)",
        f"{here} (--near adds an origin to the site)",
        "a link-local address, not the site's (--near adds an origin to the site)",
    ]
    # a site on a private network: its network's other hosts are allowed,
    # never the machine's own services nor link-local ones
    intranet = _reach("http://10.0.0.5/")
    refused = _refusals(
        intranet, "http://10.0.0.6/api", "http://127.0.0.1:9/", "http://169.254.169.254/"
    )
    assert refused[0] is None and refused[1].startswith(here) and "link-local" in refused[2]
    # a site on loopback: its own origin, and the other local hosts (a test's
    # CDN on 127.0.0.2, listening there only); never another port of its own
    # address, which is another program of the machine that serves it, by any
    # name or form, nor a service bound to every address (0.0.0.0), which
    # answers on 127.0.0.2 as on the site's own 127.0.0.1
    with (
        socket.create_server(("127.0.0.2", 0)) as cdn,
        socket.create_server(("0.0.0.0", 0)) as everywhere,
    ):
        cdn_port, all_port = cdn.getsockname()[1], everywhere.getsockname()[1]
        local = _reach("http://127.0.0.1:8000/docs/")
        refused = _refusals(
            local,
            "http://127.0.0.1:8000/static/app.js",
            f"http://127.0.0.2:{cdn_port}/data.json",
            f"http://127.0.0.2:{all_port}/secret",
        )
    assert refused[:2] == [None, None], refused
    assert refused[2].startswith("another port of the site's own address (it answers there too)")
    local = _reach("http://127.0.0.1:8000/docs/")
    refused = _refusals(
        local,
        "http://127.0.0.1:8000/static/app.js",
        "http://127.0.0.1:8000/static/app.js",
        "http://127.0.0.1:8001/x",
        "http://localhost:6379/",
        "http://[::1]:6379/",
        "http://[::ffff:127.0.0.1]:6379/",
        "http://0.0.0.0:6379/",
        "http://169.254.169.254/",
    )
    assert refused[:2] == [None, None], refused
    other_port = "another port of the site's own address, not the site's"
    assert all(r.startswith(other_port) for r in refused[2:7]), refused
    assert "link-local" in refused[7]
    # --near makes an origin the site's own
    near = _reach(
        "http://127.0.0.1:8000/",
        LINKAUDIT_NEAR=["http://127.0.0.1:8000/", "http://127.0.0.1:3000/"],
    )
    assert _refusals(near, "http://127.0.0.1:3000/api") == [None]


def test_the_browser_sends_what_the_audit_would():
    reach = _reach(
        "http://93.184.216.34/app/",
        LINKAUDIT_EXCLUDE=["tracker", "/app/keep"],
        LINKAUDIT_INCLUDE=["/app/keep"],
        LINKAUDIT_SKIP_FAR=True,
    )
    assert _refusals(reach, "http://93.184.216.34/app/x", method="POST") == [
        "a POST request (a render sends only GET and HEAD)"
    ]
    assert _refusals(reach, "http://93.184.216.34/app/x", body=True) == [
        "a request with a body (a render sends none)"
    ]
    refused = _refusals(
        reach,
        "http://93.184.216.34/app/tracker.js",
        "http://8.8.8.8/lib.js",
        "http://93.184.216.34/app/keep/x",  # --include wins over --exclude, as for links
        "http://93.184.216.34/app/data.json",  # --include does not narrow a page's needs
        "http://user:pw@93.184.216.34/app/",
    )
    assert refused[0] == "Excluded: matches LINKAUDIT_EXCLUDE pattern 'tracker'"
    assert refused[1] == "Excluded: outside the site, not requested (LINKAUDIT_SKIP_FAR)"
    assert refused[2:4] == [None, None]
    assert refused[4].startswith("Excluded: URL has user info")


def test_a_render_asks_a_bounded_number_of_hosts_and_only_an_answer_allows():
    reach = _reach("http://93.184.216.34/", LINKAUDIT_RENDER_HOSTS=2)
    answers: dict[str, object] = {}

    async def robots(url: str) -> object:
        answer = answers.get(url.split("/")[2])
        if isinstance(answer, Exception):
            raise answer
        return answer

    reach.crawler.signals.connect(robots, signal=robots_asked)

    async def render() -> list:
        hosts: set[str] = set()
        urls = ["http://93.184.216.34/a", "http://8.8.8.8/b", "http://8.8.4.4/c"]
        return [await reach.admit(url, "GET", False, hosts) for url in urls]

    answers.update({"93.184.216.34": True, "8.8.8.8": True})
    assert asyncio.run(render())[:2] == [None, None]
    assert (
        asyncio.run(render())[2]
        == "more than 2 hosts asked for by one page (LINKAUDIT_RENDER_HOSTS)"
    )
    # no answer (a robots.txt that could not be fetched), or a fault of ours: refused
    for answer in (None, False, OSError(24, "Too many open files")):
        answers["8.8.8.8"] = answer
        reach.answered.clear()
        assert asyncio.run(render())[1] == "robots.txt", answer
