"""Linear cost, measured: the work at one size and at ``GROWTH`` times it
takes about ``GROWTH`` times the CPU, well under ``GROWTH_BOUND``."""

from __future__ import annotations

import time
from collections.abc import Callable

GROWTH = 8
GROWTH_BOUND = 16  # linear: about 8; quadratic: about 64


def least_cpu(work: Callable[[], object], repeat: int = 5) -> float:
    """The least CPU time of ``repeat`` runs (the machine is shared)."""
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        work()
        best = min(best, time.process_time() - start)
    return best
