"""Canonical URLs: the one spelling of a URL that the audit, its report and
its dedupe all use.

The rules are the report contract's (``shared/contract/report.md``): lower-case
scheme and host, no default port, no fragment, dot segments resolved, an empty
path written ``/``, percent-encoding normalised (unreserved characters decoded,
everything else upper-case escapes, non-ASCII as UTF-8), query order kept.
On top of that, the seed's host regularisation: trailing and repeated dots in
the host are removed.  ``canonicalize(canonicalize(u)) == canonicalize(u)``.

w3lib's ``canonicalize_url`` is not used because it sorts the query and keeps
an empty path as is; ``safe_url_string`` is close but does not decode
unreserved escapes.  Both would make the dedupe key differ from the contract.
"""

from __future__ import annotations

import ipaddress
import re
from functools import lru_cache
from urllib.parse import SplitResult, quote, urlsplit

__all__ = ["InvalidURL", "canonicalize", "is_near", "scheme_of"]

HTTP_SCHEMES = frozenset({"http", "https"})
_DEFAULT_PORTS = {"http": 80, "https": 443}

# RFC 3986: unreserved characters are decoded, reserved ones stay escaped.
_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
_SAFE_PATH = "!$&'()*+,;=:@/%"
_SAFE_QUERY = _SAFE_PATH + "?"
_SAFE_USERINFO = "!$&'()*+,;=:%"
_PCT = re.compile(r"%([0-9A-Fa-f]{2})?")
_TAB_NEWLINE = re.compile(r"[\t\n\r]")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):")
_HOST_OK = re.compile(r"^[a-z0-9_-]+(?:\.[a-z0-9_-]+)*$")
_DOTS = re.compile(r"\.{2,}")


class InvalidURL(ValueError):
    """A link whose URL cannot be parsed into something requestable."""


def scheme_of(url: str) -> str:
    """The lower-cased scheme of an absolute URL, ``""`` when it has none."""
    m = _SCHEME.match(url.strip())
    return m.group(1).lower() if m else ""


def _fix_escape(m: re.Match[str]) -> str:
    hexdigits = m.group(1)
    if hexdigits is None:  # a lone '%' is data, not an escape
        return "%25"
    char = chr(int(hexdigits, 16))
    return char if char in _UNRESERVED else "%" + hexdigits.upper()


def _normalize_escapes(text: str, safe: str) -> str:
    if "%" in text:
        text = _PCT.sub(_fix_escape, text)
    # quote() encodes non-ASCII as UTF-8 and leaves the escapes fixed above.
    return quote(text, safe=safe)


def _remove_dot_segments(path: str) -> str:
    """RFC 3986 section 5.2.4, for an absolute path."""
    if "." not in path or not path.startswith("/"):
        return path
    segments = path.split("/")
    out: list[str] = []
    for seg in segments[1:]:
        if seg == "..":
            if out:
                out.pop()
        elif seg != ".":
            out.append(seg)
    # a trailing '.' or '..' leaves a directory: keep the final slash
    if segments[-1] in (".", ".."):
        out.append("")
    return "/" + "/".join(out)


def resolve(base: str, ref: str) -> str:
    """RFC 3986 section 5.2 reference resolution.

    Not ``urllib.parse.urljoin``: it drops empty path segments
    (``a//b`` becomes ``a/b``), which changes the URL and hides the ``//``
    that the crawler-trap guard looks for.
    """
    if scheme_of(ref):
        return ref
    b = urlsplit(base)
    r = urlsplit(ref)
    if ref.startswith("//"):
        return b.scheme + ":" + ref
    if not r.path:
        path, query = b.path, (r.query if "?" in ref.split("#", 1)[0] else b.query)
    else:
        if r.path.startswith("/"):
            path = r.path
        else:
            directory = b.path[: b.path.rfind("/") + 1] if b.path else "/"
            path = directory + r.path
        path, query = _remove_dot_segments(path), r.query
    return SplitResult(b.scheme, b.netloc, path, query, "").geturl()


def _canonical_host(host: str, had_brackets: bool) -> str:
    if had_brackets:
        try:
            return "[" + ipaddress.IPv6Address(host).compressed + "]"
        except ValueError:
            raise InvalidURL(f"bad IPv6 address [{host}]") from None
    host = _DOTS.sub(".", host).strip(".")
    if not host:
        raise InvalidURL("no host")
    if not host.isascii():
        try:
            host = host.encode("idna").decode("ascii")
        except UnicodeError:
            raise InvalidURL(f"bad international host name {host!r}") from None
    host = host.lower()
    if not _HOST_OK.match(host):
        raise InvalidURL(f"bad host name {host!r}")
    return host


def canonicalize(url: str, base: str | None = None) -> str:
    """Resolve ``url`` against ``base`` and return its canonical form.

    Non-http(s) URLs are returned with only the scheme lower-cased (they are
    never requested, only reported).  Raises :class:`InvalidURL` for an
    http(s) URL that cannot be requested as written.
    """
    url = _TAB_NEWLINE.sub("", url.strip())
    if _CONTROL.search(url):
        raise InvalidURL("control character in URL")
    if base is not None:
        try:
            url = resolve(base, url)
        except ValueError as exc:
            raise InvalidURL(str(exc)) from None
    return _canonical_absolute(url)


# A site links to the same few thousand URLs from every page: 270,000 link
# occurrences make 15,000 URLs on the benchmark's 10,000-page site.  Caching
# the absolute form's canonical spelling does each one once.  (Exceptions are
# not cached: an invalid URL is rare and cheap to judge again.)
@lru_cache(maxsize=1 << 16)
def _canonical_absolute(url: str) -> str:
    scheme = scheme_of(url)
    if scheme not in HTTP_SCHEMES:
        if not scheme:
            raise InvalidURL("not an absolute URL")
        return scheme + url[len(scheme) :]
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise InvalidURL(str(exc)) from None
    netloc = parts.netloc
    if not netloc:
        raise InvalidURL("no host")
    userinfo, _, hostport = netloc.rpartition("@")
    had_brackets = hostport.startswith("[")
    host = _canonical_host(parts.hostname or "", had_brackets)
    out = [scheme, "://"]
    if userinfo:
        out += [_normalize_escapes(userinfo, _SAFE_USERINFO), "@"]
    out.append(host)
    if port is not None and port != _DEFAULT_PORTS[scheme]:
        out += [":", str(port)]
    path = _remove_dot_segments(_normalize_escapes(parts.path, _SAFE_PATH)) or "/"
    out.append(path if path.startswith("/") else "/" + path)
    if parts.query:
        out += ["?", _normalize_escapes(parts.query, _SAFE_QUERY)]
    return "".join(out)


def is_near(url: str, prefixes: tuple[str, ...]) -> bool:
    """A URL is near (in the site) when it starts with one of the prefixes."""
    return url.startswith(prefixes)
