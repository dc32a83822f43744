"""The memory of a process tree, read from ``/proc`` (Linux): the browser
is a tree of processes (Playwright's driver, Chromium's browser, GPU,
network and renderer processes), and its bound is on the whole tree.

Each process counts its proportional share of the memory it holds (PSS,
``/proc/PID/smaps_rollup``): Chromium's processes share most of their pages
(its binary, its shared memory), and a sum of their resident sizes counts
those once per process: an idle Chromium with one page measured 860 MiB
summed resident, 335 MiB proportional (Debian's Chromium 150 on amd64).
Where ``smaps_rollup`` cannot be read (an older kernel), the resident size
(``statm``) is counted instead."""

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
    """The resident memory of ``pids`` together (``statm``'s resident
    pages): a page several of them share is counted in each (Chromium's
    processes share most of theirs: :func:`shared_bytes` counts it once)."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/statm", "rb") as fh:
                total += int(fh.read().split()[1]) * PAGE
        except (OSError, IndexError, ValueError):
            continue
    return total


def proportional_bytes(pid: int) -> int | None:
    """The proportional set size of ``pid`` (its share of the pages it
    shares); None when ``smaps_rollup`` cannot be read."""
    try:
        with open(f"/proc/{pid}/smaps_rollup", "rb") as fh:
            for line in fh:
                if line.startswith(b"Pss:"):
                    return int(line.split()[1]) * 1024
    except (OSError, IndexError, ValueError):
        return None
    return None


def shared_bytes(pids: list[int]) -> int:
    """The memory of ``pids`` together, each process's shared pages counted
    once in all (PSS); a process whose PSS cannot be read, by its RSS."""
    total = 0
    for pid in pids:
        pss = proportional_bytes(pid)
        total += resident_bytes([pid]) if pss is None else pss
    return total


def tree_bytes(pid: int) -> int:
    """The memory of the processes below ``pid`` (:func:`shared_bytes`)."""
    return shared_bytes(descendants(pid))
