"""Where one process's resident memory peaks: ``linkaudit ARGS`` run in
this process, its RSS read every quarter second (``/proc/self/statm``),
and the crawl's end noted (the report's one pass begins: Sections.read
wrapped, as bench/heap.py does).  Prints the peak while crawling, the RSS
as the report began, and the peak while the report was written (MB).

    .venv/bin/python bench/rss.py [--every 0.25] -- URL... [LINKAUDIT OPTIONS]
    .venv/bin/python bench/scale.py --urls 10000,50000 --rss   # the scale site's

No tracing: the audit runs at its own speed and the figures are the ones
GNU time's peak is made of.
"""

from __future__ import annotations

import os
import sys
import threading
import time

PAGE = os.sysconf("SC_PAGE_SIZE")


def rss() -> int:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * PAGE


class Sampler(threading.Thread):
    def __init__(self, every: float = 0.25):
        super().__init__(daemon=True)
        self.every = every
        self.peaks = [0, 0]  # crawling, writing the report
        self.at_report: int | None = None
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.wait(self.every):
            self.sample()

    def sample(self) -> None:
        phase = 0 if self.at_report is None else 1
        self.peaks[phase] = max(self.peaks[phase], rss())


def main() -> None:
    args = sys.argv[1:]
    every = 0.25
    if args[:1] == ["--every"]:  # seconds between two readings
        every, args = float(args[1]), args[2:]
    args = args[1:] if args[:1] == ["--"] else args
    from linkaudit.cli import main as linkaudit
    from linkaudit.output.report.sections import Sections

    sampler = Sampler(every)
    read = Sections.read

    def noted_then_read(self, state):  # type: ignore[no-untyped-def]
        if sampler.at_report is None:
            sampler.sample()
            sampler.at_report = rss()
        return read(self, state)

    Sections.read = noted_then_read  # type: ignore[method-assign]
    sampler.start()
    started = time.monotonic()
    try:
        code = linkaudit(args)
    finally:
        sampler.done.set()
        sampler.join()
        sampler.sample()
        mb = 1 << 20
        crawl, report = sampler.peaks
        at = sampler.at_report or 0
        print(
            f"rss: crawl peak {crawl / mb:.1f} MB, at the report {at / mb:.1f} MB, "
            f"report peak {report / mb:.1f} MB ({time.monotonic() - started:.0f} s)",
            file=sys.stderr,
            flush=True,
        )
    sys.exit(code)


if __name__ == "__main__":
    main()
