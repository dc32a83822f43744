"""A word a page's own source file must hold for one of its links to be a
built link's, so a file that lacks it is known to hold none without being
parsed (nor its parser imported): a theme's or a plugin's button in the
content, which no source writes, on every page of a build (mkdocs-print-
site's PDF link) would otherwise parse every source of the project.

The word is a run of ASCII letters and digits the target as the source
writes it must hold, whatever the tool made of it (``match.candidates``'
forms): of the fragment's last dotted part when there is a fragment (a
link's ``#a`` holds it, a ``:ref:`` label is the id's words, a Python
role's ``~a.b.c`` its last name), else of the stem of the path's last part
(``x.md`` -> ``x/`` or ``x.html``, ``:doc:`x``` -> ``x.html``), or the
whole last part when it names a file that is not a page (``site.pdf``).  None (the
file is parsed) wherever that does not hold: a target that is the page
itself or a folder above it (``..``, ``./``), a URL an extlinks role may
make, a file with template syntax (a Liquid wildcard, Hugo's ``relref``),
an include (its links are another file's), a numeric character reference,
or, for a fragment, a non-ASCII letter or digit (an id made of ``Über`` or
``ß`` is not spelled as the source writes it)."""

from __future__ import annotations

import re
import unicodedata
from urllib.parse import unquote, urlsplit

from linkaudit.sources.match import key

RUN = re.compile(r"[a-z0-9]+")
# what makes a file's links other than its text's: template syntax, includes
# (reST's directive, MyST's fence), character references by number
UNSURE = re.compile(r"\{\{|\{%|include::|\{include\}|&#", re.I)
NON_ASCII = re.compile(r"[^\x00-\x7f]")


def _longest(text: str) -> str | None:
    return max(RUN.findall(text.lower()), key=len, default=None)


def target_word(resolved: str, page_url: str, extlinks: dict[str, str]) -> tuple[str, bool] | None:
    """The word (lower case) and whether it is the fragment's, for the
    built link resolved to ``resolved`` on the page at ``page_url`` (both
    absolute); None: no word is sure."""
    for template in extlinks.values():
        pattern = ".*".join(re.escape(key(part)) for part in template.split("%s"))
        if re.fullmatch(pattern, key(resolved), re.S):
            return None
    url, _, fragment = key(resolved).partition("#")
    if fragment:
        word = _longest(fragment.rpartition(".")[2])
        return None if word is None else (word, True)
    parts = urlsplit(url)
    page = urlsplit(page_url)
    here = (parts.scheme, parts.netloc) == (page.scheme, page.netloc)
    if here and page.path.startswith(parts.path):  # the page itself, or a folder above it
        return None
    last = next((p for p in reversed(parts.path.split("/")) if p), "").lower()
    if re.search(r"\.[a-z0-9]+$", last) and not last.endswith((".html", ".htm")):
        return (last, False)  # a file's name, as written (x.pdf is no page the tool renamed)
    word = _longest(last.rpartition(".")[0] or last) or (None if here else _longest(parts.netloc))
    return None if word is None else (word, False)


class Words:
    """A source file's text as ``holds`` compares it: escapes decoded,
    lower case, white space and backslashes removed (a URL wrapped over
    lines, ``\\_`` in reST)."""

    def __init__(self, raw: str) -> None:
        self.unsure = UNSURE.search(raw) is not None
        self.text = re.sub(r"[\s\\]+", "", unquote(raw)).lower()
        self.foreign = any(
            ch.isalnum() or unicodedata.normalize("NFKD", ch) != ch
            for ch in set(NON_ASCII.findall(raw))
        )

    def lacks(self, word: tuple[str, bool] | None) -> bool:
        """True when no link of the file can have made the target."""
        if word is None or self.unsure or (word[1] and self.foreign):
            return False
        return word[0] not in self.text
