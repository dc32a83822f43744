"""A Markdown file's link found without its parser: the one inline link
``[text](href)`` or image ``![alt](src)`` of a file whose target holds a
name the file holds once, in a plain paragraph, a list item, a heading or
a GFM table's cell (its text perhaps wrapped over lines), so most places
of findings in a Markdown project are mapped without importing markdown-it
(a tenth of a small build's walk) or parsing the file.

The line is only a proposal: ``places.py`` maps it when the tool can have
made the built link of it (``match.candidates``), its text and its block's
words are the built link's (a table's cell: the cell's words, as the
page's ``<td>``; a MyST role, whose shown words only Sphinx knows: a
wildcard, the words around it checked in order), and the built page has
one link to that target.  Anything the parser could read otherwise refuses
it (None: the parser decides): the name on another line or twice, a line
in a fenced or indented code block, in front matter, in an HTML block or a
comment, in a code span, with an escape or HTML; an image inside a link's
text; a table whose rows are not all begun with ``|``, of unlike counts of
cells, with an escape or a code span holding ``|``, or the link in its
header row; a block whose words (code spans' text included) are not the
built block's; in a Jekyll file, a block holding Liquid or a line inside a
Liquid block whose content is not the page's Markdown (``highlight``,
``raw``, ``comment``, ``capture``).  (A Jekyll file's other Liquid, an
include's HTML or a link Liquid spells, cannot make a second link to the
target unseen: the built page must have one.)"""

from __future__ import annotations

import re
from typing import NamedTuple
from urllib.parse import unquote, urlsplit

from linkaudit.sources.links import WILD

LINK = re.compile(r"(!?)\[([^\[\]`\\<>]*)\]\(([^()\s<>\\`]+)\)")
FENCE = re.compile(r"^(\s*)(`{3,}|~{3,}|:{3,})(.*)$")
# a fence inside a list item or a block quote: where it ends is the parser's
# to say (on the marker's line: a quote's last ">" line before a fence at
# the margin, click's faqs.md, leaves the fence at the margin)
NESTED_FENCE = re.compile(r"^[ \t]*(?:(?:[>*+-]|\d+[.)])[ \t]*)+(?:`{3}|~{3}|:{3})", re.M)
STARTS = re.compile(r"^ {0,3}(?:[-*+]\s|\d+[.)]\s|#{1,6}\s)|^\s*[-*+]\s")
HEADING = re.compile(r"^ {0,3}#{1,6}\s")
ROW = re.compile(r"^ {0,3}\|")  # a table's row, as the literal path reads one
DELIMITER = re.compile(r"^ {0,3}\|?(?:\s*:?-+:?\s*\|)*\s*:?-+:?\s*\|?\s*$")
MARKER = re.compile(r"^\s*(?:[-*+]\s+|\d+[.)]\s+|>\s*|#{1,6}\s+)*")
SQUEEZE = re.compile(r"[\s\\]+")
# a code span: a run of backticks to the next run as long (CommonMark)
CODE = re.compile(r"(?<!`)(`+)(?!`)(.*?)(?<!`)\1(?!`)", re.S)
# a MyST fence of reST, whose section titles make ids too (`My Part`_)
EVAL_RST = re.compile(
    r"^ {0,3}(`{3,}|~{3,})\s*\{eval-rst\}[^\n]*\n(.*?)(?:^ {0,3}\1|\Z)", re.M | re.S
)
ROLE_NAME = re.compile(r"\{[\w:.-]+\}(?=`)")
# a role's content, MyST's {name}`...` or reST's :name:`...`
ROLE = re.compile(r"(?:\{[\w:.-]+\}|:[\w:.-]+:)`([^`]*)`")
# what makes lines other than a paragraph's across blank lines (HTML blocks
# of kinds 1-5: comments, <pre>, <script>, <style>, <textarea>, <?, <!X)
# Liquid blocks whose content is code, text or nothing on the page (Jekyll)
LIQUID_BLOCK = re.compile(r"\{%-?\s*(highlight|raw|comment|capture)\b")
HTML_SPANS = re.compile(r"<!--|<\?|<!\[|<!\w|<(?:pre|script|style|textarea)\b", re.I)


class Literal(NamedTuple):
    line: int  # 1-based
    href: str
    text: str
    block: str  # the block's words, its links' texts for the links
    image: bool = False  # ![alt](src): its text the alt


def _squeezed(text: str) -> str:
    return SQUEEZE.sub("", unquote(text)).lower()


def _quiet(lines: list[str], at: int) -> bool:
    """Line ``at`` is a paragraph's: not in front matter nor a fenced
    block (none indented four spaces or more in the file: their
    nesting is the parser's to say), not indented as code."""
    if lines and lines[0].strip() in ("---", "+++"):
        closing = lines[0].strip()
        end = next((i for i in range(1, len(lines)) if lines[i].strip() == closing), None)
        if end is None or at <= end:
            return False
    fence: str | None = None  # the open fence's run
    for i, line in enumerate(lines[: at + 1]):
        found = FENCE.match(line)
        if found is not None:
            if len(found.group(1).expandtabs(4)) >= 4:
                return False
            run, rest = found.group(2), found.group(3)
            if fence is None:
                fence = run
            elif run[0] == fence[0] and len(run) >= len(fence) and not rest.strip():
                fence = None
        if i == at:
            return fence is None and found is None
    return False


def _alnum(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "", text.lower())


def _in_liquid_block(text: str, at: int) -> bool:
    """Line ``at`` (0-based) is inside a Liquid block whose content is not
    the page's Markdown (``{% highlight %}``, ``raw``, ``comment``,
    ``capture``), or such a block is not closed.  What a ``raw`` block
    holds is text, not tags (Jekyll's history writes ``{% raw %}`{%
    highlight %}`{% endraw %}``)."""
    raw_end = 0  # where the last raw block ends
    for found in LIQUID_BLOCK.finditer(text):
        if found.start() < raw_end:
            continue
        end = re.compile(r"\{%-?\s*end" + found.group(1) + r"\b").search(text, found.end())
        if end is None:
            return True
        if text.count("\n", 0, found.start()) <= at <= text.count("\n", 0, end.end()):
            return True
        if found.group(1) == "raw":
            raw_end = end.end()
    return False


def find(
    text: str, name: str, tail: str | None = None, liquid: bool = False, href: str | None = None
) -> Literal | None:
    """The one inline link whose target holds ``name`` (lower case, as
    ``_squeezed`` compares), or None (see the module's doc).  ``tail``: a
    fragment's last dotted part; a role whose target may make that id
    (``{ref}`My Part``` -> ``#my-part``, ``{func}`a.b``` -> ``#x.a.b``)
    without holding the name refuses it, and so does a reST fence that
    holds the part (a section title makes an id).

    ``href``: the one inline link whose target is ``href`` exactly, the
    file holding that text once, as ``](href)`` (a built link whose href
    is the source's as written: Jekyll's ``#Commands`` in a file that says
    "commands" thirty times); refused as above otherwise."""
    if href is not None:
        if not href or text.count(href) != 1 or text.count(f"]({href})") != 1:
            return None
    elif not name or _squeezed(text).count(name) != 1:
        return None
    if HTML_SPANS.search(text) or NESTED_FENCE.search(text):
        return None
    if tail is not None:
        if not _alnum(tail):
            return None
        spans = ROLE.findall(text) + [body for _, body in EVAL_RST.findall(text)]
        if any(_alnum(tail) in _alnum(span) for span in spans):
            return None
    lines = text.split("\n")
    at = line_holding(lines, name) if href is None else text.count("\n", 0, text.index(href))
    if at is None:
        return None
    if len(lines[at]) - len(lines[at].lstrip()) >= 4 or not _quiet(lines, at):
        return None
    start = at  # the block: no blank line, a list item or a heading starts one
    while start > 0 and lines[start - 1].strip() and not STARTS.match(lines[start]):
        start -= 1
    end = at + 1
    while end < len(lines) and lines[end].strip() and not STARTS.match(lines[end]):
        end += 1
    if HEADING.match(lines[at]) and end > at + 1:
        return None
    block = "\n".join(lines[start:end])
    cells = _cells(lines, at)
    if cells is not None:  # a table's row: the block is the cell holding the link
        wanted = name if href is None else _squeezed(href)
        holding = [c for c in cells if wanted in _squeezed(c)]
        if len(holding) != 1:
            return None
        block, start = holding[0], at
    if liquid and ("{{" in block or "{%" in block or _in_liquid_block(text, at)):
        return None
    if any(c in block for c in "\\|\t") or any(
        b.lstrip().startswith("<") for b in block.split("\n")
    ):
        return None
    masked = CODE.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), block)
    before = masked.split("\n")[: at - start]
    line = masked.split("\n")[at - start]
    if "`" in line or "<" in line:
        return None
    on_line = sum(len(b) + 1 for b in before)  # where line ``at`` starts in the block
    links = [
        m
        for m in LINK.finditer(masked)
        if on_line <= m.start(3) < on_line + len(line)
        and (name in _squeezed(m.group(3)) if href is None else m.group(3) == href)
    ]
    if len(links) != 1 or (links[0].group(1) and masked[: links[0].start()].endswith("[")):
        return None  # (an image in a link's text: the link's words hold it)
    # the text as the page shows it: its code spans (blanked in ``masked``,
    # whole inside the brackets, which no span holds) as their content; an
    # image's (its alt) is no text of the block
    written = block[links[0].start(2) : links[0].end(2)]
    spoken = CODE.sub(lambda m: m.group(2), ROLE.sub(WILD, block))
    unmarked = "\n".join(MARKER.sub("", b) for b in spoken.split("\n"))
    shown = LINK.sub(lambda m: "" if m.group(1) else m.group(2), unmarked).split("\n")
    text = " ".join(CODE.sub(lambda m: m.group(2), written).split())
    image = bool(links[0].group(1))
    return Literal(at + 1, links[0].group(3), text, " ".join(shown), image)


def _cells(lines: list[str], at: int) -> list[str] | None:
    """The cells of line ``at`` when it is a body row of a GFM table (the
    lines around it without a blank one: a header row, a delimiter row,
    rows, each begun with ``|``), as markdown-it splits it; [] (none
    found: refused) where the parser may read the row otherwise: an
    escape or a tab, a code span holding ``|``, a row of another count
    of cells than the header's; None: no table."""
    if "|" not in lines[at]:
        return None
    first, last = block_around(lines, at)
    rows = lines[first:last]
    if len(rows) < 2 or not DELIMITER.match(rows[1]) or "|" not in rows[1]:
        return None
    if at - first < 2 or any(not ROW.match(row) or "\\" in row or "\t" in row for row in rows):
        return []
    if any("|" in m.group(0) for row in rows for m in CODE.finditer(row)):
        return []
    split = [row.strip().removeprefix("|").removesuffix("|").split("|") for row in rows]
    if len({len(cells) for cells in split}) != 1:
        return []
    return [cell.strip() for cell in split[at - first]]


def target_name(resolved_key: str) -> tuple[str, str | None] | None:
    """The name a source's target of a built link must hold whatever the
    tool made of it (``x.md``, ``x/``, ``x.html``: ``x``; a fragment: the
    fragment, which a link writes as it is), lower case, from the link's
    resolved URL as ``match.key`` makes it, and for a fragment its last
    dotted part (what a role's target may end with: ``find``); None: no
    name."""
    url, _, fragment = resolved_key.partition("#")
    if fragment:
        name = SQUEEZE.sub("", fragment).lower()
        return (name, fragment.rpartition(".")[2]) if name else None
    last = next((p for p in reversed(urlsplit(url).path.split("/")) if p), "")
    if re.search(r"\.html?$", last, re.I):
        last = last.rpartition(".")[0]
    name = SQUEEZE.sub("", last).lower()
    return (name, None) if name else None


def block_around(lines: list[str], at: int) -> tuple[int, int]:
    """The lines (start, end: 0-based, end excluded) of the block of
    non-blank lines that holds line ``at``."""
    start = at
    while start > 0 and lines[start - 1].strip():
        start -= 1
    end = at + 1
    while end < len(lines) and lines[end].strip():
        end += 1
    return start, end


def line_holding(lines: list[str], name: str) -> int | None:
    """The index of the one line whose squeezed text holds ``name``; None
    when no line or several do (the name split across lines, or written
    twice: a literal path refuses both)."""
    holding = [
        i
        for i, line in enumerate(lines)
        # (``_squeezed`` without its regex where the line has no escape to decode)
        if name in ("".join(line.split()).lower() if "%" not in line and "\\" not in line
                    else _squeezed(line))
    ]  # fmt: skip
    return holding[0] if len(holding) == 1 else None
