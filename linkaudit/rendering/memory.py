"""The memory of a process tree, read from ``/proc`` (Linux): the browser
is a tree of processes (Playwright's driver, Chromium's browser, GPU,
network and renderer processes), and its bound is on the whole tree.

Each process counts its proportional share of the memory it holds (PSS,
``/proc/PID/smaps_rollup``): Chromium's processes share most of their pages
(its binary, its shared memory), and a sum of their resident sizes counts
those once per process: an idle Chromium with one page measured 860 MiB
summed resident, 335 MiB proportional (Debian's Chromium 150 on amd64).
Where ``smaps_rollup`` cannot be read (an older kernel), the resident size
(``statm``) is counted instead.

A reading four times a second is too slow for a page that allocates as
fast as it can: an ``ArrayBuffer`` filled in a loop grows a renderer by
about 1 GB a second (outside V8's heap, which ``--max-old-space-size``
caps), and the bound was overshot by half.  So each renderer is also held
by the kernel (:class:`Renderers`): its data size (``RLIMIT_DATA``, set from
outside with ``prlimit``, as Chromium's own sandbox sets it, higher) is at
most what it held when first seen plus its share of the bound, so an
allocation past that fails in the renderer at once (the script gets a
``RangeError``, or the renderer dies of it: its page's render fails);
what the readings see past the bound is stopped by killing the
renderers, which frees their memory at once."""

from __future__ import annotations

import os
import signal

try:
    import resource
except ImportError:  # not a Unix: no process limits
    resource = None  # type: ignore[assignment]

FULL = 32 * 1024 * 1024  # bytes under its limit at which a renderer is full
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


def is_renderer(pid: int) -> bool:
    """A Chromium renderer (``--type=renderer`` in its command line, which
    Chromium rewrites with spaces, not NULs)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return b"--type=renderer" in fh.read(16384)
    except OSError:
        return False


def data_bytes(pid: int) -> int | None:
    """The data size of ``pid`` (``VmData``: what ``RLIMIT_DATA`` bounds)."""
    try:
        with open(f"/proc/{pid}/status", "rb") as fh:
            for line in fh:
                if line.startswith(b"VmData:"):
                    return int(line.split()[1]) * 1024
    except (OSError, IndexError, ValueError):
        return None
    return None


class Renderers:
    """The browser's renderers, each held to ``share`` bytes more than it
    held when first seen (its proportional size then taken off: a renderer
    holds ``share`` in all), by ``RLIMIT_DATA``."""

    def __init__(self, share: int):
        self.share = share
        self.held: dict[int, int] = {}  # renderer pid -> its data size limit
        self.seen: set[int] = set()  # other processes of the tree, not renderers

    def hold(self, pids: list[int]) -> None:
        """Limit the renderers among ``pids`` not limited yet."""
        if resource is None or not hasattr(resource, "prlimit"):
            return
        alive = set(pids)
        for pid in [pid for pid in self.held if pid not in alive]:
            del self.held[pid]
        for pid in pids:
            if pid in self.held or pid in self.seen:
                continue
            if not is_renderer(pid):
                self.seen.add(pid)
                continue
            data = data_bytes(pid)
            if data is None:
                continue
            limit = data + max(self.share - (proportional_bytes(pid) or 0), self.share // 2)
            try:
                resource.prlimit(pid, resource.RLIMIT_DATA, (limit, limit))
            except (OSError, ValueError):  # gone, or not ours to limit: the readings hold it
                limit = 0
            self.held[pid] = limit
        if len(self.seen) > 10_000:
            self.seen.clear()

    def stop_full(self) -> int:
        """Kill the renderers whose data size reached their limit (within
        :data:`FULL`): an allocation there failed, and a page held at its
        limit would otherwise run on to its time cap.  Their pages' renders
        fail as crashed (``browser.py``: the memory share)."""
        killed = 0
        for pid, limit in list(self.held.items()):
            data = data_bytes(pid) if limit else None
            if data is not None and data >= limit - max(FULL, self.share // 8):
                try:
                    os.kill(pid, signal.SIGKILL)
                    killed += 1
                except OSError:
                    pass
                del self.held[pid]
        return killed

    def kill(self, pids: list[int]) -> int:
        """Kill every renderer among ``pids`` (their pages' renders are being
        stopped), held yet or not: their memory is freed at once, not once
        each page has closed."""
        killed = 0
        for pid in pids:
            if is_renderer(pid):
                try:
                    os.kill(pid, signal.SIGKILL)
                    killed += 1
                except OSError:
                    pass
            self.held.pop(pid, None)
        return killed
