"""A page lower-cased once.  The CSS gate, the style-attribute check
(``links.py``) and the landmarks' word search (``landmarks.py``) each look
for ASCII words in any case with ``str.find`` in the lower-cased page (a
case-blind regular expression is several times slower), and a scanned page
goes through all three in turn: the copy is made once, and only the last
page's is kept."""

from __future__ import annotations

from functools import lru_cache


@lru_cache(maxsize=1)
def lowered(text: str) -> str:
    return text.lower()
