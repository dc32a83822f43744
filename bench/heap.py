"""Where an audit's memory goes: ``linkaudit ARGS`` run in this process
under tracemalloc, the heap snapshotted each time it has grown by a tenth
since the last snapshot (so the last one is taken at the peak, within a
tenth), and that snapshot's allocations grouped by the line that made them.

    .venv/bin/python bench/heap.py --out heap-10k.txt -- URL... [LINKAUDIT OPTIONS]
    .venv/bin/python bench/heap.py --compare heap-10k.pickle heap-50k.pickle

The first form writes the top lines (``--top``, 40) and keeps the snapshot
(``OUT`` with ``.pickle``), the same of the heap as the report began
(the crawl's end: ``OUT-crawl``) and at its peak while the report was
written (within 2 %: ``OUT-report``; the traced heap's peak ``OUT`` may be
the crawl's, half way, while the peak RSS is the report's); the second
prints, line by line, what two snapshots' sizes differ by and the bytes a
URL that is (give ``--urls A,B``, the two audits' URL counts): the
allocations that grow with the site.
tracemalloc keeps one frame (``PYTHONTRACEMALLOC`` is not needed); it slows
the audit about twofold and costs memory of its own, which it does not
count.
"""

from __future__ import annotations

import argparse
import sys
import threading
import tracemalloc
from pathlib import Path


class PeakSnapshots(threading.Thread):
    """Snapshots the traced heap whenever it has grown by ``growth`` since
    the last one; once the report began (:meth:`reporting`), also whenever
    it has grown by 2 % since the report's last one."""

    def __init__(self, growth: float = 1.1, every: float = 0.5):
        super().__init__(daemon=True)
        self.growth, self.every = growth, every
        self.snapshot: tracemalloc.Snapshot | None = None
        self.size = 0
        self.report: tracemalloc.Snapshot | None = None
        self.report_size: int | None = None  # None: the report has not begun
        self.done = threading.Event()
        self.lock = threading.Lock()

    def run(self) -> None:
        while not self.done.wait(self.every):
            self.check()

    def check(self) -> None:
        with self.lock:
            current, _peak = tracemalloc.get_traced_memory()
            taken = None
            if current > self.size * self.growth:
                taken = tracemalloc.take_snapshot()
                self.snapshot, self.size = taken, current
            if self.report_size is not None and current > self.report_size * 1.02:
                self.report = taken or tracemalloc.take_snapshot()
                self.report_size = current

    def reporting(self) -> tracemalloc.Snapshot:
        """The report begins: the heap now (the crawl's end)."""
        with self.lock:
            now = tracemalloc.take_snapshot()
            self.report, self.report_size = now, tracemalloc.get_traced_memory()[0]
            return now


def _at_report(watch: PeakSnapshots) -> list[tracemalloc.Snapshot]:
    """A snapshot taken as the report's one pass begins (the crawl's end),
    into the list returned (Sections.read wrapped)."""
    from linkaudit.output.report.sections import Sections

    taken: list[tracemalloc.Snapshot] = []
    read = Sections.read

    def snapshot_then_read(self, state):  # type: ignore[no-untyped-def]
        if not taken:
            taken.append(watch.reporting())
        return read(self, state)

    Sections.read = snapshot_then_read  # type: ignore[method-assign]
    return taken


def top(snapshot: tracemalloc.Snapshot, n: int) -> list[str]:
    stats = snapshot.statistics("lineno")
    total = sum(s.size for s in stats)
    lines = [f"traced: {total / 1e6:.1f} MB in {sum(s.count for s in stats):,} blocks"]
    for s in stats[:n]:
        frame = s.traceback[0]
        lines.append(
            f"{s.size / 1e6:8.1f} MB {s.count:>10,} blocks  {_short(frame.filename)}:{frame.lineno}"
        )
    return lines


def _short(path: str) -> str:
    for marker in ("/linkaudit/", "/site-packages/", "/lib/python3"):
        if marker in path:
            return path[path.index(marker) + 1 :]
    return path


def compare(a: Path, b: Path, urls: tuple[int, int], n: int) -> None:
    old, new = tracemalloc.Snapshot.load(str(a)), tracemalloc.Snapshot.load(str(b))
    diff = new.compare_to(old, "lineno")
    grown = urls[1] - urls[0]
    total = sum(d.size_diff for d in diff)
    print(f"grown: {total / 1e6:.1f} MB, {total / grown:.0f} bytes a URL ({grown:,} more URLs)")
    for d in diff[:n]:
        frame = d.traceback[0]
        print(
            f"{d.size_diff / grown:8.0f} B/URL {d.size_diff / 1e6:8.1f} MB "
            f"{d.count_diff:>+10,} blocks  {_short(frame.filename)}:{frame.lineno}"
        )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", type=Path, help="where the top lines go (and OUT.pickle)")
    p.add_argument("--top", type=int, default=40)
    p.add_argument("--compare", nargs=2, type=Path, metavar="PICKLE")
    p.add_argument("--urls", help="the two audits' URL counts, A,B (with --compare)")
    p.add_argument("args", nargs=argparse.REMAINDER, help="-- then linkaudit's arguments")
    ns = p.parse_args()
    if ns.compare:
        a, b = (int(x) for x in ns.urls.split(","))
        compare(*ns.compare, (a, b), ns.top)
        return
    from linkaudit.cli import main as linkaudit

    args = ns.args[1:] if ns.args[:1] == ["--"] else ns.args
    tracemalloc.start(1)
    watch = PeakSnapshots()
    crawled = _at_report(watch)
    watch.start()
    try:
        code = linkaudit(args)
    finally:
        watch.done.set()
        watch.join()
    tracemalloc.stop()
    if ns.out is not None:
        for name, snapshot in (
            ("", watch.snapshot),
            ("-crawl", crawled[0] if crawled else None),  # the heap when the report began
            ("-report", watch.report if crawled else None),  # its peak while reporting
        ):
            if snapshot is not None:
                out = ns.out.with_name(ns.out.stem + name)
                snapshot.dump(str(out.with_suffix(".pickle")))
                out.with_suffix(".txt").write_text("\n".join(top(snapshot, ns.top)) + "\n")
    sys.exit(code)


if __name__ == "__main__":
    main()
