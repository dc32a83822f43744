"""A build's pages read on every core (``LINKAUDIT_JOBS``): worker
processes read, decode and scan the pages of a level ahead of the walk
(:class:`ReadAhead`), and read again the pages that hold findings for the
report (``report.py``, :func:`in_order`).

Only what needs no state runs in a worker: a page's scan up to its links
resolved (``components/scanning.py``: the tokenizer, the landmarks, each
link value's key), or a page's links as written on the lines of its
findings (``places.py``).  The walk's process keeps everything else (the
state, the order of the URLs, the results, the report) and takes each
page's part as it reaches the page, in the order of a walk in one
process: the report is the same, byte for byte.  A page a worker could not
read as the walk reads it (the file changed since, an exception of ours)
is read again in the walk's process, where a fault is reported as it
always is.

What a worker sends back is small (a page's links as key and line, each
key once: the text never crosses), in batches of :data:`BATCH` pages, at
most :data:`AHEAD` batches a process asked for at a time: the memory held
is bounded whatever the size of the build.

The workers are forked (each has the task from the start: nothing is
imported or pickled again), and only from a process with one thread (a
fork copies one thread: a lock another one held would stay held); they
ignore Ctrl-C and ``SIGTERM`` (the walk stops, then ends them, and the
report is still written) and end when the walk's process is gone (checked
twice a second).  A worker that dies is an ERROR in the log, and the walk
reads the rest itself.  Without ``fork()`` (Windows), one process reads.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import islice
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, NamedTuple

from linkaudit.components.scanning import PageScan, Prepared
from linkaudit.localbuild.decoding import decoded
from linkaudit.localbuild.reading import read_file

logger = logging.getLogger(__name__)

BATCH = 8  # pages a worker reads at a time
AHEAD = 4  # batches a process asked for at a time
MIN_PAGES = 2 * BATCH  # fewer pages are read in the walk's process
ORPHAN_CHECK = 0.5  # seconds between a worker's checks that the walk's process lives
END_WAIT = 2.0  # seconds the workers have to end when told to, before they are killed


def cores() -> int:
    """The cores this process may run on (its CPU affinity, not the machine's)."""
    counted = getattr(os, "process_cpu_count", None)  # Python 3.13
    if counted is not None:
        return counted() or 1
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1


def processes(setting: int) -> int:
    """``LINKAUDIT_JOBS`` (0: the cores there are) as a number of processes."""
    return setting or cores()


def can_fork() -> bool:
    """Workers can be forked from here: ``fork()`` exists, and this
    process runs one thread."""
    return "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1


# -- in a worker --------------------------------------------------------------------
def _serve(conn: Connection, task: Callable[[Any], Any], parent: int) -> None:
    """A worker: batches read from ``conn``, each answered with the task's
    results, until the walk's process sends None, closes its end, or is
    gone; signals are left to the walk's process."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    threading.Thread(target=_orphaned, args=(parent,), daemon=True).start()
    try:
        while (items := conn.recv()) is not None:
            conn.send(_batch(task, items))
    except (EOFError, OSError):  # the walk's process is gone, or done
        pass


def _orphaned(parent: int) -> None:
    """End this worker once the walk's process is gone (killed: nothing
    else would tell it)."""
    while os.getppid() == parent:
        time.sleep(ORPHAN_CHECK)
    os._exit(1)


def _batch(task: Callable[[Any], Any], items: Sequence[Any]) -> list[Any]:
    """The task's result for each item; None for one it failed on (the
    walk's process reads it again)."""
    out = []
    for item in items:
        try:
            out.append(task(item))
        except Exception:  # noqa: BLE001 (read again by the walk's process, which says so)
            out.append(None)
    return out


# -- in the walk's process ----------------------------------------------------------
class Workers:
    """``jobs`` forked processes, each running ``task`` on the batches it
    is sent, one pipe each; batch ``n`` goes to worker ``n % jobs``, and
    the results are read in the order the batches were sent (by the
    walk's own thread: no thread of the pool's, no lock)."""

    def __init__(self, jobs: int, task: Callable[[Any], Any]):
        self.jobs = jobs
        context = multiprocessing.get_context("fork")
        self.conns: list[Connection] = []
        self.procs: list[Any] = []
        self.sent = self.received = 0
        self.alive = True
        try:
            for _ in range(jobs):
                ours, theirs = context.Pipe()
                self.conns.append(ours)
                proc = context.Process(
                    target=_serve, args=(theirs, task, os.getpid()), name="linkaudit-reader"
                )
                proc.daemon = True  # (ended by multiprocessing at exit, if still there)
                proc.start()
                theirs.close()  # the worker's end is the worker's alone: its exit is our EOF
                self.procs.append(proc)
        except OSError:
            self.close()
            raise

    def submit(self, items: Sequence[Any]) -> int:
        """A batch sent to its worker; its number (for :meth:`result`)."""
        number, self.sent = self.sent, self.sent + 1
        if self.alive:
            try:
                self.conns[number % self.jobs].send(items)
            except OSError:
                self.lost()
        return number

    def result(self, number: int, size: int) -> list[Any]:
        """Batch ``number``'s results (the batches' are read in order;
        None each when the workers are gone)."""
        assert number == self.received, "results are read in the order sent"
        self.received += 1
        if self.alive:
            try:
                return self.conns[number % self.jobs].recv()
            except (EOFError, OSError):
                self.lost()
        return [None] * size

    def drain(self) -> None:
        """Read and drop the results of the batches sent and not read."""
        while self.received < self.sent:
            self.result(self.received, 0)

    def lost(self) -> None:
        if not self.alive:
            return
        codes = [p.exitcode for p in self.procs if p.exitcode is not None]
        logger.error(
            "A process reading the build's pages (LINKAUDIT_JOBS=%d) ended abruptly "
            "(exit status %s: killed, or out of memory?): the walk's own process reads "
            "the rest",
            self.jobs,
            ", ".join(map(str, codes)) or "unknown",
        )
        self.close()

    def close(self) -> None:
        """End the workers: told to, once every result is read; killed at
        once when some are not (a walk stopped: they hold nothing but the
        pages they read), or past :data:`END_WAIT`."""
        self.alive = False
        for conn in self.conns:
            try:
                conn.send(None)
            except OSError:
                pass
        wait = END_WAIT if self.received == self.sent else 0.0
        deadline = time.monotonic() + wait
        for proc in self.procs:
            proc.join(max(0.0, deadline - time.monotonic()))
            if proc.exitcode is None:
                proc.kill()
                proc.join()
        for conn in self.conns:
            conn.close()
        self.procs, self.conns = [], []


def start(jobs: int, task: Callable[[Any], Any]) -> Workers | None:
    """``jobs`` workers, or None (a WARNING) when the system refuses a
    process (a limit on processes, memory): then one process reads."""
    try:
        return Workers(jobs, task)
    except OSError as exc:
        logger.warning("Could not start %d processes to read the build's pages: %s", jobs, exc)
        return None


def in_order(workers: Workers, items: Iterable[Any]) -> Iterator[Any]:
    """The task's result for each item, in order (None: not read there),
    with at most :data:`AHEAD` batches a process sent at a time; what was
    sent and not read is drained when the caller stops early."""
    rest = iter(items)
    batches = iter(lambda: list(islice(rest, BATCH)), [])
    sent: deque[tuple[int, int]] = deque()
    try:
        for batch in islice(batches, AHEAD * workers.jobs):
            sent.append((workers.submit(batch), len(batch)))
        while sent:
            number, size = sent.popleft()
            for batch in islice(batches, 1):
                sent.append((workers.submit(batch), len(batch)))
            yield from workers.result(number, size)
    finally:
        workers.drain()


# -- the walk's pages -----------------------------------------------------------------
class Job(NamedTuple):
    """A page the walk will scan: its URL, its file, its Content-Type,
    whether it is a stylesheet."""

    url: str
    file: str
    content_type: str
    stylesheet: bool


class PageReader:
    """A worker's task in the walk: a page read as the walk reads it
    (``files.py``: its bytes to the page cap, its text, its scan)."""

    def __init__(self, scan: PageScan, maxsize: int):
        self.scan = scan
        self.maxsize = maxsize

    def __call__(self, job: Job) -> Prepared:
        url, file, ctype, stylesheet = job
        body, truncated = read_file(Path(file), self.maxsize)
        text = decoded(ctype, body)
        if truncated:
            text = text[: self.maxsize]
        return self.scan.prepare(text, url, stylesheet, vet=True)


class ReadAhead:
    """The pages of the walk's current level, read by the workers ahead of
    the walk, each taken once as the walk reaches it (:meth:`get`)."""

    def __init__(self, workers: Workers):
        self.workers = workers
        self.level: list[Job] = []
        self.index: dict[str, int] = {}  # URL -> its job in the level
        self.read: Iterator[Prepared | None] = iter(())
        self.cursor = 0  # the next job whose scan ``read`` gives

    def start_level(self, jobs: list[Job]) -> None:
        """The pages of a level the walk will scan, in the walk's order."""
        self.forget()
        self.level = jobs
        self.index = {job.url: i for i, job in enumerate(jobs)}
        self.read = in_order(self.workers, jobs)

    def get(self, url: str, stylesheet: bool) -> Prepared | None:
        """The page's scan, read by a worker (waiting for it if need be);
        None: not asked for, or not read there."""
        i = self.index.get(url)
        if i is None or i < self.cursor or self.level[i].stylesheet != stylesheet:
            return None
        for _skipped in range(self.cursor, i):  # pages the walk did not scan after all
            next(self.read, None)
        self.cursor = i + 1
        return next(self.read, None)

    def forget(self) -> None:
        """The level is over (or stopped): what is still asked for is
        dropped (the batches begun are finished, and thrown away)."""
        close = getattr(self.read, "close", None)
        if close is not None:
            close()
        self.read = iter(())
        self.level, self.index, self.cursor = [], {}, 0

    def close(self) -> None:
        """End the workers, without waiting for the pages still asked for."""
        self.read = iter(())
        self.workers.close()
