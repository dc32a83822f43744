"""A single-page app for the tests of ``--render``: plain JavaScript, no
framework and nothing downloaded, served by :class:`tests.server.TestServer`
the way an SPA host (Netlify's or Vercel's fallback) serves one::

    with TestServer(jsapp_routes()) as srv:
        srv.fault = spa_fault
        ...

or ``with jsapp_server() as srv:``, the same thing.

Why each part exists: the server's HTML of every route is one and the same
app shell (:data:`SHELL`), whose only link, ``/legacy.html``, the script
replaces; what a crawl finds depends on whether it renders.  Unrendered, a
crawl sees ``/legacy.html`` and nothing else; rendered, it sees the app's
links (:data:`RENDERED_ONLY`), among them broken ones that only a browser
can find (:data:`BROKEN`, :data:`MISSING_FRAGMENTS`, :data:`SOFT_404`),
fragments made by script (:data:`SCRIPT_FRAGMENTS`), and the pages a
renderer must survive: script redirects (:data:`SCRIPT_REDIRECTS`), a page
that never goes network-idle (:data:`NEVER_SETTLES`), endless loops
(:data:`LOOPS`), dialogs and a popup (:data:`DIALOGS`).  Files a renderer
must not download (an image, a PDF) and a data request robots.txt forbids
are :data:`NOT_FETCHED`: the server's log shows whether they were asked for.

The SPA fallback (:func:`spa_fault`): a path with no file extension that is
no file of the app answers 200 with the shell (the client router decides,
and says "Page not found" for a route it does not know: a soft 404 the
server cannot tell); a path with an extension is a file, served if it
exists, else 404 (``/static/gone.html``).
"""

from __future__ import annotations

import json
import posixpath
import struct
import zlib

from tests.server import Route, TestServer

SHELL = (
    "<!doctype html><title>JS App</title>"
    "<noscript>You need to enable JavaScript to run this app.</noscript>"
    '<div id="root">Loading\u2026 <a href="/legacy.html">legacy</a></div>'
    '<script src="/app.js"></script>'
)
# its own shell, not the fallback's: an inline script that never ends, so the
# page never reaches its load event (a renderer must give up on it)
LOOP_EARLY_SHELL = (
    "<!doctype html><title>JS App</title>"
    "<noscript>You need to enable JavaScript to run this app.</noscript>"
    '<div id="root"></div><script>while (true) {}</script>'
)
LEGACY = (
    "<!doctype html><title>Legacy</title><h1>Legacy page</h1>"
    '<p>The site as it was before the app.</p><a href="/">home</a>'
)

# what home links to once rendered (the ``href`` attributes, in order)
HOME_LINKS = (
    "/about",
    "/docs",
    "/docs#made-by-script",
    "/docs#nowhere",
    "/static/gone.html",
    "/no-such-route",
    "/redirecting",
    "/timed",
    "/busy",
    "/loop",
    "/popup",
    "/static/manual.pdf",
)
HOME_IMAGES = ("/static/logo.png",)  # the <img src> home makes
# what /api/docs.json lists and /docs renders as links, after a data request
DOCS_ITEMS = (
    {"title": "Introduction", "href": "/docs/intro"},
    {"title": "Gone too", "href": "/static/gone-too.html"},
)
DOCS_LINKS = tuple(item["href"] for item in DOCS_ITEMS)
DOCS_DELAY = 0.2  # s: the data comes after the load event, as on a real network
# the routes the client router knows, each answered with SHELL, and the
# document.title it sets on each
TITLES = {
    "/": "Home",
    "/about": "About",
    "/docs": "Docs",
    "/docs/intro": "Introduction",
    "/redirecting": "Redirecting",
    "/timed": "Moving soon",
    "/busy": "Busy",
    "/loop": "Loop",
    "/popup": "Popup",
}
NOT_FOUND_TITLE = "Not found"  # any other path without an extension
APP_ROUTES = frozenset(TITLES)
# pages whose server HTML is an app shell: the app's routes, any unknown
# path without an extension (SPA fallback), and /loop-early
SHELLS = APP_ROUTES | {"/no-such-route", "/loop-early"}

# link targets (paths, fragments cut) found only in the rendered DOM: the
# server's HTML of every shell links /legacy.html alone (and /legacy.html
# links "/", so "/" is not among them although only rendered routes link it)
RENDERED_ONLY = frozenset({"/docs/intro", "/static/gone-too.html", "/static/logo.png"}) | {
    link.split("#")[0] for link in HOME_LINKS
}
# in every shell's server HTML, gone from the rendered DOM: the script
# replaces #root's content (the rendered /about links it again, by script)
REMOVED = frozenset({"/legacy.html"})
BROKEN = frozenset({"/static/gone.html", "/static/gone-too.html"})  # 404, rendered-only
SOFT_404 = frozenset({"/no-such-route"})  # 200 with the shell; the app says "Page not found"
SCRIPT_FRAGMENTS = frozenset({"/docs#made-by-script"})  # <h2 id> made by /docs's script
MISSING_FRAGMENTS = frozenset({"/docs#nowhere"})  # no such id, rendered or not
# script navigations: location.replace at once, location.href after 300 ms
SCRIPT_REDIRECTS = {"/redirecting": "/about", "/timed": "/docs"}
TIMED_DELAY = 0.3
NEVER_SETTLES = "/busy"  # fetches /api/tick?<now> every 100 ms after load, forever
TICK = "/api/tick"
# /loop renders a link to /about, then spins forever 50 ms after its script
# ran (about when load fires): the DOM holds the link, but no script can read
# it once the loop runs, so whether a renderer gets it is a race (assert that
# the audit ends, not what /loop links); /loop-early spins in an inline
# script, before load (its own shell): page.goto never sees load
LOOPS = frozenset({"/loop", "/loop-early"})
# alert, window.open('/about') and confirm, then a link to /docs: the link
# exists only if the dialogs were answered
DIALOGS = "/popup"
POPUP_LINKS = ("/docs",)
DISALLOWED = "/private/data.json"  # home fetches it; robots.txt forbids /private/
# served, but a renderer must not GET them (an image, a 200 KB PDF, a data
# request robots.txt forbids): the server's log says whether it did
NOT_FETCHED = frozenset({"/static/logo.png", "/static/manual.pdf", DISALLOWED})
DATA = frozenset({"/api/docs.json", TICK, DISALLOWED})  # fetched by script, not links
# what Chromium asks for by itself, out of reach of page.route: served 200 so
# that it is no 404 in the log (the shell names no icon)
BROWSER_NOISE = frozenset({"/favicon.ico"})
ROBOTS = "User-agent: *\nDisallow: /private/\n"

APP_JS = """\
"use strict";
(function () {
  var root = document.getElementById("root");
  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text) node.textContent = text;
    return node;
  }
  function page(title, heading) {
    document.title = title;
    root.replaceChildren(el("h1", {}, heading));
  }
  function links(hrefs) {
    var ul = el("ul");
    hrefs.forEach(function (h) {
      var li = el("li");
      li.append(el("a", { href: h.href || h }, h.title || h.href || h));
      ul.append(li);
    });
    root.append(ul);
  }
  var routes = {
    "/": function () {
      page("Home", "Welcome to the app");
      links(HOME_LINKS);
      root.append(el("img", { src: "/static/logo.png", alt: "logo" }));
      root.append(el("a", { href: "/static/manual.pdf" }, "manual"));
      fetch("/private/data.json").then(function (r) { return r.json(); })
        .then(function () {}, function () {});
    },
    "/about": function () {
      page("About", "About the app");
      root.append(el("p", {}, "A client-side router on location.pathname."));
      links(["/", "/legacy.html"]);
    },
    "/docs": function () {
      page("Docs", "Documentation");
      root.append(el("h2", { id: "made-by-script" }, "Made by script"));
      fetch("/api/docs.json").then(function (r) { return r.json(); })
        .then(function (items) { links(items); });
    },
    "/docs/intro": function () {
      page("Introduction", "Introduction");
      links(["/docs"]);
    },
    "/redirecting": function () {
      page("Redirecting", "Redirecting");
      location.replace("/about");
    },
    "/timed": function () {
      page("Moving soon", "Moving soon");
      setTimeout(function () { location.href = "/docs"; }, TIMED_MS);
    },
    "/busy": function () {
      page("Busy", "Busy forever");
      links(["/about"]);
      window.addEventListener("load", function () {
        setInterval(function () { fetch("/api/tick?" + Date.now()); }, 100);
      });
    },
    "/loop": function () {
      page("Loop", "Loops forever");
      links(["/about"]);
      setTimeout(function () { for (;;) {} }, 50);
    },
    "/popup": function () {
      alert("hello");
      window.open("/about");
      confirm("sure?");
      page("Popup", "Popups answered");
      links(["/docs"]);
    },
  };
  var route = routes[location.pathname];
  if (route) {
    route();
  } else {
    page("Not found", "Page not found");
    root.append(el("p", {}, "No route for " + location.pathname + "."));
  }
})();
"""


def app_js() -> str:
    """The client router, with home's links as data: the page's links and
    :data:`HOME_LINKS` cannot drift apart (the PDF link is added on its own,
    after the image, so it is in HOME_LINKS last)."""
    home = json.dumps(list(HOME_LINKS[:-1]))
    return APP_JS.replace("HOME_LINKS", home).replace("TIMED_MS", str(int(TIMED_DELAY * 1000)))


def png() -> bytes:
    """A valid 1x1 PNG: a real image, so that a browser that fetches it
    would show it (nothing here must depend on a broken file)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    header = struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0)  # 1x1, 8-bit greyscale
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"\x00\x00"))
        + chunk(b"IEND", b"")
    )


def pdf(size: int = 200_000) -> bytes:
    """A ~200 KB PDF: large enough that downloading it shows (bytes sent in
    the log), a PDF by its header and trailer; the middle is a comment."""
    head = b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n"
    tail = b"\n%%EOF\n"
    filler = (b"% manual " + b"x" * 70 + b"\n") * ((size - len(head) - len(tail)) // 80)
    return head + filler + tail


def jsapp_routes() -> dict[str, Route]:
    """The app's files and its special pages; the client routes (and any
    other path without an extension) are :func:`spa_fault`'s."""
    json_type = "application/json"
    return {
        "/app.js": Route(body=app_js(), content_type="text/javascript; charset=utf-8"),
        "/legacy.html": Route(body=LEGACY),
        "/loop-early": Route(body=LOOP_EARLY_SHELL),
        "/robots.txt": Route(body=ROBOTS, content_type="text/plain"),
        "/static/logo.png": Route(body=png(), content_type="image/png"),
        "/favicon.ico": Route(body=png(), content_type="image/png"),
        "/static/manual.pdf": Route(body=pdf(), content_type="application/pdf"),
        "/api/docs.json": Route(
            body=json.dumps(DOCS_ITEMS), content_type=json_type, delay=DOCS_DELAY
        ),
        TICK: Route(body="{}", content_type=json_type),
        DISALLOWED: Route(body='{"secret": true}', content_type=json_type),
    }


FILES = frozenset(jsapp_routes())  # the paths jsapp_routes() serves (spa_fault leaves them)


def spa_fault(path: str) -> Route | None:
    """The SPA host's fallback, as :attr:`TestServer.fault`: the shell for a
    path with no file extension that is no file of the app; None (the
    routes answer, or 404) for the rest.  ``path`` is the request's, query
    included.  A route a test adds without an extension is shadowed: add it
    with an extension, or wrap this function."""
    bare = path.split("?")[0].split("#")[0]
    if bare in FILES or posixpath.splitext(posixpath.basename(bare))[1]:
        return None
    return Route(body=SHELL)


def jsapp_server() -> TestServer:
    """A TestServer (not started: use it in ``with``) serving the app with
    the SPA fallback."""
    server = TestServer(jsapp_routes())
    server.fault = spa_fault
    return server
