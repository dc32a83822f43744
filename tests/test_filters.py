"""What is checked, chosen by the user: --exclude, --include (which wins),
--skip-far and --accept, on the command and as spider arguments; judged
from the report and the servers' logs."""

from __future__ import annotations

import json
from contextlib import ExitStack

import pytest

from tests.conftest import run_crawl
from tests.helpers.command import run
from tests.server import Route
from tests.sitegen import audit, comparable, generated_site


@pytest.fixture
def site(server, far_server):
    far = far_server.url
    server.add(
        "/",
        "\n".join(
            [
                '<a href="/ok">ok</a>',
                '<a href="/private/secret">private</a>',
                '<a href="/forbidden">staff only</a>',
                '<a href="/docs/a">docs</a>',
                f'<a href="{far}/x">far x</a>',
                f'<a href="{far}/y">far y</a>',
            ]
        ),
    )
    server.add("/ok", "ok")
    server.add("/docs/a", "docs")
    server.add("/forbidden", Route(status=403, body="no"))
    far_server.add("/y", "y")
    return server, far_server


def _audit(tmp_path, start: str, *options: str) -> dict[str, dict]:
    """The command, nothing broken expected: the report's entries by URL."""
    out = run(tmp_path, start, "--delay", "0", *options)
    assert out.returncode == 0, out.stdout + out.stderr
    report = json.loads((tmp_path / "linkaudit-report.json").read_text())
    return {u["url"]: u for u in report["urls"]}


def test_skip_far_exclude_and_accept(tmp_path, site):
    near, far = site
    urls = _audit(
        tmp_path, f"{near.url}/", "--skip-far", "--exclude", "/private/", "--accept", "403"
    )
    assert far.log == []  # not a request, not even robots.txt
    for path in ("/x", "/y"):
        entry = urls[f"{far.url}{path}"]
        assert (entry["outcome"], entry["status"]) == ("excluded", None)
        assert "outside the site" in entry["error"]
    secret = urls[f"{near.url}/private/secret"]
    assert secret["outcome"] == "excluded" and "'/private/'" in secret["error"]
    assert not near.hits("/private/secret")
    assert (urls[f"{near.url}/forbidden"]["outcome"], urls[f"{near.url}/forbidden"]["status"]) == (
        "ok",
        403,
    )
    assert urls[f"{near.url}/ok"]["outcome"] == "ok"


def test_include_wins_over_exclude_and_narrows_the_audit(tmp_path, site):
    near, far = site
    urls = _audit(
        tmp_path,
        f"{near.url}/",
        *("--include", "/docs/", "--include", f"^{far.url}/y$", "--exclude", "docs"),
    )
    assert urls[f"{near.url}/"]["outcome"] == "ok"  # a start URL is always checked
    assert urls[f"{near.url}/docs/a"]["outcome"] == "ok"  # included, though excluded too
    assert urls[f"{far.url}/y"]["outcome"] == "ok"
    for url in (f"{near.url}/ok", f"{far.url}/x", f"{near.url}/forbidden"):
        assert urls[url]["outcome"] == "excluded", url
        assert "no LINKAUDIT_INCLUDE pattern" in urls[url]["error"]
    assert not near.hits("/ok") and not far.hits("/x")
    assert far.hits("/y")


def test_spider_arguments(tmp_path, site):
    near, far = site
    crawl = run_crawl(
        tmp_path,
        "-a",
        f"start={near.url}/",
        "-a",
        "skip_far=true",
        "-a",
        "exclude=/private/",
        "-a",
        "accept=403",
    )
    assert crawl.returncode == 0, crawl.stderr[-2000:]
    assert far.log == []
    assert crawl.url(f"{far.url}/x")["outcome"] == "excluded"
    assert crawl.url(f"{near.url}/private/secret")["outcome"] == "excluded"
    assert crawl.url(f"{near.url}/forbidden")["outcome"] == "ok"


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("--exclude", "("), "exclude: '(' is not a regular expression"),
        (("--include", "[a"), "include: '[a' is not a regular expression"),
        (("--accept", "403,abc"), "accept: 'abc' is not an HTTP status"),
    ],
)
def test_bad_filters_are_one_line(tmp_path, server, args, words):
    out = run(tmp_path, f"{server.url}/", *args)
    assert out.returncode == 2
    assert words in out.stderr and len(out.stderr.strip().splitlines()) == 1, out.stderr
    assert server.log == []


def test_skip_far_on_the_generated_site_leaves_the_site_as_it_was(tmp_path):
    """On a site with everything (redirect chains into the far origin,
    binaries, robots rules, a 429): the near URLs come out as in the plain
    audit, every far URL is excluded, the far origin gets no request."""
    with ExitStack() as stack:
        site = generated_site(stack, tmp_path / "site")
        plain = comparable(audit(site, tmp_path / "plain"))
        skipping = audit(site, tmp_path / "skip", "--skip-far")
        assert site.far.log == []
        got = comparable(skipping)
        assert set(got) == set(plain)
        far = [url for url in plain if not url.startswith(site.near.url)]
        assert far and all(got[url][:2] == ("excluded", None) for url in far)
        assert {u: got[u] for u in plain if u not in far} == {
            u: plain[u] for u in plain if u not in far
        }
