"""Sitemaps (sitemaps.org 0.9): the ``<loc>`` URLs of a ``<urlset>`` or of a
``<sitemapindex>``, each with the line of its start tag.

Decisions:

- gzip is recognised by its magic bytes (1f 8b), whatever the URL or the
  Content-Type says.  It is decompressed incrementally, never more than
  ``maxsize`` bytes of output: past the cap nothing is parsed (kind
  "urlset", no entries, error "larger than N bytes once decompressed"), so a
  gzip bomb costs at most ``maxsize`` bytes.  Concatenated gzip members are
  read (up to rules/inflate.py's MAX_MEMBERS: past it, error "more than N
  gzip members" and nothing parsed), in time linear in the body; bytes after
  the last member that do not start one are ignored; a corrupt or truncated
  stream is "not a valid gzip file".  ``maxsize`` must
  be positive (Scrapy's 0, "no limit", is the caller's to map to a cap).
- The XML parser loads no DTD, touches no network, expands no entity but the
  five predefined ones and character references (an external or internal
  entity declared in a DOCTYPE stays as written, ``&name;``), keeps
  libxml2's size limits (no huge_tree) and does not recover from errors.
- The root element's local name decides (``urlset``: ``url/loc``;
  ``sitemapindex``: ``sitemap/loc``, direct children only), in the
  sitemaps.org namespace or in none; elements of other namespaces
  (``image:loc``, ``xhtml:link``...) are ignored.  Every non-empty ``<loc>``
  of an entry counts, duplicates kept (the caller dedupes).
- A ``<loc>``'s value is its text with CDATA sections, comments and
  processing instructions dropped, whitespace (XML's: space, tab, CR, LF)
  stripped, not resolved against anything; its line is the one its start
  tag is on.
- A body that is not XML but whose non-empty lines all start with http://
  or https:// (any case) is a plain-text sitemap: a "urlset" of the
  stripped lines, with their line numbers (UTF-8, a BOM skipped; CR, LF and
  CRLF end lines).
- Anything else is kind "urlset", no entries, and a one-line error.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from lxml import etree

from linkaudit.rules.inflate import GZIP_MAGIC, CorruptBody, inflate

NAMESPACE = "http://www.sitemaps.org/schemas/sitemap/0.9"
_XML_SPACE = " \t\r\n"
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_ENTRY = {"urlset": "url", "sitemapindex": "sitemap"}


class SitemapEntry(NamedTuple):
    loc: str  # the <loc> text, whitespace-stripped (XML entities decoded), not resolved
    line: int  # 1-based line of the <loc> element's start tag in the (decompressed) XML


class Sitemap(NamedTuple):
    kind: str  # "urlset" or "sitemapindex"
    entries: list[SitemapEntry]
    error: str | None  # None, or one line saying why it is not a sitemap / was cut


class _NotASitemap(Exception):
    pass


def parse_sitemap(body: bytes, maxsize: int) -> Sitemap:
    """A sitemap (sitemaps.org 0.9) or sitemap index, gzip-compressed or not.

    A gzip body larger than ``maxsize`` bytes once decompressed is not parsed
    at all: kind "urlset", no entries, error "larger than N bytes once
    decompressed"."""
    if maxsize <= 0:
        raise ValueError(f"maxsize must be positive, not {maxsize}")
    try:
        if body[:2] == GZIP_MAGIC:
            body = _gunzip(body, maxsize)
        return _parse(body)
    except _NotASitemap as e:
        return Sitemap("urlset", [], str(e))


def _gunzip(body: bytes, maxsize: int) -> bytes:
    """The decompressed ``body``, never more than ``maxsize`` bytes, in time
    linear in its size (rules/inflate.py)."""
    try:
        body, cut, complete = inflate(body, b"gzip", maxsize)
    except CorruptBody:
        raise _NotASitemap("not a valid gzip file") from None
    if cut:  # too large, or too many members: a part of a sitemap is not read
        raise _NotASitemap(cut)
    if not complete:
        raise _NotASitemap("not a valid gzip file")
    return body


def _parse(body: bytes) -> Sitemap:
    parser = etree.XMLParser(
        resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False, recover=False
    )
    try:
        root = etree.fromstring(body, parser)
    except etree.XMLSyntaxError as e:
        plain = _plain_text(body)
        if plain is not None:
            return Sitemap("urlset", plain, None)
        message = (e.msg or "").splitlines()
        raise _NotASitemap(f"not XML: {message[0] if message else 'unreadable'}") from None
    name = etree.QName(root)
    if name.localname not in _ENTRY or name.namespace not in (None, NAMESPACE):
        where = f" in namespace {name.namespace}" if name.namespace else ""
        raise _NotASitemap(f"not a sitemap: the root element is <{name.localname}>{where}")
    entry_tags = {_ENTRY[name.localname], f"{{{NAMESPACE}}}{_ENTRY[name.localname]}"}
    entries: list[SitemapEntry] = []
    for entry in root:
        if entry.tag not in entry_tags:
            continue
        for loc in entry:
            if loc.tag in ("loc", f"{{{NAMESPACE}}}loc"):
                text = "".join(loc.itertext()).strip(_XML_SPACE)
                if text:
                    entries.append(SitemapEntry(text, loc.sourceline))
    return Sitemap(name.localname, entries, None)


def _plain_text(body: bytes) -> list[SitemapEntry] | None:
    """The lines of a plain-text sitemap, or None if ``body`` is not one."""
    try:
        text = body.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None
    entries = [
        SitemapEntry(stripped, number)
        for number, line in enumerate(_LINE_BREAK.split(text), 1)
        if (stripped := line.strip(_XML_SPACE))
    ]
    if not entries or not all(e.loc.lower().startswith(("http://", "https://")) for e in entries):
        return None
    return entries


_ROBOTS_SITEMAP = re.compile(rb"^[ \t]*sitemap[ \t]*:[ \t]*(\S+)", re.IGNORECASE | re.MULTILINE)


def robots_sitemaps(body: bytes) -> list[tuple[str, int]]:
    """The ``Sitemap:`` lines of a robots.txt body: (URL as written, line)."""
    found = []
    line, counted = 1, 0  # newlines counted once, not from the top for each line
    for m in _ROBOTS_SITEMAP.finditer(body):
        line += body.count(b"\n", counted, m.start())
        counted = m.start()
        found.append((m.group(1).decode("utf-8", "replace"), line))
    return found
