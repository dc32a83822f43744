"""Possessive repeats of a group, spelled so that every Python the project
allows reads them alike.

A possessive repeat (``(?:...)*+``) is how the page and stylesheet scans
read long runs without the record ``re`` keeps for each pass of a greedy
group.  CPython 3.11.0 to 3.11.4 misread it: after a pass fails, the match
goes on from wherever the pass's inner repeat, branch or lookahead left
off, not from where the pass began (CPython gh-100061 and gh-106052, fixed
in 3.11.5).  On 3.11.2, Debian 12's ``python3``, the page scan found no
link at all and every audit passed.

An atomic group around a greedy repeat, ``(?>(?:...)*)``, matches the same
text and is read right on those versions, but costs the page scan about
7 % on the fixed ones (bench/scan.py on Python's docs), so it is spelled so
only where it is needed.  ``linkaudit.rules.html.selfcheck`` checks at
start-up that the spelling chosen works on the running Python.
"""

from __future__ import annotations

import sys

# The first release with both fixes; the tests pin the choice on the oldest
# Python allowed (tests/test_oldest_python.py).
POSSESSIVE_GROUPS_WORK = sys.version_info >= (3, 11, 5)


def possessive(body: str, quantifier: str = "*") -> str:
    """``(?:body)`` repeated ``quantifier`` times (``*``, ``+`` or ``?``),
    possessively: the pass that fails gives nothing back."""
    if quantifier not in ("*", "+", "?"):
        raise ValueError(f"not a repeat: {quantifier!r}")
    if POSSESSIVE_GROUPS_WORK:
        return f"(?:{body}){quantifier}+"
    return f"(?>(?:{body}){quantifier})"
