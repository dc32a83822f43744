"""The pure rules of --render: when a page is rendered, how a link only
in the DOM and a script's navigation are written in the report, a render's
section; and what --render asks of the machine before any request."""

from __future__ import annotations

import importlib.util
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
