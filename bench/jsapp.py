"""Serve a single-page app of N client routes, for the benchmark of
``--render``: every page is an app shell whose content and links only a
browser can see.

    .venv/bin/python bench/jsapp.py --routes 500 --serve &
    # prints its start URL on stdout: http://127.0.0.1:PORT/
    kill %1          # SIGTERM (or SIGINT, ^C) stops it; requests counted on stderr

    .venv/bin/python bench/jsapp.py --routes 500     # what an audit should find, as JSON

Why it is its own server and not the test suite's: bench scripts do not
import ``tests/``, and the benchmark needs only the standard library
(``http.server``).  The site, deterministic for N:

- client routes ``/`` (route 0) and ``/page/K`` (1 <= K < N), each answered
  with the same shell (SPA fallback: any other path without an extension
  gets it too, and the app says "Page not found");
- ``/app.js``, a client router on ``location.pathname``: a heading, a
  paragraph, links to 5 other routes (:func:`route_links`: every route is
  reachable from ``/`` in about log2(N) steps) and 1 link to
  ``/static/file-K.html``, a plain HTML page that exists (a far-ish file,
  under the same host);
- ``/robots.txt`` allowing everything; any other path with an extension 404.
"""

from __future__ import annotations

import argparse
import json
import re
import signal
import sys
import threading
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LINKS_PER_ROUTE = 5
SHELL = (
    "<!doctype html><title>Bench App</title>"
    "<noscript>You need to enable JavaScript to run this app.</noscript>"
    '<div id="root"></div><script src="/app.js"></script>'
)
_FILE = re.compile(r"/static/file-(0|[1-9][0-9]*)\.html")

# the same choice as route_links, in JavaScript: keep the two in step
APP_JS = """\
"use strict";
(function () {
  var N = %(routes)d, PER = %(per)d;
  function path(k) { return k === 0 ? "/" : "/page/" + k; }
  function targets(k) {
    var out = [], seen = {};
    seen[k] = true;
    [k + 1, k + 2, 2 * k + 1, 2 * k + 2, 7 * k + 3].forEach(function (t) {
      t = t %% N;
      while (seen[t] && out.length + 1 < N) t = (t + 1) %% N;
      if (!seen[t] && out.length < PER) { seen[t] = true; out.push(t); }
    });
    return out;
  }
  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    Object.keys(attrs).forEach(function (a) { node.setAttribute(a, attrs[a]); });
    if (text) node.textContent = text;
    return node;
  }
  var root = document.getElementById("root");
  var m = /^\\/(?:page\\/([1-9][0-9]*))?$/.exec(location.pathname);
  var k = m ? Number(m[1] || 0) : -1;
  if (k < 0 || k >= N) {
    document.title = "Not found";
    root.replaceChildren(el("h1", {}, "Page not found"));
    return;
  }
  document.title = "Route " + k;
  root.replaceChildren(el("h1", {}, "Route " + k));
  root.append(el("p", {}, "Route " + k + " of " + N + ", made by script: its links exist " +
    "only once a browser has run the app."));
  var ul = el("ul", {});
  targets(k).forEach(function (t) {
    var li = el("li", {});
    li.append(el("a", { href: path(t) }, "Route " + t));
    ul.append(li);
  });
  var li = el("li", {});
  li.append(el("a", { href: "/static/file-" + k + ".html" }, "File " + k));
  ul.append(li);
  root.append(ul);
})();
"""


def route_path(k: int) -> str:
    """Route ``k``'s path: ``/`` for 0, else ``/page/K``."""
    return "/" if k == 0 else f"/page/{k}"


def route_links(k: int, routes: int) -> list[int]:
    """The routes route ``k`` links to, as app.js chooses them: k+1, k+2,
    2k+1, 2k+2 (a binary tree: shallow) and 7k+3, modulo N, never itself,
    a repeat moved on to the next free route (fewer when N is under 6)."""
    out: list[int] = []
    seen = {k}
    for t in (k + 1, k + 2, 2 * k + 1, 2 * k + 2, 7 * k + 3):
        t %= routes
        while t in seen and len(out) + 1 < routes:
            t = (t + 1) % routes
        if t not in seen and len(out) < LINKS_PER_ROUTE:
            seen.add(t)
            out.append(t)
    return out


def app_js(routes: int) -> str:
    """The client router for ``routes`` routes."""
    return APP_JS % {"routes": routes, "per": LINKS_PER_ROUTE}


def static_page(k: int) -> str:
    """``/static/file-K.html``: plain HTML, no script, a link home."""
    return f'<!doctype html><title>File {k}</title><h1>File {k}</h1><a href="/">home</a>'


def answer(path: str, routes: int, script: bytes) -> tuple[int, str, bytes, str]:
    """(status, content type, body, kind) for a request's path: kind names
    what was asked for, for the counts (shell, app, file, robots, icon,
    missing)."""
    bare = path.split("?")[0].split("#")[0]
    html = "text/html; charset=utf-8"
    if bare == "/app.js":
        return 200, "text/javascript; charset=utf-8", script, "app"
    if bare == "/favicon.ico":  # Chromium asks by itself: no 404 for it in the counts
        return 204, "image/x-icon", b"", "icon"
    if bare == "/robots.txt":
        return 200, "text/plain", b"User-agent: *\nDisallow:\n", "robots"
    found = _FILE.fullmatch(bare)
    if found and int(found.group(1)) < routes:
        return 200, html, static_page(int(found.group(1))).encode(), "file"
    if "." not in bare.rsplit("/", 1)[-1]:  # SPA fallback: the app decides
        return 200, html, SHELL.encode(), "shell"
    return 404, html, b"<h1>Not Found</h1>", "missing"


def expected(routes: int) -> dict[str, object]:
    """What an audit that renders should find: the URLs (routes and files),
    the links per route, and that every route is reachable from ``/``."""
    reached, todo = {0}, [0]
    while todo:
        for t in route_links(todo.pop(), routes):
            if t not in reached:
                reached.add(t)
                todo.append(t)
    return {
        "routes": routes,
        "files": routes,
        "urls": 2 * routes,
        "links_per_route": len(route_links(0, routes)) + 1,
        "reachable_routes": len(reached),
        "broken": 0,
    }


class JsAppServer(ThreadingHTTPServer):
    """The app on 127.0.0.1 (a free port by default), counting requests by
    kind; ``url`` is its start page."""

    daemon_threads = True
    request_queue_size = 128  # a crawler's burst of connections is not dropped

    def __init__(self, routes: int, host: str = "127.0.0.1", port: int = 0):
        self.routes = routes
        self.script = app_js(routes).encode()
        self.counts: Counter[str] = Counter()
        self.lock = threading.Lock()
        super().__init__((host, port), _Handler)
        self.url = f"http://{host}:{self.server_address[1]}/"


class _Handler(BaseHTTPRequestHandler):
    """GET and HEAD, kept alive, with a Content-Length."""

    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body in two writes: no 40 ms wait
    server: JsAppServer

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        app = self.server
        status, ctype, body, kind = answer(self.path, app.routes, app.script)
        with app.lock:
            app.counts[f"{self.command} {kind}"] += 1
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            try:
                self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True

    do_HEAD = do_GET


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--routes", type=int, default=500, help="client routes (at least 1)")
    p.add_argument("--serve", action="store_true", help="serve it (else print what to find)")
    p.add_argument("--port", type=int, default=0, help="0: a free port")
    ns = p.parse_args()
    if ns.routes < 1:
        p.error("--routes must be at least 1")
    if not ns.serve:
        print(json.dumps(expected(ns.routes), indent=2))
        return
    server = JsAppServer(ns.routes, port=ns.port)
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    print(server.url, flush=True)
    stop.wait()
    server.shutdown()
    server.server_close()
    print(json.dumps(dict(sorted(server.counts.items()))), file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
