"""The part of a reStructuredText file a parse needs for one link: its
top-level blocks that hold the word a built link's target must hold
(``needles.py``), every explicit target and substitution definition (a
named reference's URL is written there), and the blocks that name a target
holding the word; every other line blanked, so lines keep their numbers.

docutils reads a 100 KB file at about 0.4 MB/s; a finding's link is in a
few of its blocks.  The part is parsed instead of the file only where its
parse cannot differ from the whole file's for the links that hold the word:
``None`` (parse the whole file) wherever it could (anonymous targets,
which pair with the anonymous references in document order; a role or default role
the file defines; a simple table, whose rows blank lines may split; a
quoted literal block; a word that does not fall inside the blocks whole).
Only a part's mapping is kept (``places.py``): a place the part leaves
unmapped is mapped against the whole file."""

from __future__ import annotations

import re
import unicodedata
from urllib.parse import unquote

# what pairs or reads across blocks: anonymous targets (paired with the
# anonymous references in document order; without one, every anonymous
# reference is an error in the part as in the whole), roles the file
# defines, simple tables (their rows may hold blank lines)
UNSAFE = re.compile(
    r"^\s*(?:\.\.\s+)?__[\s:]|^\s*\.\.\s+(?:default-)?role::|^=+(?: +=+)+\s*$", re.M
)
DEFINITION = re.compile(r"^\.\.\s+(?:_|\|)")
# a definition's name: .. _name: / .. _`name`: / .. |name|
NAME = re.compile(r"^\s*\.\.\s+(?:_`([^`]+)`|_((?:[^:\\]|\\.)+)|\|([^|]+)\|)", re.M)
SQUEEZE = re.compile(r"[\s\\]+")
NON_ASCII = re.compile(r"[^\x00-\x7f]")
MIN_LINES = 50  # a shorter file is parsed whole: its part would save little


def _blocks(lines: list[str]) -> list[tuple[int, int]] | None:
    """The top-level blocks (0-based start, end exclusive): a block starts
    at an unindented line after a blank one.  None: a block after a
    paragraph ending in ``::`` is not indented (a quoted literal block)."""
    starts: list[int] = []
    for i, line in enumerate(lines):
        if line.strip() and not line[0].isspace() and (i == 0 or not lines[i - 1].strip()):
            if starts and _literal_before(lines, starts[-1], i):
                return None
            starts.append(i)
    return [(s, e) for s, e in zip(starts, [*starts[1:], len(lines)], strict=True)]


def _literal_before(lines: list[str], start: int, end: int) -> bool:
    """The block before ``end`` ends in ``::`` and is not indented past its
    first line (its literal block would be this unindented one)."""
    last = next((line for line in reversed(lines[start:end]) if line.strip()), "")
    return last.rstrip().endswith("::") and not last[:1].isspace()


def _squeezed(text: str) -> str:
    return SQUEEZE.sub("", unquote(text)).lower()


def _names(text: str) -> set[str]:
    """The names the block's targets and substitutions define."""
    out = set()
    for found in NAME.finditer(text):
        name = next(g for g in found.groups() if g is not None)
        out.add(" ".join(name.replace("\\", "").split()).lower())
    return out


def _foreign(text: str) -> bool:
    """The block holds a letter an id may spell otherwise (``Words.foreign``)."""
    return any(
        ch.isalnum() or unicodedata.normalize("NFKD", ch) != ch
        for ch in set(NON_ASCII.findall(text))
    )


def rest_part(text: str, word: str, fragment: bool = False) -> str | None:
    """``text`` with only the lines a parse for links holding ``word``
    needs (see the module's doc), or None: parse the whole file.  For a
    fragment's word, the blocks with a letter an id spells otherwise
    (``Über``: ``uber``) are kept too."""
    lines = text.split("\n")
    if len(lines) < MIN_LINES or UNSAFE.search(text):
        return None
    blocks = _blocks(lines)
    if blocks is None:
        return None
    texts = ["\n".join(lines[s:e]) for s, e in blocks]
    squeezed = [_squeezed(t) for t in texts]
    if sum(s.count(word) for s in squeezed) != _squeezed(text).count(word):
        return None  # the word across two blocks
    keep = {k for k, s in enumerate(squeezed) if word in s or (fragment and _foreign(texts[k]))}
    names: set[str] = set()
    for k in keep:
        names |= _names(texts[k])
    definitions = [k for k, t in enumerate(texts) if DEFINITION.match(t)]
    loose = [" ".join(t.split()).lower() for t in texts]
    while names:  # the blocks naming them, and the targets that alias them
        found = {k for k, t in enumerate(loose) if k not in keep and any(n in t for n in names)}
        keep |= found
        names = set().union(*(_names(texts[k]) for k in found if k in definitions))
    keep |= set(definitions)
    if len(keep) == len(blocks):
        return None
    out = [""] * len(lines)
    for k in keep:
        s, e = blocks[k]
        out[s:e] = lines[s:e]
    return "\n".join(out)
