"""Every regular expression linkaudit compiles is read alike by every Python
it allows.

CPython 3.11.0 to 3.11.4 misread a possessive repeat of a group (gh-100061,
gh-106052): on Debian 12's python3 the page scan found no link.  Where that
bug lives, ``linkaudit.rules.repeats`` spells such a repeat as an atomic
group.  This holds every pattern to it, on any Python: a subprocess takes
the old Pythons' spelling, imports every module, runs the scan (which
compiles the patterns it builds on demand), and walks the parse tree of each
pattern the package holds or the scan compiled: no possessive repeat may hold more than one character.  A ``)*+``
written by hand anywhere in the package fails here, on every Python.
"""

from __future__ import annotations

import json
import subprocess
import sys

from tests.conftest import ROOT

_WALK = r"""
import importlib, json, pkgutil, re, sys
import re._constants as C, re._parser as P
import linkaudit.rules.repeats as repeats
repeats.POSSESSIVE_GROUPS_WORK = False  # the spelling 3.11.0-3.11.4 need
import linkaudit
for info in pkgutil.walk_packages(linkaudit.__path__, "linkaudit."):
    importlib.import_module(info.name)
before = set(re._cache.values())  # other packages' patterns are theirs
from linkaudit.rules.html import extract_links
from linkaudit.rules.html.selfcheck import KNOWN_PAGE
from linkaudit.rules.css import capped_css_links
capped_css_links("@import \"x\"; a { b: url(y) } /* c */")
for css in (False, True):
    for anchors in (False, True):
        extract_links(KNOWN_PAGE, css=css, anchors=anchors)
patterns = {p for p in set(re._cache.values()) - before if isinstance(p, re.Pattern)}
for module in list(sys.modules.values()):
    if (getattr(module, "__name__", "") or "").startswith("linkaudit"):
        for value in vars(module).values():
            if isinstance(value, re.Pattern):
                patterns.add(value)
            elif isinstance(value, dict):
                patterns.update(v for v in value.values() if isinstance(v, re.Pattern))
ONE = {C.LITERAL, C.NOT_LITERAL, C.IN, C.ANY, C.CATEGORY}
def bad(items):
    for op, av in items:
        if op is C.POSSESSIVE_REPEAT:
            body = list(av[2])
            if not (len(body) == 1 and body[0][0] in ONE):
                yield str(P.SubPattern(P.State(), [(op, av)]).data)[:120]
            yield from bad(body)
        elif op in (C.MAX_REPEAT, C.MIN_REPEAT):
            yield from bad(av[2])
        elif op is C.SUBPATTERN:
            yield from bad(av[3])
        elif op is C.BRANCH:
            for branch in av[1]:
                yield from bad(branch)
        elif op in (C.ASSERT, C.ASSERT_NOT):
            yield from bad(av[1])
        elif op is C.ATOMIC_GROUP:
            yield from bad(av)
        elif op is C.GROUPREF_EXISTS:
            yield from bad(av[1])
            if av[2] is not None:
                yield from bad(av[2])
found = {}
for p in patterns:
    wrong = list(bad(P.parse(p.pattern, p.flags)))
    if wrong:
        found[p.pattern[:200]] = wrong
print(json.dumps({"patterns": len(patterns), "wrong": found}))
"""


def test_no_possessive_repeat_of_a_group_where_python_misreads_it():
    out = subprocess.run(
        [sys.executable, "-c", _WALK], capture_output=True, text=True, timeout=60, cwd=ROOT
    )
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["patterns"] > 30  # the scan's patterns were compiled and seen
    assert result["wrong"] == {}


def test_the_spelling_follows_the_running_python():
    from linkaudit.rules.repeats import POSSESSIVE_GROUPS_WORK, possessive

    assert POSSESSIVE_GROUPS_WORK == (sys.version_info >= (3, 11, 5))
    spelled = possessive("ab?c", "*")
    assert spelled == ("(?:ab?c)*+" if POSSESSIVE_GROUPS_WORK else "(?>(?:ab?c)*)")
    # the case of gh-106052, read right by the spelling chosen here
    import re

    assert re.match(spelled, "aca").span() == (0, 2)
    assert re.match(possessive(".(?!D)", "*"), "ABCDE").span() == (0, 2)  # gh-100061
