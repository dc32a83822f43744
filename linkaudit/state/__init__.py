"""The audit's memory, behind one interface (``base.AuditState``): what was
discovered, what waits, outcomes and referrers.  ``memory`` keeps it in this
process (the default), ``sqlite`` in a file that outlives the process (an
interrupted audit resumes, the next audit compares).  ``baseline`` holds
what changed since an earlier report; the rules of when an earlier check
still counts are pure logic, in ``linkaudit/rules/recheck.py``.
``LINKAUDIT_STATE`` names the class to use.

The shared backend is ``redis/`` (several workers, one audit).  How the
backends may differ is declared by the interface (``durable``,
``remembers``, ``shared``) and held to by ``tests/test_state_contract.py``.

The names below are loaded on first use (the package imports nothing, so
its modules import each other without going round in circles).
"""

from __future__ import annotations

import importlib
from typing import Any

_WHERE = {
    "NEW_RUN": "base",
    "AuditState": "base",
    "Entry": "base",
    "Pending": "base",
    "ProgressCounts": "base",
    "Run": "base",
    "Totals": "base",
    "MemoryState": "memory",
}
__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
