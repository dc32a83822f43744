"""Passwords in URLs, masked for whatever a person reads.

``http://editor:secret@host/`` -> ``http://editor:***@host/``; a user name
alone (often a token: ``https://TOKEN@host/``) is masked whole.  Pure text
rules, for URLs the user gives (their errors) and links found on pages
(their keys in the report, when such links are excluded, never requested).
"""

from __future__ import annotations

import re

# scheme, its slashes (none: "http:u:p@host" is read so too), then the
# authority's userinfo, up to its last @ (as the URL Standard reads it)
_USERINFO = re.compile(r"^(\s*[A-Za-z][A-Za-z0-9+.-]*:[/\\]*)([^/\\?#]*)@")
_AUTHORITY = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")  # mailto:a@b has no userinfo


def masked(url: str) -> str:
    """The URL with its password (or its lone user name) as ``***``."""

    def mask(m: re.Match[str]) -> str:
        user, colon, _password = m[2].partition(":")
        return f"{m[1]}{user + ':' if colon else ''}***@"

    return _USERINFO.sub(mask, url, count=1)


def masked_link(url: str) -> str:
    """A link's URL, masked when it has an authority (``scheme://``): a
    ``mailto:`` or ``tel:`` link keeps its ``@``."""
    return masked(url) if _AUTHORITY.match(url) else url
