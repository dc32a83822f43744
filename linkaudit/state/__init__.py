"""The audit's memory, behind one interface (``base.AuditState``): what was
discovered, what waits, outcomes and referrers.  ``memory`` keeps it in this
process (the default), ``sqlite`` in a file that outlives the process (an
interrupted audit resumes, the next audit compares).  ``recheck`` holds the
rules of when an earlier check still counts, ``baseline`` what changed since
an earlier report.  ``LINKAUDIT_STATE`` names the class to use."""

from linkaudit.state.base import NEW_RUN, AuditState, Entry, Pending, Run
from linkaudit.state.memory import MemoryState

__all__ = ["NEW_RUN", "AuditState", "Entry", "MemoryState", "Pending", "Run"]
