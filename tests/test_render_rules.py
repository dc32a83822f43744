"""The pure rules of --render: when a page is rendered, how a link only
in the DOM and a script's navigation are written in the report, a render's
section; and what --render asks of the machine before any request."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from linkaudit.config.rendering import check_browser, find_browser
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
