"""URLs that are not requested at all: crawler traps and the user's rules.

Pure rules (no Scrapy): see :class:`TrapGuards`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urlsplit


@dataclass(frozen=True)
class TrapGuards:
    """Rules that keep the audit out of crawler traps and the user's exclusions.

    :meth:`reason` returns why a URL is excluded, or None.  Every limit is a
    setting (see ``linkaudit/settings.py``); 0 turns a numeric one off.  The
    trap guards (``//``, repeated segments, deep paths) apply to near URLs
    only: far URLs are checked, never crawled, so they cannot trap the crawl
    (``https://web.archive.org/web/2020/https://example.com/`` is a real
    link).  User info and the user's patterns apply to every URL.
    """

    max_path_segments: int = 32
    max_segment_repeat: int = 3
    exclude_userinfo: bool = True
    exclude_double_slash: bool = True
    patterns: tuple[re.Pattern[str], ...] = ()
    include: tuple[re.Pattern[str], ...] = ()
    skip_far: bool = False

    def reason(self, url: str, near: bool = True) -> str | None:
        parts = urlsplit(url)
        if self.exclude_userinfo and "@" in parts.netloc:
            return "Excluded: URL has user info (user:password@)"
        chosen = self._chosen(url, near)
        if chosen:
            return chosen
        return self._trap(parts.path) if near else None

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
            return "Excluded: outside the site, not requested (LINKAUDIT_SKIP_FAR)"
        return None

    def _trap(self, path: str) -> str | None:
        if self.exclude_double_slash and "//" in path:
            return "Excluded: '//' in the path (crawler trap guard)"
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
