"""--render is as polite as the crawl: a page's render waits for the
host's delay as a request does, and what the browser asks of another host
goes through that host's robots.txt (fetched for it), with linkaudit's
User-Agent; the page's document is never asked for by the browser."""

from __future__ import annotations

import json

from tests.conftest import validate
from tests.helpers.command import run
from tests.server import Route, TestServer

DELAY = 0.5


def shell(script: str) -> str:
    return f'<!DOCTYPE html><title>App</title><div id="root"></div><script src="{script}"></script>'


def fetch_and_link(cdn: str) -> str:
    """A script that asks the other host for data it may and may not read,
    then links one page."""
    return (
        f"fetch('{cdn}/data.json').catch(() => {{}});"
        f"fetch('{cdn}/private/secret.json').catch(() => {{}});"
        "document.getElementById('root').innerHTML = '<a href=\"/next\">next</a>';"
    )


def by_browser(hit) -> bool:
    """Chromium's requests carry Fetch Metadata; linkaudit's own do not."""
    return any(k.lower() == "sec-fetch-mode" for k in hit.headers)


def test_renders_wait_for_the_delay_and_ask_robots_of_every_host(tmp_path):
    cdn_routes = {
        "/robots.txt": Route(
            body="User-agent: *\nDisallow: /private/\n", content_type="text/plain"
        ),
        "/data.json": Route(
            body="{}", content_type="application/json", headers={"Access-Control-Allow-Origin": "*"}
        ),
        "/private/secret.json": Route(body="{}", content_type="application/json"),
    }
    with TestServer(cdn_routes, host="127.0.0.2") as cdn:
        site_routes = {
            "/": shell("/app.js"),
            "/next": shell("/app.js"),
            "/app.js": Route(body=fetch_and_link(cdn.url), content_type="text/javascript"),
        }
        with TestServer(site_routes) as site:
            out = run(
                tmp_path,
                f"{site.url}/",
                "--render",
                "auto",
                "--delay",
                str(DELAY),
                "--report",
                "r.json",
                timeout=120,
            )
            log = list(site.log)
    assert out.returncode == 0, out.stdout + out.stderr[-2000:]
    report = json.loads((tmp_path / "r.json").read_text())
    validate(report)
    assert report["summary"]["rendered_pages"] == 2
    # each page: the crawl's GET, then its render, a delay later (the
    # render's first browser request is its script, /app.js)
    for page in ("/", "/next"):
        (get,) = [h for h in log if h.path == page and h.method == "GET"]
        assert not [h for h in log if h.path == page and by_browser(h)]  # its own answer
        after = [h for h in log if by_browser(h) and h.path == "/app.js" and h.arrived > get.at]
        assert after and after[0].arrived - get.at >= DELAY * 0.9, (page, after[:1], get)
    # the other host: its robots.txt read (by the crawl's rules), what it
    # allows asked with linkaudit's User-Agent, what it disallows never
    paths = [h.path for h in cdn.log]
    assert "/robots.txt" in paths and "/data.json" in paths
    assert "/private/secret.json" not in paths
    agents = {
        v
        for h in cdn.log
        if h.path == "/data.json"
        for k, v in h.headers.items()
        if k.lower() == "user-agent"
    }
    assert len(agents) == 1 and agents.pop().startswith("linkaudit/")


def test_a_websocket_is_asked_of_robots_txt_too(tmp_path):
    script = (
        "new WebSocket('ws://' + location.host + '/live');"
        "new WebSocket('ws://' + location.host + '/private/live');"
        "document.getElementById('root').innerHTML = '<a href=\"/next\">next</a>';"
    )
    routes = {
        "/": shell("/app.js"),
        "/app.js": Route(body=script, content_type="text/javascript"),
        "/robots.txt": Route(
            body="User-agent: *\nDisallow: /private/\n", content_type="text/plain"
        ),
    }
    with TestServer(routes) as site:
        out = run(
            tmp_path, f"{site.url}/", "--render", "auto", "--delay", "0", "--report", "r.json"
        )
        log = list(site.log)
    assert out.returncode == 1, out.stderr[-2000:]  # /next is a 404: found by the render
    report = json.loads((tmp_path / "r.json").read_text())
    validate(report)
    upgrades = [h.path for h in log if h.headers.get("Upgrade") == "websocket"]
    assert upgrades == ["/live"]  # the allowed one's handshake; never the disallowed one
    assert not [h for h in log if h.path.startswith("/private/")]
    (render,) = [u["render"] for u in report["urls"] if u.get("render")]
    assert render["refused"] >= 1 and render["requests"] >= 2  # app.js and /live
