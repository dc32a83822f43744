"""Soft 404s (issue 17): a site whose missing pages answer 200 with an
error page is caught by one probe per host and directory pattern; a site
with real 404s has nothing flagged; a page whose title says not found is
one, a page that only mentions it in its text is not.  Probes are requests
(counted, robots.txt obeyed) and never links of the report."""

from __future__ import annotations

import json

import pytest

from linkaudit.rules.soft404 import (
    fingerprint,
    is_probe,
    pattern_of,
    probe_url,
    resemblance,
    says_not_found,
)
from tests.conftest import run_crawl, validate
from tests.helpers.command import run
from tests.server import Route

TEXT = " ".join(f"word{i} lorem ipsum dolor sit amet" for i in range(60))
ERROR_PAGE = (
    "<!DOCTYPE html><title>Acme</title><h1>Oops</h1><p>We looked everywhere and could not"
    " find what you asked for. Try the search box, or start again from the home page of"
    " the Acme company, makers of fine anvils since 1949.</p>"
)


def test_patterns_probes_and_fingerprints():
    assert pattern_of("http://h/blog/post-1.html?x=1") == "http://h/blog/*.html"
    assert pattern_of("http://h/") == pattern_of("http://h/about") == "http://h/*"
    probe = probe_url("http://h/blog/*.html", "http://h/")
    assert probe.startswith("http://h/blog/linkaudit-probe-") and probe.endswith(".html")
    assert probe == probe_url("http://h/blog/*.html", "http://h/")  # every worker agrees
    assert is_probe(probe) and not is_probe("http://h/blog/linkaudit-probe-notes.html")
    a = fingerprint(f"<p>{TEXT}</p>")
    assert resemblance(a, fingerprint(f"<p>{TEXT}</p><script>x()</script>")) == 1.0
    assert resemblance(a, fingerprint("<p>something else entirely, about other things</p>")) < 0.2
    assert says_not_found("<title>Page not found | Acme</title>") == "Page not found | Acme"
    assert says_not_found("<title>Acme</title><h1>Error 404</h1>") == "Error 404"
    assert says_not_found("<h1>404 - gone</h1>") == "404 - gone"
    assert says_not_found("<title>Not found errors explained</title>") is not None
    assert says_not_found("<title>Acme</title><p>page not found</p>") is None


def _pages(server, robots: str = "") -> None:
    if robots:
        server.add("/robots.txt", Route(200, robots, "text/plain"))
    server.add(
        "/",
        "<!DOCTYPE html><title>Home</title>\n"
        + "\n".join(
            f'<a href="{p}">{p}</a>'
            for p in ("/about", "/notes", "/blog/post-1.html", "/blog/post-9.html", "/old-page")
        )
        + '\n<a href="/gone">gone</a>',
    )
    server.add("/about", f"<!DOCTYPE html><title>About</title><p>{TEXT}</p>")
    server.add(
        "/notes",
        "<!DOCTYPE html><title>Notes</title><p>When a file is not found, Python raises "
        "FileNotFoundError: a page not found is an error.</p>",
    )
    server.add("/blog/post-1.html", f"<!DOCTYPE html><title>Post</title><p>{TEXT} post</p>")


@pytest.fixture
def soft_site(server):
    _pages(server)
    server.missing = Route(200, ERROR_PAGE)  # every unknown path: the error page, 200
    server.add("/gone", "<!DOCTYPE html><title>Page not found</title><p>Sorry.</p>")
    return server


def test_a_soft_404_site_is_caught(tmp_path, soft_site):
    n = soft_site.url
    out = run(tmp_path, f"{n}/", "--delay", "0", "--soft-404-probes")
    assert out.returncode == 0, out.stderr  # warnings, not broken links
    report = json.loads((tmp_path / "linkaudit-report.json").read_text())
    validate(report)
    soft = {u["url"][len(n) :]: u for u in report["urls"] if u.get("soft_404")}
    assert set(soft) == {"/blog/post-9.html", "/old-page", "/gone"}
    assert all(u["outcome"] == "ok" and u["warning"].startswith("soft 404") for u in soft.values())
    assert "says 'Page not found'" in soft["/gone"]["warning"]
    assert report["summary"]["soft_404"] == 3
    # one probe per host and pattern (/*, /blog/*.html), counted, never a link
    probes = [h.path for h in soft_site.log if "linkaudit-probe-" in h.path]
    assert sorted(p.split("linkaudit-probe-")[0] for p in probes) == ["/", "/blog/"]
    assert report["summary"]["requests"] == len(soft_site.log)
    assert not [u for u in report["urls"] if "linkaudit-probe-" in u["url"]]
    assert report["summary"]["urls"] == len(report["urls"])
    assert "Soft 404s, pages that answer 200 but are error pages (3):" in out.stdout
    # the same from scrapy crawl; as errors when asked
    probes = ("-a", "soft_404_probes=true")
    crawl = run_crawl(tmp_path, "-a", f"start={n}/", "-a", "soft_404=error", *probes)
    errors = run(tmp_path, f"{n}/", "--delay", "0", "--soft-404", "error", "--soft-404-probes")
    assert errors.returncode == 1
    broken = {u["url"][len(n) :] for u in crawl.report["urls"] if u["outcome"] == "broken"}
    assert broken == set(soft)
    assert all(u["soft_404"] for u in crawl.report["urls"] if u["outcome"] == "broken")
    # off: no probe at all
    soft_site.log.clear()
    out = run(tmp_path, f"{n}/", "--delay", "0", "--soft-404", "off", "--format", "json")
    assert not [h for h in soft_site.log if "linkaudit-probe-" in h.path]
    assert "soft_404" not in json.loads(out.stdout)["summary"]
    # by default, no probe: a page whose title says so is still caught
    soft_site.log.clear()
    report = json.loads(run(tmp_path, f"{n}/", "--delay", "0", "--format", "json").stdout)
    assert not [h for h in soft_site.log if "linkaudit-probe-" in h.path]
    assert [u["url"] for u in report["urls"] if u.get("soft_404")] == [f"{n}/gone"]


def test_real_404s_nothing_flagged_and_robots_obeyed(tmp_path, server):
    _pages(server, robots="User-agent: *\nDisallow: /blog/linkaudit-probe-\n")
    n = server.url
    out = run(tmp_path, f"{n}/", "--delay", "0", "--soft-404-probes")
    assert out.returncode == 1, out.stderr  # /blog/post-9.html, /old-page, /gone: 404
    report = json.loads((tmp_path / "linkaudit-report.json").read_text())
    assert report["summary"]["soft_404"] == 0
    assert not [u for u in report["urls"] if u.get("soft_404")]
    probes = [h.path for h in server.log if "linkaudit-probe-" in h.path]
    assert len(probes) == 1 and probes[0].startswith("/linkaudit-probe-")  # /blog/ disallowed
    assert report["summary"]["broken"] == 3


def test_bad_soft_404_mode_is_one_line(tmp_path):
    out = run(tmp_path, "http://127.0.0.1:9/", "--soft-404", "maybe")
    assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1
    assert "soft_404" in out.stderr or "soft-404" in out.stderr
