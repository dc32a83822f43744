"""The page scan tried on a known page before an audit starts.

The scan is a few large regular expressions; a Python whose ``re`` misreads
them finds no link and reports a broken site as clean, with exit 0 (CPython
3.11.0 to 3.11.4 did, see ``linkaudit.rules.repeats``).  So every way in
(the command, ``scrapy crawl``, Scrapyd) scans this page first, in each of
the scan's modes, and refuses to run with one line when the links found are
not the ones written here.  It costs a millisecond, once per process.
"""

from __future__ import annotations

import functools
import platform

from linkaudit.rules.html.links import extract_links

# Every kind of markup the scan's patterns jump over or stop at: attributes
# quoted and not, an "=" where a name may start, a ">" in a value, a "/" in
# an unquoted value, a comment holding a link, an <a> without href, CSS in
# <style> and in a style attribute, srcset, SVG, a <td> without and with
# background.
KNOWN_PAGE = """<!DOCTYPE html>
<html lang=en><head><meta charset="utf-8"><title>t</title>
<link rel="stylesheet" href="/s.css">
<style>@import "/i.css"; /* url(/no) */ p { background: url( '/b.png' ) }</style>
</head>
<body class="x" data-a='1' =" x>
<!-- <a href="/no"> -->
<div id=main title="a > b" data-x=y/z><p>text <b>bold</b> &amp; more</p>
<a name="top">top</a> <a class=c href=/a?q=1&amp;r=2>a</a>
<img alt="" src="/i.png" srcset="/i1.png 1x, /i2.png 2x">
<span style="background:url(/s.png)">s</span><br/>
<svg><a xlink:href="/svg"/></svg><table><tr class=r><td>c</td><td background="/bg.png">
<a href="/last">last</a>
</div></body></html>
"""
_MARKUP = [
    ("/s.css", 3, "link"),
    ("/a?q=1&r=2", 9, "a"),
    ("/i.png", 10, "img"),
    ("/i1.png", 10, "img"),
    ("/i2.png", 10, "img"),
    ("/svg", 12, "a"),
    ("/bg.png", 12, "td"),
    ("/last", 13, "a"),
]
_CSS = [("/i.css", 4, "style"), ("/b.png", 4, "style"), ("/s.png", 11, "style")]
_ANCHORS = {"main", "top"}


def _expected(css: bool) -> list[tuple[str, int, str]]:
    links = _MARKUP + (_CSS if css else [])
    return sorted(links, key=lambda link: link[1])


@functools.cache
def scanner_fault() -> str | None:
    """None when the scan reads the known page right in every mode; else
    the one line to print before refusing to run."""
    for css in (False, True):
        for anchors in (False, True):
            found = extract_links(KNOWN_PAGE, css=css, anchors=anchors)
            got = [(link.value, link.line, link.tag) for link in found.links]
            wanted = _expected(css)
            if got != wanted or (anchors and found.anchors != _ANCHORS):
                return (
                    f"the page scan fails its self-check on Python {platform.python_version()}"
                    f" (it found {len(got)} of the {len(wanted)} links of a known page):"
                    " an audit would miss links; run linkaudit with another Python"
                    " (CPython 3.11.5 or newer reads it right)"
                )
    return None
