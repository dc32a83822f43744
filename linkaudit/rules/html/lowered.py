"""A page lower-cased once.  The style-attribute check (``links.py``) and
the landmarks' word search (``landmarks.py``) each look for ASCII words in
any case with ``str.find`` in the lower-cased page (a case-blind regular
expression is several times slower), and a scanned page goes through both
in turn: the copy is made once, and only the last page's is kept."""

from __future__ import annotations

import string
from functools import lru_cache

# The only characters that str.lower makes ASCII (or longer: U+0130 becomes
# two): with one of them the page is lowered by str.lower itself
_TO_ASCII = ("\u0130", "\u212a")


@lru_cache(maxsize=1)
def lowered(text: str) -> str:
    """``text`` as long as it is, equal to ``text.lower()`` at every place
    where that is ASCII (what the callers look for) and non-ASCII where it
    is not.  Only ASCII letters are lowered, by ``bytes.lower`` on the
    page's code units: ``str.lower`` looks every character up in the
    Unicode tables, 3 times slower on a page with one non-Latin-1 character
    (most of the Python docs' pages).  A non-ASCII code unit stays one
    (``bytes.lower`` changes no byte outside A-Z, and in UTF-16 a byte that
    is not the high byte of an ASCII character can only turn one non-ASCII
    unit into another: a surrogate stays a surrogate)."""
    if text.isascii() or any(c in text for c in _TO_ASCII):
        return text.lower()
    return ascii_lowered(text)


def ascii_lowered(text: str) -> str:
    """``text`` with its ASCII letters lower-cased and nothing else changed
    that matters here: a code unit outside ASCII stays outside it, and
    whitespace, ``<``, ``/`` and ``>`` stay what they are (U+0130 and U+212A
    too, which ``str.lower`` makes ASCII).  Not cached."""
    try:
        return text.encode("latin-1").lower().decode("latin-1")
    except UnicodeEncodeError:
        pass
    try:
        return text.encode("utf-16-le").lower().decode("utf-16-le")
    except UnicodeError:  # a lone surrogate
        return text.translate(_ASCII_LOWER)


_ASCII_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)
