"""Pages built by JavaScript: a page whose server HTML looks like an app
shell is named in the report (its links exist only once scripts run, and
were not checked); no page of real documentation sets is, and the shells
the frameworks' starter pages send are."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from linkaudit.rules.appshell import looks_like_app_shell
from tests.conftest import validate
from tests.helpers.command import run
from tests.helpers.cost import GROWTH, GROWTH_BOUND, least_cpu
from tests.server import Route

DOC_SETS = (
    "/usr/share/doc/python3.11/html",
    "/usr/share/doc/postgresql-doc-15/html",
    "/usr/share/gtk-doc/html/gio",
)
TEXT = " ".join(f"word{i} lorem ipsum dolor sit amet" for i in range(30))
SHELLS = {
    "react": (
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>React App</title>'
        '<script defer="defer" src="/static/js/main.8c1e2a.js"></script></head><body>'
        "<noscript>You need to enable JavaScript to run this app.</noscript>"
        '<div id="root"></div></body></html>'
    ),
    "vue": (
        '<!DOCTYPE html><html lang=""><head><link href=/js/app.4f2.js rel=preload as=script>'
        "</head><body><div id=app></div><script src=/js/chunk-vendors.9a1.js></script>"
        "<script src=/js/app.4f2.js></script></body></html>"
    ),
    "angular": (
        '<!doctype html><html lang="en"><head><base href="/"></head><body>'
        "<app-root>Loading...</app-root>"
        '<script src="runtime.js" type="module"></script>'
        '<script src="main.js" type="module"></script></body></html>'
    ),
    "noscript": (
        "<!DOCTYPE html><title>Dashboard</title><noscript>This site requires JavaScript:"
        ' please turn it on.</noscript><div class="mount"><p>Welcome</p></div>'
        '<script src="/bundle.js"></script>'
    ),
    "upper case": (
        '<!DOCTYPE HTML><HTML><BODY><DIV ID="__next"></DIV>'
        '<SCRIPT SRC="/_next/static/chunks/main.js"></SCRIPT></BODY></HTML>'
    ),
    "thin": (
        '<!DOCTYPE html><title>App</title><div class="shell"><a href="/">Home</a></div>'
        '<script src="/assets/index.js"></script>'
    ),
}


@pytest.mark.parametrize("name", sorted(SHELLS))
def test_the_test_apps_are_named(name):
    assert looks_like_app_shell(SHELLS[name]) is not None


def test_pages_with_content_are_not():
    normal = f'<!DOCTYPE html><title>About</title><script src="/a.js"></script><p>{TEXT}</p>'
    assert looks_like_app_shell(normal) is None
    assert looks_like_app_shell('<div id="root"></div><p>no script</p>') is None
    # a mount element with the page in it, or a data-id: not empty, not a mount
    assert looks_like_app_shell(f'<div id="root"><p>{TEXT}</p></div><script></script>') is None
    links = "".join(f'<a href="/p{i}">p{i}</a>' for i in range(12))
    assert looks_like_app_shell(f'<div id="app"></div><script src="x.js"></script>{links}') is None
    disqus = "<noscript>Please enable JavaScript to view the comments.</noscript>"
    assert looks_like_app_shell(f"<script src=x.js></script>{disqus}{links}<p>{TEXT}</p>") is None
    assert "<app-root>" in looks_like_app_shell(SHELLS["angular"])
    assert 'an empty <div id="app"> and 2 scripts' == looks_like_app_shell(SHELLS["vue"])


HOSTILE = {  # starts without ends, each n times: the ways a search could go back
    "mount ids in one tag": "<script><div " + " id=root" * 4,
    "open mount tags": "<script>" + "<div id=app " * 4,
    "app-root without end": "<script>" + "<app-root x " * 4,
    "noscripts asking": "<script>" + "<noscript>enable the " * 4,
    "script starts": "<script" * 4,
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_the_cost_grows_linearly(name):
    small, large = HOSTILE[name] * 2000, HOSTILE[name] * 2000 * GROWTH
    looks_like_app_shell(large)  # warm up
    ratio = least_cpu(lambda: looks_like_app_shell(large)) / max(
        least_cpu(lambda: looks_like_app_shell(small)), 1e-4
    )
    assert ratio < GROWTH_BOUND, f"{name}: {GROWTH}x the input cost {ratio:.1f}x the CPU"


@pytest.mark.parametrize("directory", DOC_SETS)
def test_no_page_of_the_doc_sets_is_named(directory):
    pages = sorted(Path(directory).rglob("*.htm*"))
    if not pages:
        pytest.skip(f"{directory} is not installed (tests/setup.sh installs it)")
    named = []
    for page in pages:
        reason = looks_like_app_shell(page.read_bytes().decode("utf-8", "replace"))
        if reason is not None:
            named.append((str(page), reason))
    assert named == []


def test_an_audit_names_the_shell_page_only(tmp_path, server):
    server.add(
        "/",
        f'<!DOCTYPE html><title>Home</title><p>{TEXT}</p><a href="/app/">app</a>'
        '<a href="/about">about</a><script src="/site.js"></script>',
    )
    server.add("/about", f"<!DOCTYPE html><title>About</title><p>{TEXT}</p>")
    server.add("/app/", SHELLS["react"])
    server.add("/static/js/main.8c1e2a.js", Route(200, "console.log(1)", "text/javascript"))
    server.add("/site.js", Route(200, "console.log(2)", "text/javascript"))
    n = server.url
    out = run(tmp_path, f"{n}/", "--delay", "0")
    assert out.returncode == 0, out.stderr  # a notice, not a broken link
    report = json.loads((tmp_path / "linkaudit-report.json").read_text())
    validate(report)
    assert report["summary"]["app_shells"] == 1
    named = {u["url"]: u["app_shell"] for u in report["urls"] if u.get("app_shell")}
    assert named == {f"{n}/app/": 'an empty <div id="root"> and 1 script'}
    lines = out.stdout.splitlines()
    at = lines.index("1 page looks built by JavaScript; its links were not checked: --render auto")
    assert lines[at + 1] == f'  {n}/app/  [an empty <div id="root"> and 1 script]'
    assert f"{n}/about" not in out.stdout
    markdown = run(tmp_path, f"{n}/", "--delay", "0", "--format", "markdown").stdout
    assert "#### 1 page looks built by JavaScript" in markdown and f"{n}/app/" in markdown
    html = run(tmp_path, f"{n}/", "--delay", "0", "--format", "html").stdout
    assert "1 page looks built by JavaScript" in html and "&lt;div id=&quot;root&quot;&gt;" in html
    junit = run(tmp_path, f"{n}/", "--delay", "0", "--format", "junit").stdout
    suite = ET.fromstring(junit).find("testsuite[@name='built by JavaScript']")
    (case,) = suite.findall("testcase")
    skipped = case.find("skipped")
    assert (
        skipped.get("message").endswith("not checked: --render auto")
        and f"{n}/app/" in skipped.text
    )
    sarif = json.loads(run(tmp_path, f"{n}/", "--delay", "0", "--format", "sarif").stdout)
    (note,) = [r for r in sarif["runs"][0]["results"] if r["ruleId"] == "app-shell"]
    assert note["level"] == "note" and "--render auto" in note["message"]["text"]
    assert note["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == f"{n}/app/"


def test_a_local_build_names_it_too(tmp_path):
    site = tmp_path / "site"
    (site / "app").mkdir(parents=True)
    (site / "index.html").write_text(
        f'<!DOCTYPE html><title>Home</title><p>{TEXT}</p><a href="app/">app</a>'
        '<a href="about.html">about</a>'
    )
    (site / "about.html").write_text(f"<!DOCTYPE html><title>About</title><p>{TEXT}</p>")
    (site / "app" / "index.html").write_text(SHELLS["angular"].replace('src="', 'src="/app/'))
    (site / "app" / "runtime.js").write_text("1")
    (site / "app" / "main.js").write_text("2")
    out = run(tmp_path, str(site))
    assert out.returncode == 0, out.stderr
    report = json.loads((tmp_path / "linkaudit-report.json").read_text())
    validate(report)
    assert report["summary"]["app_shells"] == 1
    named = [
        (u["url"].rsplit("/", 2)[-2:], u["app_shell"]) for u in report["urls"] if u.get("app_shell")
    ]
    assert named == [(["app", ""], "an empty <app-root> and 2 scripts")]
    assert "1 page looks built by JavaScript" in out.stdout


def test_what_a_page_says_reaches_every_format_escaped():
    from linkaudit.output.formats import FORMATS

    said = "enable JavaScript \x1b[31m<img src=x onerror=alert(1)>\u202e"
    page = f'<script src="/a.js"></script><noscript>{said}</noscript>'
    assert looks_like_app_shell(page) == "<noscript> says 'enable JavaScript \\x1b[31m'"
    reason = "<img src=x onerror=alert(1)> \x1b[31m \u202e"  # as a report read back may hold
    url = {"url": "http://h/app/", "near": True, "outcome": "ok", "status": 200, "error": None}
    url.update(method="GET", content_type="text/html", location=None, depth=0)
    url.update(referrer_count=0, referrers=[], app_shell=reason)
    report = {
        "version": 1,
        "start_urls": ["http://h/"],
        "near_prefixes": ["http://h/"],
        "started_at": "2026-01-01T00:00:00+00:00",
        "finished_at": "2026-01-01T00:00:01+00:00",
        "finish_reason": "finished",
        "complete": True,
        "summary": {"urls": 1, "pages": 1, "requests": 1, "ok": 1, "redirect": 0, "broken": 0}
        | {"blocked": 0, "excluded": 0, "unchecked": 0, "backoffs": 0, "pauses": 0}
        | {"retries": 0, "app_shells": 1},
        "urls": [url],
    }
    validate(report)
    for name in ("text", "markdown", "html"):
        out = FORMATS[name](report)
        assert "1 page looks built by JavaScript" in out, name
        assert "\x1b" not in out and "\u202e" not in out, name
        if name == "html":
            assert "<img src=x" not in out
