"""A Memento service on 127.0.0.1 in the Wayback shapes (the Internet
Archive's, pywb's), for ``--archive``: a TimeMap in link format, copies
(plain and ``id_``), captures of every kind an archive holds (a good page,
a soft 404, a redirect to the site's error page, an archived 404, a
redirect to another capture of the same page), a TimeGate for services
that are not Wayback-shaped, and its robots.txt; each request logged by the
``TestServer`` beneath (``log``)."""

from __future__ import annotations

import re
from datetime import datetime

from tests.server import Route, TestServer

GOOD = "<html><head><title>The guide</title></head><body><h1>The guide</h1>{url}</body></html>"
SOFT = "<html><head><title>Page not found</title></head><body>Sorry.</body></html>"
_COPY = re.compile(r"^/web/(\d{14})(id_)?/(.+)$")
_TIMEMAP = "/web/timemap/link/"
_TIMEGATE = "/timegate/"


def http_date(stamp: str) -> str:
    return datetime.strptime(stamp, "%Y%m%d%H%M%S").strftime("%a, %d %b %Y %H:%M:%S GMT")


class Archive:
    """``captures``: original URL -> [(14-digit stamp, kind)], kinds ``good``,
    ``soft`` (200, its title says not found), ``away`` (a redirect to the
    site's /404.html), ``404`` (an archived 404), ``moved:<stamp>`` (a
    redirect to the capture of the same URL at that stamp), ``other`` (200,
    but the copy names another original)."""

    def __init__(self, host: str = "127.0.0.1") -> None:
        self.captures: dict[str, list[tuple[str, str]]] = {}
        self.server = TestServer(host=host)
        self.server.fault = self._route
        self.robots = "User-agent: *\nAllow: /\n"
        self.timemap_route: Route | None = None  # answers the TimeMaps instead (a stall)
        # original URL -> 429s (Retry-After: 1) its TimeMap answers before its list
        self.throttled: dict[str, int] = {}

    def __enter__(self) -> Archive:
        self.server.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.__exit__(*exc)

    @property
    def service(self) -> str:
        return f"{self.server.url}/web/"

    @property
    def log(self):
        return self.server.log

    def hits(self, part: str) -> list[str]:
        return [h.path for h in self.server.log if part in h.path]

    def copy_url(self, stamp: str, original: str) -> str:
        return f"{self.server.url}/web/{stamp}/{original}"

    def _route(self, path: str) -> Route | None:
        if path == "/robots.txt":
            return Route(body=self.robots, content_type="text/plain")
        if path.startswith(_TIMEMAP):
            if self.timemap_route is not None:
                return self.timemap_route
            return self._timemap(path[len(_TIMEMAP) :])
        if path.startswith(_TIMEGATE):
            return self._timegate(path[len(_TIMEGATE) :])
        m = _COPY.match(path)
        if m is not None:
            return self._copy(m[1], m[3], bool(m[2]))
        return None

    def _timemap(self, original: str) -> Route:
        if self.throttled.get(original):
            self.throttled[original] -= 1
            return Route(429, "slow down", headers={"Retry-After": "1"})
        captured = self.captures.get(original)
        if not captured:
            return Route(404, "not archived", content_type="text/plain")
        base = self.server.url
        links = [
            f'<{original}>; rel="original"',
            f'<{base}{_TIMEMAP}{original}>; rel="self"; type="application/link-format"',
            f'<{base}/web/{original}>; rel="timegate"',
        ]
        for stamp, _kind in sorted(captured):
            links.append(
                f'<{base}/web/{stamp}/{original}>; rel="memento"; datetime="{http_date(stamp)}"'
            )
        return Route(body=",\n".join(links) + "\n", content_type="application/link-format")

    def _timegate(self, original: str) -> Route:
        """A TimeGate that is not Wayback-shaped: its ``Link`` names the
        TimeMap; it redirects to the newest copy."""
        captured = self.captures.get(original)
        if not captured:
            return Route(404, "not archived", content_type="text/plain")
        newest = max(captured)[0]
        link = (
            f'<{original}>; rel="original", '
            f'<{self.server.url}{_TIMEMAP}{original}>; rel="timemap"; '
            'type="application/link-format"'
        )
        headers = {
            "Location": self.copy_url(newest, original),
            "Vary": "accept-datetime",
            "Link": link,
        }
        return Route(302, "", headers=headers)

    def _copy(self, stamp: str, original: str, raw: bool) -> Route | None:
        kind = dict(self.captures.get(original, ())).get(stamp)
        if kind is None:
            return Route(404, "no such capture", content_type="text/plain")
        headers = {
            "Memento-Datetime": http_date(stamp),
            "Link": f'<{original}>; rel="original"',
        }
        mod = "id_" if raw else ""
        if kind == "good":
            return Route(body=GOOD.format(url=original), headers=headers)
        if kind == "soft":
            return Route(body=SOFT, headers=headers)
        if kind == "other":
            headers["Link"] = '<http://elsewhere.example/other>; rel="original"'
            return Route(body=GOOD.format(url="other"), headers=headers)
        if kind == "404":
            return Route(404, "<title>404 Not Found</title>", headers=headers)
        if kind == "away":
            site = original.split("/", 3)
            target = f"{site[0]}//{site[2]}/404.html"
            headers["Location"] = f"{self.server.url}/web/{stamp}{mod}/{target}"
            return Route(302, "", headers=headers)
        if kind.startswith("moved:"):
            headers["Location"] = f"{self.server.url}/web/{kind[6:]}{mod}/{original}"
            return Route(302, "", headers=headers)
        raise AssertionError(kind)
