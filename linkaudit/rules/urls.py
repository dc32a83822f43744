"""Canonical URLs: the URL a browser would request, in the one spelling that
the audit, its report and its dedupe all use.

A link is resolved as a browser resolves it, by the WHATWG URL Standard:
ada (https://github.com/ada-url/ada, the ``ada-url`` package) parses it,
against the page's URL or its ``<base href>``: leading and trailing C0
controls and spaces stripped, tabs and newlines removed, backslashes read as
slashes, hosts mapped by UTS #46 (non-transitional) and IPv4 number forms
normalised, dot segments resolved, an empty path written ``/``, the default
port and an empty user information dropped.  What the Standard rejects is
:class:`InvalidURL` and is never requested.

The report contract (``docs/report.md``, "Canonical URLs") then asks for a few
normalisations on top: no fragment, no empty query (``x.eot?#iefix`` is
``x.eot``), escapes of unreserved characters decoded (``%7E`` is ``~``),
other escapes in upper-case hex, a ``%`` that starts no escape left as it
is, the query in its order.  ``canonicalize`` is
idempotent: ``canonicalize(canonicalize(u)) == canonicalize(u)``.

Other schemes (``mailto:``, ``javascript:``...) are never requested: they
are reported as written, with the scheme in lower case.
"""

from __future__ import annotations

import ipaddress
import re
from functools import lru_cache

from ada_url import idna_to_ascii, join_url, normalize_url

__all__ = ["InvalidURL", "canonicalize", "clean", "is_near", "scheme_of"]

HTTP_SCHEMES = frozenset({"http", "https"})

# The URL parser's first steps: strip leading and trailing C0 controls and
# spaces, remove every tab and newline (not NBSP or other Unicode spaces).
C0_SPACE = "".join(map(chr, range(0x21)))
_TAB_NEWLINE = re.compile(r"[\t\n\r]")
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*):")
_PORT = re.compile(r":[0-9]*$")
_ASCII_DIGITS = re.compile(r"[0-9]+")
_ESCAPE = re.compile(r"%([0-9A-Fa-f]{2})")
_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")


class InvalidURL(ValueError):
    """A link whose URL a browser would not follow (the message says why)."""


def clean(value: str) -> str:
    """The URL parser's input cleaning: what the parser reads of ``value``."""
    value = value.strip(C0_SPACE)
    if "\t" in value or "\n" in value or "\r" in value:
        value = _TAB_NEWLINE.sub("", value)
    return value


def scheme_of(url: str) -> str:
    """The lower-cased scheme of an absolute URL, ``""`` when it has none."""
    m = _SCHEME.match(clean(url))
    return m.group(1).lower() if m else ""


def _fix_escape(m: re.Match[str]) -> str:
    char = chr(int(m.group(1), 16))
    return char if char in _UNRESERVED else "%" + m.group(1).upper()


def _contract_form(href: str) -> str:
    """A WHATWG-serialised http(s) URL in the contract's canonical form."""
    href = href.partition("#")[0]
    if href.find("?") == len(href) - 1:  # an empty query names no parameter (docs/urls.md)
        href = href[:-1]
    if "%" in href:  # the host never holds one: ada decodes and maps it
        href = _ESCAPE.sub(_fix_escape, href)
    return href


@lru_cache(maxsize=1 << 16)
def _resolve(value: str, base: str | None) -> str:
    """http(s) ``value`` (or a relative reference) resolved and canonical."""
    try:
        href = join_url(base, value) if base else normalize_url(value)
    except ValueError:
        raise InvalidURL(_why(value, base)) from None
    if not href.startswith(("http://", "https://")):
        # a relative reference against a base that is not http(s)
        raise InvalidURL(_why(value, base))
    host = href.split("/", 3)[2].rpartition("@")[2]
    if "xn--" in host:
        _check_punycode(host)
    return _contract_form(href)


def _check_punycode(host: str) -> None:
    """UTS #46 asks that an ``xn--`` label decode, and to a label that maps
    to itself; ada 4.0 lets undecodable ones through (``xn--``,
    ``xn--pokxncvks``), which the Standard's tests reject."""
    for label in _PORT.sub("", host).split("."):
        if not label.startswith("xn--"):
            continue
        try:
            decoded = label[4:].encode("ascii").decode("punycode")
            valid = bool(decoded) and idna_to_ascii(decoded) == label.encode("ascii")
        except (UnicodeError, ValueError):
            valid = False
        if not valid:
            raise InvalidURL(f"bad international host name {host!r} ({label} does not decode)")


def canonicalize(url: str, base: str | None = None) -> str:
    """Resolve ``url`` against ``base`` (a canonical http(s) URL) and return
    its canonical form.

    Non-http(s) URLs are returned as written, with only the scheme in lower
    case: they are never requested, only reported.  Raises
    :class:`InvalidURL` for a link a browser would not follow.
    """
    value = clean(url)
    m = _SCHEME.match(value)
    if m is not None:
        scheme = m.group(1).lower()
        if scheme not in HTTP_SCHEMES:
            return scheme + value[len(scheme) :]
        # against a base: "http:foo" is relative to an http base, absolute
        # (http://foo/) against an https one, as the Standard says
    elif base is None:
        raise InvalidURL("not an absolute URL")
    else:
        value, base = _cache_key(value, base)
    return _resolve(value, base)


# A base as canonicalize makes it: http(s), an authority, a path of "/"
# separated segments (none of them a dot segment the parser would remove
# at the end), a query, no fragment, nothing the parser strips or reads as
# a separator (spaces, controls, backslashes); its directory and last segment
_PLAIN_BASE = re.compile(
    r"(https?://[^\s/?#\\]++/(?:[^\s?#\\]*/)?)([^\s/?#\\%]*)(?:\?[^\s#\\]*)?", re.ASCII
)


@lru_cache(maxsize=256)
def _directory(base: str) -> str | None:
    """The directory of a plainly canonical http(s) base, None for any other."""
    m = _PLAIN_BASE.fullmatch(base)
    if m is None or m.group(2) in (".", ".."):
        return None
    return m.group(1)


def _cache_key(value: str, base: str) -> tuple[str, str]:
    """A relative reference and its base, reduced to what resolving it
    reads, so that ``_resolve``'s cache holds one entry for many links: a
    fragment-only reference (``#x``) resolves to the base itself (the
    fragment is dropped), a path-relative one (``os.html#x``, ``../c``)
    reads only the base's directory, its own fragment dropped too.  On the
    Python docs this halves the URL parser's calls: every page links its
    own sections and its directory's pages.  Only for ASCII references (ada
    refuses a lone surrogate wherever it stands) and plain bases; checked
    against resolving each value uncached in tests/test_scan_parity.py."""
    if not value.isascii() or (directory := _directory(base)) is None:
        return value, base
    first = value[:1]
    if first in ("", "#"):
        return "", base
    if first in ("/", "\\", "?"):
        return value, base
    head = value.partition("#")[0]  # unless that leaves a space the parser would strip
    return (head if head[-1] > " " else value), directory


def _why(value: str, base: str | None) -> str:
    """Words for a URL the Standard rejects (ada only says "invalid").

    It only explains: whatever the value, it returns words and never raises
    (a slip here would turn one odd link into the loss of its page).
    """
    try:
        return _explain(value, base)
    except Exception:  # noqa: BLE001 - the link is invalid either way
        return "not a valid URL"


def _explain(value: str, base: str | None) -> str:
    """The reference is read the way the parser reads it (backslashes as
    slashes) to find the part that fails; the first failing rule is named."""
    text = value.replace("\\", "/")
    if not _SCHEME.match(text):
        if base is None or not base.startswith(("http://", "https://")):
            return "not an absolute URL"
        if not text.startswith("//"):
            return "not a valid URL"
        text = base.split(":", 1)[0] + ":" + text
    rest = text.split(":", 1)[1].lstrip("/")
    authority = re.split(r"[/?#]", rest, maxsplit=1)[0]
    hostport = authority.rpartition("@")[2]
    if not hostport:
        return "no host"
    if hostport.startswith("["):
        host, closed, port = hostport[1:].partition("]")
        if not closed:
            return "bad IPv6 address (no closing ])"
        port = port[1:] if port.startswith(":") else port
        try:
            ipaddress.IPv6Address(host)
        except ValueError:
            return f"bad IPv6 address [{host}]"
    else:
        host, _, port = hostport.partition(":")
        if not host:
            return "no host"
    if port and not _ASCII_DIGITS.fullmatch(port):
        # the Standard's port is ASCII digits: str.isdigit() also takes "¹"
        # and "٣", which int() refuses or reads as 3
        return f"bad port {port!r}"
    if port and int(port) > 65535:
        return f"port {port} out of range"
    if host and not host.startswith("[") and _looks_ipv4(host):
        return f"bad IPv4 address {host!r}"
    if any(c in host for c in " <>^|%\x7f") or any(ord(c) < 0x20 for c in host):
        return f"bad host name {host!r}"
    if not host.isascii() or "xn--" in host.lower():
        return f"bad international host name {host!r}"
    return f"bad host name {host!r}"


def _looks_ipv4(host: str) -> bool:
    """The last label is a number: the Standard parses the host as IPv4."""
    last = host.rstrip(".").rpartition(".")[2].lower()
    if not last:
        return False
    return last.isdigit() or (
        last.startswith("0x") and all(c in "0123456789abcdef" for c in last[2:])
    )


def is_near(url: str, prefixes: tuple[str, ...]) -> bool:
    """A URL is near (in the site) when it starts with one of the prefixes."""
    return url.startswith(prefixes)
