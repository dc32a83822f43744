"""What a request tells the server it is sent to: the ``Referer`` a browser
would send, and the origin a URL belongs to.

A link checker reads pages nobody else may see yet (a staging site, a
preview URL with its token in the query) and sends a request to every far
site they link to.  Browsers' default referrer policy,
``strict-origin-when-cross-origin`` (the Fetch standard, W3C Referrer
Policy), tells a far site no more than where the visitor comes from: the
origin.  linkaudit sends what that policy sends, computed here.
"""

from __future__ import annotations

from urllib.parse import SplitResult, urlsplit

_DEFAULT_PORTS = {"http": "80", "https": "443"}

Origin = tuple[str, str]  # (scheme, host[:port]), lower case, no default port


def _origin(parts: SplitResult) -> Origin:
    hostport = parts.netloc.rpartition("@")[2].lower()  # no userinfo
    host, colon, port = hostport.rpartition(":")
    if colon and "]" not in port and port in ("", _DEFAULT_PORTS.get(parts.scheme)):
        hostport = host  # "http://h:80/" and "http://h:/" are "http://h/"
    return parts.scheme.lower(), hostport


def origin_of(url: str) -> Origin | None:
    """The origin of an http(s) URL, ``None`` for any other (or no) URL:
    the scheme, host and port a request goes to (the unit of trust of
    credentials, cookies and referrers)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    if parts.scheme.lower() not in _DEFAULT_PORTS or not parts.netloc:
        return None
    return _origin(parts)


def referrer_header(referrer: str | None, target: str) -> str | None:
    """The ``Referer`` value of a request to ``target`` made from the page
    ``referrer``, by the policy ``strict-origin-when-cross-origin``:

    - the same origin: the referrer's URL (without its fragment and
      userinfo, which browsers never send);
    - another origin: the referrer's origin only (``https://site.example/``),
      never its path or query;
    - from https to plain http: nothing (a downgrade would expose even the
      origin on the wire);
    - a referrer that is not an http(s) URL (none, a sitemap given as a file):
      nothing.
    """
    if not referrer:
        return None
    source = origin_of(referrer)
    if source is None:
        return None
    target_origin = origin_of(target)
    if source[0] == "https" and (target_origin is None or target_origin[0] != "https"):
        return None
    if source == target_origin:
        parts = urlsplit(referrer)
        # neither a host nor a path holds "?": one before the fragment opens
        # a query, kept even empty ("/page?"), as a browser sends it
        query = f"?{parts.query}" if "?" in referrer.partition("#")[0] else ""
        return f"{source[0]}://{source[1]}{parts.path or '/'}{query}"
    return f"{source[0]}://{source[1]}/"
