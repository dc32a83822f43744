"""``--changed-since REF``: the source lines a change adds or modifies.

The change is what the build was made from against where the branch left
REF: ``git diff --unified=0 $(git merge-base REF HEAD)``, the working tree
included (a build made before a commit is audited as the files are), and
every untracked file not ignored is added whole.  In a shallow clone
without the merge base (a CI checkout of a pull request's merge commit),
the diff is against REF itself.  Lines removed leave nothing to annotate:
a link that only lost its line is not in the change."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field

from linkaudit.items import ChangedSince
from linkaudit.sources.links import SourceLink

HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")
GIT_TIMEOUT = 120.0
WHOLE = -1  # an untracked file: every line is new


class ChangeError(ValueError):
    """REF cannot be compared with (one line, for the user)."""


@dataclass
class Change:
    ref: str
    base: str  # the commit compared with
    root: str  # the repository's work tree
    lines: dict[str, set[int]] = field(default_factory=dict)  # absolute path -> lines

    def holds(self, link: SourceLink) -> bool:
        """The link's line, or its definition's, is added or modified."""
        return self._has(link.file, link.line) or (
            link.defined is not None and self._has(link.defined_file or link.file, link.defined)
        )

    def touches(self, path: str) -> bool:
        return os.path.realpath(path) in self.lines

    def _has(self, path: str, line: int) -> bool:
        lines = self.lines.get(os.path.realpath(path))
        return lines is not None and (WHOLE in lines or line in lines)

    def section(self) -> ChangedSince:
        return {"ref": self.ref, "base": self.base, "files": len(self.lines)}


def _git(root: str, *args: str) -> str:
    try:
        done = subprocess.run(
            ["git", "-C", root, "-c", "core.quotePath=false", *args],
            capture_output=True,
            timeout=GIT_TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise ChangeError(f"git {args[0]} took more than {GIT_TIMEOUT:g} s") from None
    if done.returncode != 0:
        error = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise ChangeError(error[-1] if error else f"git {args[0]} failed")
    return done.stdout.decode("utf-8", "surrogateescape")


def changed_since(ref: str, where: str) -> Change:
    """The change since ``ref`` of the git repository holding ``where``."""
    if shutil.which("git") is None:
        raise ChangeError("--changed-since needs git, which is not installed")
    if ref.startswith("-") or not ref.strip():
        raise ChangeError(f"--changed-since {ref!r}: not a git revision")
    try:
        root = _git(where, "rev-parse", "--show-toplevel").strip()
    except ChangeError:
        raise ChangeError(
            f"--changed-since {ref}: {os.path.abspath(where)} is not in a git repository"
        ) from None
    try:
        wanted = f"{ref}^{{commit}}"
        commit = _git(root, "rev-parse", "--verify", "--quiet", "--end-of-options", wanted)
    except ChangeError:
        raise ChangeError(
            f"--changed-since {ref}: no such commit, branch or tag in {root}"
        ) from None
    commit = commit.strip()
    try:
        base = _git(root, "merge-base", commit, "HEAD").strip()
    except ChangeError:
        if _git(root, "rev-parse", "--is-shallow-repository").strip() != "true":
            raise ChangeError(
                f"--changed-since {ref}: it shares no history with HEAD in {root}"
            ) from None
        base = commit  # a shallow clone: compared with REF itself
    change = Change(ref, base, root)
    diff = _git(root, "diff", "--no-ext-diff", "--no-color", "--unified=0", "-M", base, "--")
    _read_diff(diff, root, change.lines)
    untracked = _git(root, "ls-files", "--others", "--exclude-standard", "-z")
    for name in filter(None, untracked.split("\0")):
        change.lines[os.path.realpath(os.path.join(root, name))] = {WHOLE}
    return change


def _read_diff(diff: str, root: str, lines: dict[str, set[int]]) -> None:
    current: set[int] | None = None
    for row in diff.split("\n"):
        if row.startswith("+++ "):
            name = _unquote(row[4:])
            current = None
            if name != "/dev/null":
                current = lines.setdefault(os.path.realpath(os.path.join(root, name[2:])), set())
        elif current is not None and (hunk := HUNK.match(row)):
            first, count = int(hunk.group(1)), int(hunk.group(2) or 1)
            current.update(range(first, first + count))


def _unquote(name: str) -> str:
    """A path git quoted as a C string (only names with special bytes)."""
    if not name.startswith('"'):
        return name
    raw = name[1:-1].encode("latin-1", "backslashreplace").decode("unicode_escape")
    return raw.encode("latin-1").decode("utf-8", "surrogateescape")
