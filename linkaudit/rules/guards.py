"""URLs that are not requested at all: crawler traps and the user's rules.

Pure rules (no Scrapy): see :class:`TrapGuards`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urlsplit

_EMPTY_SEGMENT = re.compile(r"/(?=/)")  # a slash that another follows: an empty segment
# The start of the reason a far link on the host of --root-url (the site's
# own address, outside the part the build is of) is left out by --skip-far
OUTSIDE_ROOT = "Excluded: outside --root-url"


def _authority(url: str) -> str:
    """A canonical URL's host and port (``example.com``, ``127.0.0.1:8000``)."""
    return url.split("/", 3)[2].rpartition("@")[2] if "://" in url else ""


@dataclass(frozen=True)
class TrapGuards:
    """Rules that keep the audit out of crawler traps and the user's exclusions.

    :meth:`reason` returns why a URL is excluded, or None.  Every limit is a
    setting (see ``linkaudit/settings.py``); 0 turns a numeric one off.  The
    trap guards (``//``, repeated segments, deep paths) apply to near URLs
    only: far URLs are checked, never crawled, so they cannot trap the crawl
    (``https://web.archive.org/web/2020/https://example.com/`` is a real
    link).  User info and the user's patterns apply to every URL.

    ``files``: the address of a build directory read from its files
    (``linkaudit DIR``), or ``""``.  A build is finite: every path under it
    is a file that is there or not, so a ``//`` in one is no trap but a
    link to check (``href="https;//example.com/x"`` resolves to a missing
    file: broken, not excluded).  Static hosts merge the slashes
    (``a//b`` is the file ``a/b``), so a page that links ``.//`` would
    make ``/d//``, ``/d///``... without end: there the empty segments count
    among the repeated ones (``max_segment_repeat``).
    """

    max_path_segments: int = 32
    max_segment_repeat: int = 3
    exclude_userinfo: bool = True
    exclude_double_slash: bool = True
    patterns: tuple[re.Pattern[str], ...] = ()
    include: tuple[re.Pattern[str], ...] = ()
    skip_far: bool = False
    files: str = ""
    root: str = ""  # --root-url: the site's own address (its links are mapped into the build)

    def reason(self, url: str, near: bool = True) -> str | None:
        parts = urlsplit(url)
        if self.exclude_userinfo and "@" in parts.netloc:
            return "Excluded: URL has user info (user:password@)"
        chosen = self._chosen(url, near)
        if chosen:
            return chosen
        if not near:
            return None
        return self._trap(parts.path, finite=bool(self.files) and url.startswith(self.files))

    def _chosen(self, url: str, near: bool) -> str | None:
        """The user's choice: a URL matching an include pattern is checked
        (includes win, as in lychee); otherwise one matching an exclude
        pattern is not, nor, when include patterns are given, one matching
        none of them, nor a far URL with ``skip_far``."""
        if any(pattern.search(url) for pattern in self.include):
            return None
        for pattern in self.patterns:
            if pattern.search(url):
                return f"Excluded: matches LINKAUDIT_EXCLUDE pattern {pattern.pattern!r}"
        if self.include:
            return "Excluded: matches no LINKAUDIT_INCLUDE pattern"
        if self.skip_far and not near:
            if self.root and _authority(url) in (_authority(self.root), _authority(self.files)):
                # the site's own host (or the build's address: a root-relative
                # link), but not the part the build is of: said apart, and
                # counted in the summary (output/formats/text.py)
                return (
                    f"{OUTSIDE_ROOT} {self.root}, on its host: not requested (LINKAUDIT_SKIP_FAR)"
                )
            return "Excluded: outside the site, not requested (LINKAUDIT_SKIP_FAR)"
        return None

    def _trap(self, path: str, finite: bool = False) -> str | None:
        if "//" in path and not finite and self.exclude_double_slash:
            return "Excluded: '//' in the path (crawler trap guard)"
        if finite and self.max_segment_repeat and "//" in path:
            empty = len(_EMPTY_SEGMENT.findall(path))
            if empty > self.max_segment_repeat:
                return (
                    f"Excluded: '//' more than {self.max_segment_repeat} times in the path "
                    "(crawler trap guard)"
                )
        segments = [s for s in path.split("/") if s]
        if self.max_path_segments and len(segments) > self.max_path_segments:
            return f"Excluded: path deeper than {self.max_path_segments} segments"
        if self.max_segment_repeat and len(segments) > self.max_segment_repeat:
            counts: dict[str, int] = {}
            for seg in segments:
                counts[seg] = counts.get(seg, 0) + 1
                if counts[seg] > self.max_segment_repeat:
                    return (
                        f"Excluded: path segment {seg!r} repeated more than "
                        f"{self.max_segment_repeat} times (crawler trap guard)"
                    )
        return None
