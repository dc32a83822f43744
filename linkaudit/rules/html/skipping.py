"""The one regular expression that skips, at C speed, everything of a page
the link reader need not see (``tokenizer.start_tags``): text, comments,
end tags, and start tags that cannot hold a link.  Python sees only the
start tag it stops at."""

from __future__ import annotations

import re
from collections.abc import Callable, Set

from linkaudit.rules.html.elements import INTERESTING, LINKED_BY
from linkaudit.rules.repeats import possessive

NAME = r"[^\t\n\f\r />]*+"  # a tag name after its first letter


def _trie(names: Set[str]) -> str:
    """A regular expression for ``names``, case-insensitive, factored by
    first letters (a long alternation is tried name by name)."""
    if not names or names == {""}:
        return ""  # no tail (an empty group is tried each time: it costs)
    if "" in names:
        rest = _trie({n for n in names if n})
        return f"(?:{rest})?" if rest else ""
    groups: dict[str, set[str]] = {}
    for name in names:
        groups.setdefault(name[0], set()).add(name[1:])
    parts = [
        (f"[{c}{c.upper()}]" if c.isalpha() else re.escape(c)) + _trie(tails)
        for c, tails in sorted(groups.items())
    ]
    return parts[0] if len(parts) == 1 else "(?:" + "|".join(parts) + ")"


# The attributes of a tag up to its ">" (the tokenizer's attribute states),
# written as runs between the "=" that open values.  An "=" where a name may
# start (after the tag name, after a value, after "/") starts a name: "="
# then a quote is a name, not a value.  An unquoted value runs to a space or
# ">" ("=" and quotes included).  Each turn of a group costs the regex
# engine a jump (a repetition even when it fails at once): one turn per
# value; a tag without attributes, or whose attributes hold no "/" outside
# their values, is one quick test of ">" at each end.
_SPACE = r"[\t\n\f\r ]"


def _plain(excluded: str) -> str:
    return f"[^{excluded}]*+"


def attrs_runs(
    run: Callable[[str], str] = _plain, names_run: Callable[[str], str] | None = None
) -> str:
    """ATTRS_RUNS with ``run(excluded)`` for a run of characters other than
    ``excluded`` (names and spaces; a quoted value; an unquoted value), and
    ``names_run`` (else ``run``) for the runs of names and spaces."""
    names = (names_run or run)(">=/")  # names and spaces: the next "=" opens a value
    unquoted = run(_SPACE[1:-1] + ">")
    value = rf"""(?:"{run('"')}"|'{run("'")}'|(?!["']){unquoted})"""
    values = possessive(rf"={_SPACE}*+{value}{_SPACE}*+=?+{names}")
    slashed = possessive(rf"/[\t\n\f\r /]*+=?+{names}{values}", "+")
    after = rf"(?:>|{slashed}>)"  # "/": a name may start
    return rf"(?:>|{_SPACE}*+=?+{names}{values}{after})"


ATTRS_RUNS = attrs_runs()
# One attribute, name and value (a name may start with "="), as the
# tokenizer reads it; an unterminated quote leaves the value out
_ATTRIBUTE = r"[^\t\n\f\r />][^\t\n\f\r />=]*+" + possessive(
    r"[\t\n\f\r ]*+=[\t\n\f\r ]*+"
    r"""(?:"[^"]*+"|'[^']*+'|(?!["'])[^\t\n\f\r >]*+)""",
    "?",
)


# what str.lower makes an ASCII letter besides its two cases (the tokenizer
# lower-cases names with it): the Kelvin sign
_LOWERS_TO = {"k": "\u212a"}


def _ascii_any_case(word: str) -> str:
    return "".join(
        f"[{c}{c.upper()}{_LOWERS_TO.get(c, '')}]" if c.isalpha() else re.escape(c) for c in word
    )


def _attrs_naming_none(words: tuple[str, ...]) -> str:
    """ATTRS_RUNS over attribute text in whose names none of ``words``
    stands, in any case ``str.lower`` reads as it (the tokenizer's): it
    fails on a tag that may have such an attribute, so no such tag goes
    unread.  Names stand only in the runs between values (the values,
    where a word is common, are runs of their own: one quick jump each)."""
    firsts = sorted({w[0] for w in words})
    stops = "".join(c + c.upper() + _LOWERS_TO.get(c, "") for c in firsts)
    named = "(?:" + "|".join(map(_ascii_any_case, words)) + ")"

    def free(excluded: str) -> str:  # a run of characters that starts no word
        return possessive(rf"[^{excluded}{stops}]++|(?!{named})[{stops}]")

    return attrs_runs(_plain, free)


# Text and everything that cannot be a link, in one match (HTML content):
# text runs; after "<", an end tag, a start tag whose name cannot matter
# (and, when some attributes matter on any element (``style``, ``id``), that
# has none of them), an ``<a>`` with no ``href`` (nor one of those
# attributes, nor a ``name`` when ``id`` matters: half the tags of a
# Doxygen page are such anchors) and alike the other elements of
# ``LINKED_BY`` without their link attribute, a comment, a bogus comment, or a "<"
# that starts nothing.  Written as text, then (tag, text) repeated: each
# turn of a group costs the regex engine, the commonest tags are tried
# first, and a name whose first letter starts no interesting name is
# boring without trying them.
def skip_pattern(attributes: tuple[str, ...] = ()) -> re.Pattern[str]:
    without = ""
    if attributes:  # attribute names, quoted values jumped over whole
        without = (  # the attributes one by one: each may be one of them
            r"(?!(?:[\t\n\f\r /]|"
            + _ATTRIBUTE
            + r")*?(?i:"
            + "|".join(attributes)
            + r")[\t\n\f\r ]*+=)"
        )
    firsts = {name[0] for name in INTERESTING}
    others = "".join(c + c.upper() for c in "abcdefghijklmnopqrstuvwxyz" if c not in firsts)
    boring = (
        rf"(?:[{others}]|(?!"
        + _trie(INTERESTING)
        + r"[\t\n\f\r />])[A-Za-z])"
        + NAME
        + without
        + ATTRS_RUNS
    )
    # <a> without href before the boring tags (the commonest of all), a
    # <td> without background, a <button> without formaction...
    # after them (rarer than a <span>: each alternative tried costs)
    anchor, *rarer = (
        _trie(set(names))
        + r"(?=[\t\n\f\r />])"
        + _attrs_naming_none(
            (word, *attributes, *(("name",) if "id" in attributes and "a" in names else ()))
        )
        for word, names in LINKED_BY.items()
    )
    return re.compile(
        r"[^<]*+"
        + possessive(
            r"<(?:/(?:[A-Za-z]" + NAME + ATTRS_RUNS + r"|>|[^A-Za-z>][^>]*+>|\Z)"
            r"|"
            + anchor
            + r"|"
            + boring
            + "".join("|" + tag for tag in rarer)
            + r"|!--(?:>|->|(?s:.*?)--!?>)|(?!!--)[!?][^>]*+>"
            r"|(?![A-Za-z!/?]))[^<]*+"
        )
        # and the start tag it stopped at, if any: its name and its attributes
        # (with their ">")
        + r"(?:<([A-Za-z]"
        + NAME
        + r")("
        + ATTRS_RUNS
        + r"))?"
    )
