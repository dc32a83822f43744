"""Reading HTML as a browser does: every URL a page points at, read as a browser's HTML
parser reads it, with the line where the linking element's start tag begins.

A single pass of regular expressions over the page, following the HTML
Standard's tokenizer where it decides what is a link and what it says:

- comments (``<!-->`` and ``<!--->`` end at once), bogus comments (``<?...>``,
  ``<![CDATA[...]`` outside SVG and MathML, ``</ x>``), doctypes and end tags
  (quoted attribute values may hold a ``>``) hide nothing they should not;
- the content of ``script`` (with its escaped states), ``style``, ``xmp``,
  ``iframe``, ``noembed``, ``noframes`` (raw text), ``textarea``, ``title``
  (RCDATA) and ``plaintext`` is text, never tags;
- attributes: names lower-cased, the first of duplicates wins, values with
  character references decoded by the attribute rule (``&sect=2`` stays as
  written, ``&sect;`` is ``§``), NUL as U+FFFD, an unterminated quote or tag
  ends the document;
- SVG and MathML (foreign content): ``<a href>`` / ``xlink:href``,
  ``<image>``, ``<use>``, ``<feImage>``, ``<script>``; CDATA sections;
  integration points (``foreignObject``, ``desc``, ``title``, MathML text)
  hold HTML; an HTML element such as ``<p>`` breaks out;
- ``<image src>`` is ``<img>``; the first ``<base>`` with an ``href`` (an empty
  one included, not one inside SVG) is the base;
- ``srcset`` and ``<meta http-equiv=refresh>`` by the Standard's algorithms;
- CR, LF and CRLF each end a line.

lxml is not used: its ``sourceline`` is where a start tag ends, saturates at
65535, and its tree drops the positions.  Text, and every tag that cannot be
a link, is skipped inside one regular expression (C speed); Python only sees
the tags that matter.  ``<noscript>`` is read as markup (a browser without
scripts, or a crawler, follows its links).
"""

from linkaudit.rules.html.charrefs import decode_attribute
from linkaudit.rules.html.links import (
    CappedExtracted,
    Extracted,
    RawLink,
    capped_links,
    extract_links,
    links_in_tag,
)
from linkaudit.rules.html.microsyntax import parse_meta_refresh, parse_srcset
from linkaudit.rules.html.tokenizer import Tag, start_tags

__all__ = [
    "CappedExtracted",
    "Extracted",
    "RawLink",
    "Tag",
    "capped_links",
    "decode_attribute",
    "extract_links",
    "links_in_tag",
    "parse_meta_refresh",
    "parse_srcset",
    "start_tags",
]
