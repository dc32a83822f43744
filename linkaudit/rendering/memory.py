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

A reading four times a second, on the event loop, is too slow for a page
that allocates as fast as it can: an ``ArrayBuffer`` filled in a loop
grows a renderer by about 1 GB a second (outside V8's heap, which
``--max-old-space-size`` caps), two such pages went half over the bound,
and a loop busy with our own work read later still.  So the browser is
watched by a thread of its own (:class:`Watchdog`), twenty times a second
while pages render: past the bound, or about to pass it at the pace it
grows, it kills the renderers itself (their memory is freed at once, not
once each page has closed) and tells the loop, which stops the renders.
(Holding each renderer by the kernel, ``RLIMIT_DATA``, was tried: what a
renderer reserves differs from one to the next, 100 MB or 570 MB of
Chromium 150's, and grows after it starts, so any limit from its size
crashed some healthy renderers.)"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable

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
    found: list[int] = []
    todo = list(tree.get(pid, ()))
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


def process_bytes(pid: int) -> int:
    """The memory of ``pid``: its PSS, or its RSS where PSS cannot be read."""
    pss = proportional_bytes(pid)
    return resident_bytes([pid]) if pss is None else pss


def shared_bytes(pids: list[int]) -> int:
    """The memory of ``pids`` together, each process's shared pages counted
    once in all (PSS); a process whose PSS cannot be read, by its RSS."""
    return sum(process_bytes(pid) for pid in pids)


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


class Watchdog(threading.Thread):
    """The memory of the processes below this one (the browser), read in a
    thread of its own: every ``interval`` seconds while ``rendering`` is
    set, four times a second otherwise.  Past ``bound`` bytes, or about to
    pass it before the next reading at the pace it grew since the last one
    (looking ``ahead`` readings), while rendering: the renderers are killed
    and ``over(used, growth, killed)`` is called (from this thread: the
    caller hands it to its loop).  The tree is read anew each time: a
    renderer may start at any navigation (about 2 ms for 100 processes)."""

    IDLE = 0.25  # seconds between two readings while nothing renders

    def __init__(
        self, bound: int, over: Callable[[int, float, int], object], interval: float, ahead: int
    ):
        super().__init__(name="linkaudit-browser-memory", daemon=True)
        self.bound = bound
        self.over = over
        self.interval = interval
        self.ahead = ahead
        self.rendering = threading.Event()
        self.stopped = threading.Event()
        self.peak = 0
        self.fault: BaseException | None = None  # the first error of ours, said by the caller

    def run(self) -> None:
        me, then = os.getpid(), time.monotonic()
        before: dict[int, int] = {}
        while not self.stopped.is_set():
            rendering = self.rendering.is_set()
            try:
                now = {pid: process_bytes(pid) for pid in descendants(me)}
                at = time.monotonic()
                used = sum(now.values())
                # the pace of the processes read both times (a renderer that
                # starts is no growth: its size is counted, not its pace)
                grown = sum(now[pid] - before[pid] for pid in now.keys() & before.keys())
                gap = at - then
                growth = max(0.0, grown / gap) if gap > 0 else 0.0
                before, then = now, at
                self.peak = max(self.peak, used)
                # the next reading comes after the interval, or later on a
                # busy machine (as late as this one came, the reading's own
                # time included): look as far ahead as twice the last gap
                horizon = max(self.interval * self.ahead, 2 * gap if rendering else 0.0)
                ahead = used + growth * horizon
                if rendering and max(used, ahead) > self.bound:
                    self.over(used, growth, kill_renderers(list(now)))
                    self.rendering.clear()  # until the loop says renders run again
            except Exception as exc:  # a fault of ours: the renders keep their time cap
                self.fault = self.fault or exc
            self.stopped.wait(self.interval if rendering else self.IDLE)


def kill_renderers(pids: list[int]) -> int:
    """Kill the renderers among ``pids`` (their pages' renders are being
    stopped): their memory is freed at once."""
    killed = 0
    for pid in pids:
        if is_renderer(pid):
            try:
                os.kill(pid, signal.SIGKILL)
                killed += 1
            except OSError:  # gone meanwhile
                pass
    return killed
