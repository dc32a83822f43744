"""What the HTML report's sections share: escaping, links, counts,
headings, and where a target is linked from.

Everything from the report goes through :func:`esc` (URLs and error texts
come from the web), and only http(s) URLs become links (:func:`link`): a
``javascript:`` href found on an audited page stays text."""

from __future__ import annotations

import re
from collections.abc import Iterable
from html import escape
from typing import Any
from urllib.parse import quote

from linkaudit.output.formats.common import no_line, shown
from linkaudit.output.formats.html.buildlinks import BUILD
from linkaudit.output.formats.places import is_hop
from linkaudit.output.report.records import Place, SourceAt

SHOWN_REFERRERS = 5  # a target's first pages in view; the rest behind <details>
# Items a static list holds: past this, a list points at the all-URLs table,
# which pages through any number.  Measured on a 15,000-URL report with 3,000
# broken: 1,000 a list took 2 s to open in Chromium, 200 about 0.6 s.
LIST_LIMIT = 200
_WEB = re.compile(r"https?://", re.IGNORECASE)
# What a URL may hold unencoded (RFC 3986): the rest (a quote, a space, <, >)
# is percent-encoded in an href, as the browser would do when following it.
_URL_SAFE = "!#$%&'()*+,-./:;=?@[]_~"


def esc(value: Any) -> str:
    """Text for HTML: markup escaped, and what is not printable written as
    an escape (:func:`shown`): the control characters HTML forbids (a NUL
    in an error text), bidi overrides that would show ``exe.png`` for
    ``gnp.exe``, lone surrogates that UTF-8 cannot encode."""
    return escape(shown(value), quote=True)


def link(url: str, text: str | None = None, file: str | None = None) -> str:
    """``url`` as a link when it is http(s), else as text; a build's URL
    (``BuildLinks``) as a link to its file (``file``, when the report names
    it) or its deployed URL, named by its path."""
    build = BUILD.get()
    if build is not None and build.owns(url):
        return anchor(build.name(url, file) if text is None else text, build.href(url, file))
    words = esc(url if text is None else text)
    if _WEB.match(url):
        # surrogatepass: a lone surrogate (from a state) cannot be UTF-8
        href = quote(url, safe=_URL_SAFE, errors="surrogatepass")
        return f'<a class="url" href="{esc(href)}">{words}</a>'
    return f'<span class="url">{words}</span>'


def anchor(words: str, href: str | None) -> str:
    """``words`` as a link to ``href`` (a build's file, relative to the
    page, or its deployed URL), or as text when there is nothing to open."""
    if not href:
        return f'<span class="url">{esc(words)}</span>'
    href = quote(href, safe=_URL_SAFE, errors="surrogatepass")
    return f'<a class="url" href="{esc(href)}">{esc(words)}</a>'


def count(key: str, n: int) -> str:
    """A count tests and scripts find by ``data-count`` (escaped as any
    value: a report read back may hold text where a count was)."""
    return f'<span class="count" data-count="{esc(key)}">{esc(n)}</span>'


def badge(text: str, kind: str) -> str:
    return f'<span class="badge b-{esc(kind)}">{esc(text)}</span>'


def section(ident: str, title: str, n: int | None, body: str, level: int = 2) -> str:
    """A section (level 2) or a part of one (3), with its heading and count."""
    shown = f" {count(ident, n)}" if n is not None else ""
    head = f'<h{level} id="{ident}-h">{esc(title)}{shown}</h{level}>{body}'
    if level == 2:
        return f'<section id="{ident}" class="part" aria-labelledby="{ident}-h">{head}</section>'
    return f'<div id="{ident}" class="sub">{head}</div>'


def places(referrers: list[Place], total: int | None = None) -> str:
    """The pages and lines that link to a target: the first few in view,
    the rest (to LIST_LIMIT) behind <details>; ``total``: the link count,
    when the report kept fewer referrers than it counted."""
    if not referrers and total:  # an ok URL's places are not kept (a soft 404's)
        return (
            f'<p class="muted">Linked {total:,} times; the report keeps the places of the'
            " URLs that are not ok only.</p>"
        )
    if not referrers:
        return '<p class="muted">Linked from no page: a start URL, or a sitemap.</p>'
    # a page's line before a redirect that leads here: the page is what a person edits
    kept = sorted(referrers, key=is_hop)[:LIST_LIMIT]
    html = _place_list(kept[:SHOWN_REFERRERS])
    rest = kept[SHOWN_REFERRERS:]
    if rest:
        html += f"<details><summary>{len(rest)} more</summary>{_place_list(rest)}</details>"
    total = max(total or 0, len(referrers))
    if total > len(kept):
        html += (
            f'<p class="muted">and {total - len(kept):,} more: {total:,} links in all,'
            " the JSON report has them.</p>"
        )
    return html


def _no_line(referrer: Place) -> str:
    """Why a referrer has no line, as the text says it (a redirect here)."""
    why = no_line(referrer)
    return "redirects here" if why == "redirect" else why


def _place_list(referrers: Iterable[Place]) -> str:
    items = []
    build = BUILD.get()
    for r in referrers:
        line = r["line"]
        at = f"line {line}" if line is not None else _no_line(r)
        file = f' <span class="file">{esc(r["file"])}</span>' if r.get("file") else ""
        page = link(r["url"])
        if r.get("file") and build is not None and build.owns(r["url"]):
            page, file = link(r["url"], file=r["file"]), ""  # a build's page: its file, a link
        place = f'{page} <span class="line">{at}</span>{file}'
        source = _source(r)
        if source:  # the line a person edits first, the built page second
            place = f'{source} <span class="built">(built {place})</span>'
        via = data = ""
        if r.get("via"):  # the page links a redirect that leads here
            via = f' <span class="via">through {link(r["via"])}</span>'
            data = f' data-via="{esc(r["via"])}"'
        if isinstance(r.get("href"), str):  # as the page wrote it
            via = f' <span class="href">written as <code>{esc(r["href"])}</code></span>{via}'
        if r.get("unmapped"):
            via += f' <span class="muted">no source: {esc(r["unmapped"])}</span>'
        items.append(
            f'<li data-page="{esc(r["url"])}" data-line="{esc(line)}"{data}>{place}{via}</li>'
        )
    return f'<ul class="places">{"".join(items)}</ul>'


def _source(referrer: Place) -> str:
    """A place's source file and line (``source``; a link whose URL a
    definition holds: the definition's), a link to the file when the page
    can reach it; "" for a place without one."""
    source = referrer.get("source")
    if not isinstance(source, dict) or not isinstance(source.get("file"), str):
        return ""
    defined = source.get("defined")
    said = ""
    at: SourceAt = source  # the line to edit
    if isinstance(defined, dict) and isinstance(defined.get("file"), str):
        used = f"line {source.get('line')}"
        if defined["file"] != source["file"]:
            used = f"{source['file']}:{source.get('line')}"
        said = f' <span class="muted">(the definition of the link at {esc(used)})</span>'
        at = defined
    build = BUILD.get()
    href = build.source_href(at["file"]) if build is not None else None
    name = build.files.file(at["file"]) if build is not None else at["file"]
    line = f' <span class="line">line {esc(at["line"])}</span>' if at.get("line") else ""
    return anchor(name, href) + line + said


def outcome_badge(outcome: str, status: int | None = None) -> str:
    code = f' <span class="status">{status}</span>' if status is not None else ""
    return f'<span class="badge o-{esc(outcome)}">{esc(outcome)}{code}</span>'


def more_note(total: int, what: str, in_table: bool = True) -> str:
    """Past LIST_LIMIT: how many more, and where they are."""
    if total <= LIST_LIMIT:
        return ""
    where = "the JSON report lists them all"
    if in_table:
        where = "the table of all URLs below has them (filter by outcome), the JSON report too"
    return f'<p class="note">{total - LIST_LIMIT} more {what}: {where}.</p>'
