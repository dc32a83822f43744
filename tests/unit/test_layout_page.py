"""docs/contributing/layout.md holds against the tree, both ways:

- every module and package under ``linkaudit/`` is named by the page (an
  ``__init__.py`` only where the page chooses to: its package is named);
- every path the page names (a code span ending in ``.py`` or ``/``) is a
  file or folder of the repository.

A name is read as the page's reader reads it, in its paragraph, list item
or table row (its *block*): a full path (``linkaudit/rules/urls.py``) is
itself; a partial one (``rules/html/tokenizer.py``, ``html/``) is the path
of the repository it ends; a bare name in a folder's row or after a
folder (``tokenizer.py`` after ``html/``) is the file of that name in the
nearest folder the block named before it that has one, else the one file
of the repository of that name, else those in the folders of the paths
the block named (an aside such as "from ``rules/names.py``" is no folder
of what follows).  So ``backoff.py`` in the rules' row names
``linkaudit/rules/backoff.py``, not ``linkaudit/hosts/backoff.py``.  A glob
(``middlewares/*.py``) names its folder for the names after it, and nothing
itself.

Pure file reading: the page, then one walk of the repository.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # the repository (tests/unit/ is two down)
PAGE = ROOT / "docs" / "contributing" / "layout.md"
# not the repository's own files (.gitignore): virtualenvs, caches, builds,
# and the test data fetched from elsewhere (thousands of files: the walk
# stays a few milliseconds)
SKIPPED = {".git", ".venv", ".venv-oldest", "__pycache__", "build", "dist", "site", ".hypothesis"}
SKIPPED_ENDINGS = (".egg-info", "_cache")
FETCHED = {"tests/data/sources", "tests/data/upstream", "tests/data/vnu", "tests/data/wheelhouse"}

# a code span that looks like a path: no space, ends in .py or /
PATHLIKE = re.compile(r"[\w.*-][\w./*-]*(?:\.py|/)")


@cache
def tree() -> tuple[frozenset[str], frozenset[str]]:
    """The repository's files and folders (folders end with ``/``),
    relative to its root."""
    files, folders = set(), set()
    for top, dirs, names in os.walk(ROOT):
        here = Path(top).relative_to(ROOT).as_posix()
        prefix = "" if here == "." else here + "/"
        dirs[:] = [
            d
            for d in dirs
            if d not in SKIPPED and not d.endswith(SKIPPED_ENDINGS) and prefix + d not in FETCHED
        ]
        folders.update(prefix + d + "/" for d in dirs)
        files.update(prefix + n for n in names)
    return frozenset(files), frozenset(folders)


def blocks(text: str) -> list[str]:
    """The page's blocks: a table row, a list item, a heading, a
    paragraph (its lines joined)."""
    found: list[str] = []
    current: list[str] = []
    for line in text.splitlines():
        starts = not line.strip() or line.startswith(("|", "- ", "#"))
        if starts and current:
            found.append(" ".join(current))
            current = []
        if line.strip():
            current.append(line.strip())
        if line.startswith(("|", "#")):  # one line each
            found.append(" ".join(current))
            current = []
    if current:
        found.append(" ".join(current))
    return found


def path_tokens(block: str) -> list[str]:
    """The block's code spans that look like paths, in order."""
    spans = re.findall(r"`([^`]+)`", block)
    return [s for s in spans if PATHLIKE.fullmatch(s) and "://" not in s]


def resolve(
    token: str, context: Sequence[str], around: Sequence[str] = ()
) -> tuple[list[str], bool]:
    """What ``token`` names (paths of the repository, folders ending with
    ``/``), and whether it exists at all.

    ``context`` is the folders the block named before, nearest last;
    ``around``, the folders of the files it named.
    """
    files, folders = tree()
    known = folders if token.endswith("/") else files
    if token in known:
        return [token], True
    for folder in reversed(context):  # a bare or partial name in a folder's row
        if folder + token in known:
            return [folder + token], True
    ends = sorted(p for p in known if p.endswith("/" + token))
    if len(ends) == 1:
        return ends, True
    # several paths end so: those under a folder of the block, else none
    # named (the page must say which), though the name exists
    near = [p for p in ends if any(p.startswith(f) for f in [*context, *around])]
    return near, bool(ends)


def read_page() -> tuple[set[str], list[str]]:
    """The paths the page names, and its path-looking names that name
    nothing (with the block they are in, shortened)."""
    named: set[str] = set()
    nothing: list[str] = []
    for block in blocks(PAGE.read_text(encoding="utf-8")):
        context: list[str] = []
        around: list[str] = []
        for token in path_tokens(block):
            if "*" in token:  # a glob: its folder is the context of what follows
                folder = token[: token.rindex("/") + 1]
                found, exists = resolve(folder, context) if folder else ([], True)
                context += found
                continue
            found, exists = resolve(token, context, around)
            if not exists:
                nothing.append(f"`{token}` in: {block[:70]}...")
            named.update(found)
            context += [p for p in found if p.endswith("/")]
            around += [p.rsplit("/", 1)[0] + "/" for p in found if not p.endswith("/")]
    return named, nothing


def unnamed(named: set[str]) -> list[str]:
    """linkaudit's modules and packages that the page does not name."""
    files, folders = tree()
    packages = sorted(
        f
        for f in folders  # below the package itself, the page's subject
        if f.startswith("linkaudit/") and f != "linkaudit/" and f + "__init__.py" in files
    )
    modules = sorted(
        f
        for f in files
        if f.startswith("linkaudit/") and f.endswith(".py") and not f.endswith("/__init__.py")
    )
    return [p for p in packages + modules if p not in named]


def test_every_module_and_package_is_named() -> None:
    named, _ = read_page()
    missing = unnamed(named)
    assert not missing, (
        f"{PAGE.relative_to(ROOT)} names no {len(missing)} of linkaudit's modules and "
        "packages; say in its folders table (or the components table) what each holds:\n"
        + "\n".join(missing)
    )


def test_every_path_the_page_names_exists() -> None:
    _, nothing = read_page()
    assert not nothing, (
        f"{PAGE.relative_to(ROOT)} names paths that are not in the repository:\n"
        + "\n".join(nothing)
    )


def test_a_bare_name_is_read_in_its_row() -> None:
    """The reading itself: a bare name is the file of the folder its row
    named nearest before it; a name no folder of the row has, the one file
    of the repository that ends so."""
    files, _ = tree()
    assert "linkaudit/rules/backoff.py" in files and "linkaudit/hosts/backoff.py" in files
    assert resolve("backoff.py", ["linkaudit/hosts/", "linkaudit/rules/"]) == (
        ["linkaudit/rules/backoff.py"],
        True,
    )
    assert resolve("backoff.py", []) == ([], True)  # which one? none named
    assert resolve("html/", ["linkaudit/output/formats/"]) == (
        ["linkaudit/output/formats/html/"],
        True,
    )
    assert resolve("rules/nothing.py", ["linkaudit/"]) == ([], False)
    assert blocks("a\nb\n\n| x |\n| y |\n- c\n  d\n") == ["a b", "| x |", "| y |", "- c d"]
