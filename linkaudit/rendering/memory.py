"""The memory of a process tree, read from ``/proc`` (Linux): the browser
is a tree of processes (Playwright's driver, Chromium's browser, GPU,
network and renderer processes), and its bound is on the whole tree."""

from __future__ import annotations

import os

PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def children_map() -> dict[int, list[int]]:
    """Every process's children (ppid -> pids), from ``/proc/*/stat``."""
    tree: dict[int, list[int]] = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return tree
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as fh:
                stat = fh.read()
        except OSError:
            continue  # gone meanwhile
        # the command name may hold spaces and parentheses: fields follow the last ")"
        fields = stat[stat.rfind(b")") + 2 :].split()
        if len(fields) > 1:
            tree.setdefault(int(fields[1]), []).append(int(name))
    return tree


def descendants(pid: int) -> list[int]:
    """The processes below ``pid`` (not itself)."""
    tree = children_map()
    found, todo = [], list(tree.get(pid, ()))
    while todo and len(found) < 10_000:
        child = todo.pop()
        found.append(child)
        todo.extend(tree.get(child, ()))
    return found


def resident_bytes(pids: list[int]) -> int:
    """The memory ``pids`` hold together: the sum of their proportional set
    sizes (``smaps_rollup``'s ``Pss``: a page shared by n of them counts
    1/n in each), else of their resident sizes (``statm``).  Chromium's
    processes share most of their pages (its code, fonts, shared memory):
    the sum of their resident sizes counts those once per process, about
    twice what the tree holds (1.1 GB of RSS for 0.5 GB of PSS with two
    pages rendered at once)."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/smaps_rollup", "rb") as fh:
                for line in fh:
                    if line.startswith(b"Pss:"):
                        total += int(line.split()[1]) * 1024
                        break
                else:
                    raise ValueError("no Pss")
            continue
        except (OSError, IndexError, ValueError):
            pass
        try:
            with open(f"/proc/{pid}/statm", "rb") as fh:
                total += int(fh.read().split()[1]) * PAGE
        except (OSError, IndexError, ValueError):
            continue
    return total


def tree_bytes(pid: int) -> int:
    """The resident memory of the processes below ``pid``."""
    return resident_bytes(descendants(pid))
