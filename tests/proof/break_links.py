"""Break links on purpose in a real project's sources, and record where.

    python3 break_links.py KIND PROJECT SOURCES EXPECTED.json

KIND: mkdocs, sphinx (reST), myst, jekyll, hugo.  Links are chosen in the
files of PROJECT/SOURCES by what they are written as (a Markdown inline
destination ``](target)`` or reference definition ``[label]: target``; a
reST embedded ``<target>`_``, named ``.. _name: target`` or anonymous
``__ target`` target), only targets written once in their file (the edit
is then unambiguous), outside fenced code; at most MAX a project, picked
with a fixed seed.  Each gets a unique sentinel, absolute
(``http://127.0.0.1:9/sentinel-N``: nothing listens on port 9) or internal
(a page that does not exist, written as the tool expects it), and the
file, line and sentinel are written to EXPECTED.json.  The ground truth is
the line edited, independent of linkaudit's parsers.

Standard library only: it runs before any virtualenv exists."""

from __future__ import annotations

import json
import os
import random
import re
import sys

MAX = 40
SEED = 41
SKIP = {"_build", "node_modules", "_site", "site", "public", "resources", "overrides"}
INLINE = re.compile(r"\]\(<?([^\s()<>]+)>?(?:\s+\"[^\"]*\")?\)")
DEFINITION = re.compile(r"^ {0,3}\[[^\]^]+\]:\s*<?(\S+?)>?(?:\s|$)")
EMBEDDED = re.compile(r"<([^<>\s`]+)>`__?")
NAMED = re.compile(r"^\s*\.\. _[^:`]+:\s+(\S+)\s*$|^\s*(?:\.\. )?__:?\s+(\S+)\s*$")
INTERNAL = {
    "mkdocs": "missing-s{n}.md",
    "myst": "missing-s{n}.md",
    "sphinx": "missing-s{n}.html",
    "jekyll": "missing-s{n}.html",
    "hugo": "/missing-s{n}/",
}


def candidates(path: str, kind: str) -> list[tuple[int, str]]:
    with open(path, encoding="utf-8") as fh:
        lines = fh.read().split("\n")
    rest = path.endswith(".rst")
    fenced = False
    found = []
    for number, line in enumerate(lines, 1):
        if re.match(r"^\s*(```|~~~)", line):
            fenced = not fenced
            continue
        if fenced or "{{" in line or "{%" in line:
            continue
        if rest:
            targets = [m.group(1) for m in EMBEDDED.finditer(line)]
            named = NAMED.match(line)
            if named:
                targets.append(named.group(1) or named.group(2))
        else:
            targets = [m.group(1) for m in INLINE.finditer(line)]
            definition = DEFINITION.match(line)
            if definition:
                targets.append(definition.group(1))
        for target in targets:
            if target.startswith(("#", "mailto:")) or target.endswith("_"):
                continue  # in the page, an address, an alias of a named target
            if line.count(target) == 1 and sum(t.count(target) for t in lines) == 1:
                found.append((number, target))
    return found


def main(kind: str, project: str, sources: str, expected: str) -> None:
    root = os.path.join(project, sources)
    suffixes = (".rst",) if kind == "sphinx" else (".md", ".markdown")
    files = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "_site")) and d not in SKIP)
        files += [os.path.join(folder, n) for n in sorted(names) if n.endswith(suffixes)]
    chosen = [(f, n, t) for f in files for n, t in candidates(f, kind)]
    random.Random(SEED).shuffle(chosen)
    chosen = sorted(chosen[:MAX])
    edits: dict[str, list[str]] = {}
    records = []
    for i, (path, number, target) in enumerate(chosen):
        absolute = i % 2 == 0
        sentinel = f"http://127.0.0.1:9/sentinel-{i}" if absolute else INTERNAL[kind].format(n=i)
        if path not in edits:
            with open(path, encoding="utf-8") as fh:
                edits[path] = fh.read().split("\n")
        edits[path][number - 1] = edits[path][number - 1].replace(target, sentinel)
        records.append(
            {
                "id": i,
                "file": os.path.relpath(path, project),
                "line": number,
                "was": target,
                "sentinel": sentinel,
                "absolute": absolute,
            }
        )
    for path, lines in edits.items():
        with open(path, "w", encoding="utf-8") as fh:
            fh.write("\n".join(lines))
    with open(expected, "w", encoding="utf-8") as fh:
        json.dump(records, fh, indent=1)


if __name__ == "__main__":
    main(*sys.argv[1:5])
