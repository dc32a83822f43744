"""A reStructuredText file's link found without docutils: the one
reference whose target holds a name the file holds once, written inline
(`` `text <href>`_ ``, its text perhaps wrapped from the lines above, or
anonymous: `` `text <href>`__ ``) or as a named reference (`` `text`_ ``,
``text_``, an alias `` `text <text_>`_ ``, a substitution's ``|text|_``
whose ``replace::`` is plain words or a literal) to the one explicit
target that defines it (``.. _text: href``), in a plain paragraph or a
bullet list item's; so most places of findings in a Sphinx project are
mapped without importing docutils (its import alone is most of a small
build's 10 % bound) or parsing the file.  A name referenced N times is
mapped when the built page has N links to it: the k-th link, the k-th
reference in the file's order (``shortcuts.literal`` asks for it).

As with Markdown (``literal.py``), the line is only a proposal:
``shortcuts.literal`` maps it when the tool can have made the built link
of it, its text and its block's words are the built link's (a role in the
block, whose shown words only Sphinx knows, is a wildcard there: the words
around it must still match in order), and the built page has as many
links to that target as the file references.  Anything docutils could
read otherwise refuses it (None: the parser decides): a fragment (ids the
whole document makes), what pairs across blocks (anonymous targets, roles
the file defines), a line in or beside a simple table, an include, the
name on another line or twice, a target defined twice or by another
target, a reference across lines (but an inline one's text), and a
paragraph that is not a plain one: indented (a block quote, a directive's
body), a list item whose lines are indented unlike or that holds a list,
an enumerated or field list, a table, a section title, a comment or
directive, a quoted literal block, an escape, another substitution, a
footnote.

A Sphinx ``:ref:`title <label>``` or ``:doc:`title <path>``` is found
so too (``find_role``): the one role on the one line holding the name
(its title may hold it too), the page showing its title; so the Python
docs' ``whatsnew`` files' link to their changelog is mapped without
docutils (a fragment too: the role's label makes the id on another
page, ``shortcuts.literal``)."""

from __future__ import annotations

import re

from linkaudit.sources.blocks import _literal_before, _squeezed
from linkaudit.sources.links import WILD
from linkaudit.sources.literal import Literal, block_around, line_holding

# `text`_ / `text <href>`_, and `text <href>`__ (anonymous: group 3; one
# without its href pairs with an anonymous target, refused)
REFERENCE = re.compile(r"`([^`<>]+?)(?:\s*<([^<>`]+)>)?`_(_?)(?!_)")
SIMPLE = re.compile(r"(?<![\w`\\])(\w+(?:[-.+:]\w+)*)_(?![\w`])")  # word_
TARGET = re.compile(r"^\.\.[ \t]+_(?:`([^`]+)`|([^:`\\]+)):(.*)$", re.M)
INCLUDE = re.compile(r"^\s*\.\.\s+include::", re.M)
ADORNMENT = re.compile(r"^([!-/:-@\[-`{-~])\1+\s*$")
# what starts a block other than a paragraph: a list item, an enumerated
# or field list, an explicit markup, a doctest, a table, a line block
NOT_PARAGRAPH = re.compile(
    r"^(?:[-*+\u2022\u2023\u2043]\s|\(?(?:\d+|#|[a-zA-Z]|[ivxlcdmIVXLCDM]+)[.)]\s|:|\.\.(?:\s|$)|"
    r">>>|\||\+[-=])"
)
# a Sphinx cross-reference with an explicit title (the page shows the title)
ROLE_REF = re.compile(r"(?<![\w\\`:]):(ref|doc):`([^`<>]+?)\s*<([^<>`]+)>`(?!_)")
INLINE_LITERAL = re.compile(r"``([^`]+)``")
# any role (the page shows what Sphinx makes of it: a document's title, a
# function's name): a wildcard in the block's words (``links.WILD``)
ANY_ROLE = re.compile(r"(?<![\w\\`:]):\w[\w:.+-]*:`[^`]+`(?![`_])")
# what pairs or reads across blocks (``blocks.UNSAFE`` but simple tables,
# whose lines ``_in_table`` refuses): anonymous targets, roles the file defines
UNSAFE = re.compile(r"^\s*(?:\.\.\s+)?__[\s:]|^\s*\.\.\s+(?:default-)?role::", re.M)
TABLE_BORDER = re.compile(r"^=+(?: +=+)+\s*$")
# |name|_ (|name|__: anonymous), and a substitution's replace:: definition
SUBSTITUTION = re.compile(r"(?<![\w|\\])\|([^|\s](?:[^|]*[^|\s])?)\|(__?)(?![\w|])")
REPLACE = re.compile(r"^\.\.[ \t]+\|([^|]+)\|[ \t]+replace::[ \t]*(.*)$", re.M)
BULLET = re.compile(r"^[-*+\u2022\u2023\u2043] +(?=\S)")
EMPHASIS = re.compile(r"\*\*([^*]+)\*\*|\*([^*]+)\*")


def _name(text: str) -> str:
    """A reference name as docutils compares it (``fully_normalize_name``)."""
    return " ".join(text.split()).lower()


def find_rest(
    text: str, name: str, nth: int = 0, count: int = 1
) -> tuple[Literal, int | None] | None:
    """The one reference whose target holds ``name`` (lower case, as
    ``literal._squeezed`` compares), and the 1-based line of the target
    that defines its URL (None: written inline), or None (see the
    module's doc).  A named target referenced ``count`` times (the built
    page's links to it, in its order): the ``nth`` of its references, in
    the file's order (docutils makes them in that order, each its link)."""
    if not name or _squeezed(text).count(name) != 1:
        return None
    if UNSAFE.search(text) or INCLUDE.search(text):
        return None
    lines = text.split("\n")
    at = line_holding(lines, name)
    if at is None:
        return None
    tables = _tables(lines)
    if _in_table(tables, at, at):
        return None
    defined: int | None = None
    target = TARGET.match(lines[at])
    if target is not None:  # .. _name: href
        href = target.group(3).strip()
        label = _name(target.group(1) or target.group(2))
        if not href or href.endswith("_") or "`" in href or "\\" in lines[at]:
            return None
        if at + 1 < len(lines) and lines[at + 1][:1].isspace():
            return None  # the URL goes on (or more follows)
        if sum(1 for t in TARGET.finditer(text) if _name(t.group(1) or t.group(2)) == label) != 1:
            return None
        replaced = _replaced(text, label)
        shown = lines
        if replaced is not None:
            shown = SUBSTITUTION.sub(
                lambda m: replaced if _name(m.group(1)) == label else m.group(0), text
            ).split("\n")
        found = _named(text, label, shown, replaced, tables)
        if found is None or len(found) != count:
            return None
        ref_line, words = found[nth]
        lines = shown
        defined = at + 1
    else:  # `text <href>`_, its text perhaps begun on the lines above
        start = at
        while start > 0 and lines[start - 1].strip():
            start -= 1
        head = "\n".join(lines[start : at + 1])
        on_line = len(head) - len(lines[at])
        refs = [
            m
            for m in REFERENCE.finditer(head)
            if m.group(2) and m.end() > on_line and name in _squeezed(m.group(2))
        ]
        if count != 1 or len(refs) != 1 or refs[0].group(2).strip().endswith("_"):
            return None
        ref_line, href = at, refs[0].group(2).strip()
        words = " ".join(refs[0].group(1).split())
    block = _paragraph(lines, ref_line, tables)
    if block is None:
        return None
    return Literal(ref_line + 1, href, words, block), defined


def find_role(text: str, name: str, role: str) -> Literal | None:
    """The one ``:ref:`title <label>``` (or ``:doc:`title <path>```, as
    ``role`` says) whose target holds ``name``, in a plain paragraph, the
    line docutils' parse gives it (Sphinx's roles: ``rest.py``), or None.
    The built link's URL is the one ``match.candidates`` makes of the
    label (its document, ``#`` its id) or the path; refused besides
    ``find_rest``'s refusals: an implicit title (the page shows the
    section's), a ``~`` or ``!`` target, a title holding markup, another
    role in the paragraph."""
    if not name or UNSAFE.search(text) or INCLUDE.search(text):
        return None
    lines = text.split("\n")
    at = line_holding(lines, name)
    if at is None:
        return None
    found = [m for m in ROLE_REF.finditer(lines[at]) if name in _squeezed(m.group(3))]
    if len(found) != 1 or found[0].group(1) != role:
        return None
    if _squeezed(found[0].group(0)).count(name) != _squeezed(text).count(name):
        return None  # the name elsewhere than in the role (its title may hold it too)
    title, target = found[0].group(2).strip(), found[0].group(3).strip()
    if not title or target.startswith(("~", "!")) or any(c in title for c in "`*_|\\<>"):
        return None
    start, end = found[0].span()
    shown = [*lines[:at], lines[at][:start] + title + lines[at][end:], *lines[at + 1 :]]
    block = _paragraph(
        shown, at, _tables(shown)
    )  # (the role as the page shows it: any other refuses)
    if block is None:
        return None
    return Literal(at + 1, target, " ".join(title.split()), block)


def _named(
    text: str, label: str, shown: list[str], replaced: str | None, tables: list[tuple[int, int]]
) -> list[tuple[int, str]] | None:
    """The line (0-based) and text of each reference to ``label`` (an
    alias's, `` `text <label_>`_ ``, too), in the file's order, None
    unless each is on one line and in a paragraph ``_paragraph`` reads
    (none in a literal block, whose words make no link):
    ``shown``, the file's lines, a substitution's references to ``label``
    as the page shows them, ``replaced`` (``_replaced``)."""
    found = []
    references = list(REFERENCE.finditer(text))
    for m in references:
        if m.group(3):
            continue  # anonymous: no name (one without its href is refused: UNSAFE)
        if m.group(2) is None and _name(m.group(1)) == label:
            found.append((m.start(), m.group(0), m.group(1)))
        elif m.group(2) is not None and _name(m.group(2)).rstrip("_") == label:
            alias = m.group(2).strip()
            if not alias.endswith("_") or alias.endswith("__"):
                return None  # (`text <label>`_: a URL holding the name)
            found.append((m.start(), m.group(0), m.group(1)))  # `text <label_>`_: an alias
    spans = [m.span() for m in references]
    simple = SIMPLE.finditer(text) if label + "_" in text.lower() else ()  # (its scan: slow)
    for m in simple:
        if any(a <= m.start() < b for a, b in spans):
            continue  # (an alias's name_, inside its reference)
        if _name(m.group(1)) == label:
            found.append((m.start(), m.group(0), m.group(1)))
    for m in SUBSTITUTION.finditer(text):  # |name|_: a substitution's reference to it
        if _name(m.group(1)) == label:
            if m.group(2) == "__" or replaced is None:
                return None
            found.append((m.start(), m.group(0), replaced))
    if not found or any("\n" in f[1] for f in found):
        return None
    lines = text.split("\n")
    named = []
    for start, _, words in sorted(found):
        line = text.count("\n", 0, start)
        column = start - (text.rfind("\n", 0, start) + 1)
        if lines[line].count("``") % 2 or any(
            m.start() <= column < m.end() for m in INLINE_LITERAL.finditer(lines[line])
        ):
            return None  # in an inline literal (perhaps wrapped), it would be no reference
        if _paragraph(shown, line, tables) is None:
            return None
        named.append((line, " ".join(words.split())))
    return named


def _tables(lines: list[str]) -> list[tuple[int, int]]:
    """The simple tables' lines (first, last), whose blank lines end no
    block: from a border at the margin to the next border a blank line or
    the end follows, as far as docutils' table reaches or further
    (``isolate_simple_table`` may end it at its third border)."""
    found = []
    i = 0
    while i < len(lines):
        if lines[i].startswith("=") and TABLE_BORDER.match(lines[i]):
            j = i + 1
            while j < len(lines) and not (
                TABLE_BORDER.match(lines[j]) and (j + 1 == len(lines) or not lines[j + 1].strip())
            ):
                j += 1
            found.append((i, j))
            i = j
        i += 1
    return found


def _in_table(tables: list[tuple[int, int]], first: int, last: int) -> bool:
    return any(i <= last and first <= j for i, j in tables)


def _replaced(text: str, label: str) -> str | None:
    """What the page shows for the substitution ``|label|``: its one
    definition's ``replace::`` text on one line, an inline literal's
    content or plain words; None: none, or any other markup."""
    found = [m for m in REPLACE.finditer(text) if _name(m.group(1)) == label]
    if len(found) != 1:
        return None
    end = found[0].end()
    after = text[end + 1 :].split("\n", 1)[0] if end < len(text) else ""
    if after[:1].isspace() and after.strip():
        return None  # the text goes on
    words = INLINE_LITERAL.sub(lambda m: m.group(1), found[0].group(2).strip())
    if not words or any(c in words for c in "`*|_\\<>[]:"):
        return None
    return words


def _paragraph(lines: list[str], at: int, tables: list[tuple[int, int]]) -> str | None:
    """The words of the plain paragraph holding line ``at`` as the page
    shows them (a role's: ``WILD``), or None (see the module's doc): an
    unindented paragraph, or the text of a bullet list item (``_item``)."""
    start, end = block_around(lines, at)
    block = lines[start:end]
    if _in_table(tables, start, end - 1):
        return None
    if BULLET.match(block[0]):
        item = _item(block, at - start)
        if item is None:
            return None
        block = item
    elif any(line[:1].isspace() for line in block):
        return None
    if any(ADORNMENT.match(line) for line in block) or NOT_PARAGRAPH.match(block[0]):
        return None
    before = start - 1
    while before >= 0 and not lines[before].strip():
        before -= 1
    if before >= 0:
        first = before
        while first > 0 and lines[first - 1].strip():
            first -= 1
        if _literal_before(lines, first, start):
            return None
    joined = " ".join(block)
    if any(c in joined for c in "\\|" + WILD) or "]_" in joined:
        return None
    words = ANY_ROLE.sub(WILD, joined)
    if any(m.group(3) and not m.group(2) for m in REFERENCE.finditer(words)):
        return None  # `text`__: an anonymous target's (none: UNSAFE), or an error
    words = REFERENCE.sub(lambda m: m.group(1), words)
    words = SIMPLE.sub(lambda m: m.group(1), words)
    words = INLINE_LITERAL.sub(lambda m: m.group(1), words)
    words = EMPHASIS.sub(lambda m: m.group(1) or m.group(2), words)
    if "`" in words or "*" in words:
        return None
    return " ".join(words.split())


def _item(block: list[str], at: int) -> list[str] | None:
    """The paragraph lines of the bullet list item holding line ``at`` of
    a run of lines without a blank one (``block``), its marker taken off:
    docutils' item body is its first line's text and the lines under it,
    their common indent taken off (``get_first_known_indented``), so they
    are one paragraph when each is indented alike.  None: an item whose
    marker differs, an unindented line that is none's, lines indented
    unlike (a definition list, a block quote), a nested list."""
    starts = []
    for i, line in enumerate(block):
        if BULLET.match(line):
            if line[0] != block[0][0]:
                return None  # another list, begun without a blank line
            starts.append(i)
        elif not line[:1].isspace():
            return None
    first = max(i for i in starts if i <= at)
    last = next((i for i in starts if i > at), len(block))
    rest = block[first + 1 : last]
    if any("\t" in line for line in block[first:last]):
        return None
    if len({len(line) - len(line.lstrip(" ")) for line in rest}) > 1:
        return None
    text = [block[first][BULLET.match(block[first]).end() :]] + [  # type: ignore[union-attr]
        line.lstrip(" ") for line in rest
    ]
    if any(NOT_PARAGRAPH.match(line) or BULLET.match(line) for line in text[1:]):
        return None  # a nested list, a directive (as the first line: _paragraph)
    return text
