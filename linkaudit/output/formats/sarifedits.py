"""A redirect fix as a SARIF edit: the region of the built page's line where
the link is written, and the text that replaces it (``sarif.py`` gives
each fix-list entry its ``fixes``).

For a local build's file the link is found on its line as written
(absolute, root-relative or relative) and replaced in the same form, so
the columns are exact; for a live page (its text not kept) the region is
the line.
"""

from __future__ import annotations

import functools
import posixpath
from collections.abc import Mapping
from typing import Any
from urllib.parse import SplitResult, urlsplit


def written_edit(fix: Mapping[str, Any], root: str | None = None) -> tuple[dict[str, Any], str]:
    """The edit as a SARIF replacement: (deleted region, inserted text).

    For a local build's file, the link as written on its line (absolute,
    root-relative or relative) is found and replaced in the same form:
    columns exact.  Otherwise (a live page: its text is not kept) the
    region is the line, its snippet the URL to replace.  ``root``: the URL
    a build's root is named by (the report's ``build.url``): a ``file://``
    one stands for ``/`` in its root-relative links."""
    line = _file_line(fix.get("file"), fix["line"])
    if line is not None:
        page, old_url, new_url = fix["page"], fix["from"], fix["to"]
        if root and root.startswith("file:") and page.startswith(root):
            # a build named by its files: its links are relative to its root
            page, old_url, new_url = (_in_build(u, root) for u in (page, old_url, new_url))
        for old, new in _forms(page, old_url, new_url):
            if old.startswith(_BUILD_ORIGIN):  # (no page writes a file:// URL)
                continue
            at = line.find(f'"{old}"') + 1 or line.find(f"'{old}'") + 1
            if at:
                region = {"startLine": fix["line"], "startColumn": at + 1}
                region["endColumn"] = at + 1 + len(old)
                return {**region, "snippet": {"text": old}}, new
    return {"startLine": fix["line"], "snippet": {"text": fix["from"]}}, fix["to"]


def _file_line(path: str | None, number: int) -> str | None:
    if not path:
        return None
    lines = _file_lines(path)
    return lines[number - 1] if lines is not None and 0 < number <= len(lines) else None


@functools.lru_cache(maxsize=8)
def _file_lines(path: str) -> tuple[str, ...] | None:
    """A local build's file, read once for all the fixes on its page."""
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return tuple(fh)
    except (OSError, ValueError):  # ValueError: a NUL or a lone surrogate in the path
        return None


# the origin a build named by its files stands at, for its root-relative links
_BUILD_ORIGIN = "http://build.invalid"


def _in_build(url: str, root: str) -> str:
    return _BUILD_ORIGIN + "/" + url[len(root) :] if url.startswith(root) else url


def _forms(page: str, old: str, new: str) -> list[tuple[str, str]]:
    """How a link to ``old`` may be written on ``page``, each with the same
    form of ``new``: absolute, root-relative, relative to the page."""
    forms = [(old, new)]
    p, o, n = urlsplit(page), urlsplit(old), urlsplit(new)
    if (o.scheme, o.netloc) == (p.scheme, p.netloc):
        same = (n.scheme, n.netloc) == (p.scheme, p.netloc)
        root_new = (n.path or "/") + _rest(n) if same else new
        forms.append(((o.path or "/") + _rest(o), root_new))
        base = posixpath.dirname(p.path) or "/"
        relative_new = _relative(n.path or "/", base) + _rest(n) if same else new
        forms.append((_relative(o.path or "/", base) + _rest(o), relative_new))
    return forms


def _relative(path: str, base: str) -> str:
    """``path`` relative to the folder ``base``, a folder's slash kept
    (``posixpath.relpath`` drops it: ``../guide/`` would be ``../guide``)."""
    relative = posixpath.relpath(path, base)
    if path.endswith("/") and not relative.endswith("/"):
        relative = "./" if relative == "." else relative + "/"
    return relative


def _rest(url: SplitResult) -> str:
    return (f"?{url.query}" if url.query else "") + (f"#{url.fragment}" if url.fragment else "")
