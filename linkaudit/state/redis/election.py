"""One report per shared audit: which worker writes it, what the others say.

When the audit is over, every worker leaves it (its last counts sent) and
tries to take the report lock; the winner waits for the other live workers
to leave (their counts are the report's), builds the report from the shared
state and records where it wrote it, with the verdict every worker exits
with.  The others wait for that record and point to the report.  A worker
stopped alone (SIGTERM, Ctrl-C) hands its claims back and writes nothing;
so does a worker that lost Redis.
"""

from __future__ import annotations

import json
import logging
import time
from abc import abstractmethod
from typing import Any

from linkaudit.items import Outcome
from linkaudit.state.redis.calls import Calls
from linkaudit.state.redis.connection import expire_audit

logger = logging.getLogger(__name__)
_LOCK_MS = 600_000  # a winner that dies while writing frees the lock after this
_WAIT_REPORT = 600.0  # seconds a worker waits for the winner's report


class Election(Calls):
    """The report's side of RedisState.  What it needs of the worker
    besides its connection is declared here; RedisState provides it."""

    lease_ms: int  # a worker is taken for dead after this long without a heartbeat
    delay: float  # seconds a handed-back host waits (DOWNLOAD_DELAY)
    expire: float  # seconds a finished audit's keys are kept (0: for ever)
    reason: str  # why the audit stopped, as Redis says
    note: str | None  # the three answers of AuditState.settle_report
    report_path: str | None
    verdict: dict | None

    @abstractmethod
    def leave(self, not_before: float = 0.0) -> int:
        """Hand back what this worker claimed and did not settle."""

    @abstractmethod
    def stop(self, reason: str) -> None:
        """Stop the whole audit: every worker closes."""

    def settle_report(self, reason: str) -> str | None:
        """Leave the audit and settle who writes its report (see the module
        and ``AuditState.settle_report``): the finish reason of the report
        this worker writes, None: another worker's (or none: ``note``)."""
        if self.lost is not None:
            self.note = (
                f"lost the connection to Redis ({self.lost}): this worker stopped; "
                "the same command resumes the audit"
            )
            return None
        status, why = self.meta("status", "reason")
        if status not in ("finished", "stopping"):
            if not reason.startswith("closespider_"):
                handed = self.leave(not_before=self.delay)
                self.note = (
                    f"this worker left the audit {self.audit!r} ({reason}), handing "
                    f"{handed} URLs back; the same command joins it again"
                )
                return None
            self.stop(reason)  # a limit of this worker is the audit's limit
            status, why = "stopping", self.reason
        self.leave()
        if self._do(
            lambda: self.client.set(self.key("lock"), self.worker, nx=True, px=_LOCK_MS), 0
        ):
            self._wait_for_others()
            return why or reason
        self._wait_for_report()
        return None

    def _wait_for_others(self) -> None:
        """Until every other live worker has left (bounded by one lease)."""
        deadline = time.monotonic() + self.lease_ms / 1000
        while time.monotonic() < deadline and self.lost is None:
            others = self._do(lambda: self.client.smembers(self.key("workers")), set())
            alive = [w for w in others if w != self.worker and self._alive(w)]
            if not alive:
                return
            time.sleep(0.05)

    def _alive(self, worker: str) -> bool:
        """Whether ``worker``'s lease key is still there."""
        return bool(self._do(lambda: self.client.exists(self.key(f"w:{worker}")), 0))

    def _wait_for_report(self) -> None:
        deadline = time.monotonic() + _WAIT_REPORT
        while self.lost is None:
            path, verdict, winner = self.meta("report", "verdict", "winner")
            if verdict is not None:
                self.verdict = _verdict(verdict)
                self.report_path = path
                self.note = (
                    f"the audit {self.audit!r} is over: its report was written by "
                    f"{winner} to {path}"
                )
                return
            if time.monotonic() > deadline:
                break
            time.sleep(0.1)
        self.note = (
            f"the report of the audit {self.audit!r} is being written by another worker; "
            "`linkaudit report` builds it from Redis"
        )

    def report_written(self, path: str, report: dict[str, Any]) -> None:
        verdict = {
            "complete": report["complete"],
            "summary": report["summary"],
            "urls": [
                {"outcome": Outcome.BROKEN, "new": bool(u.get("new"))}
                for u in report["urls"]
                if u["outcome"] == Outcome.BROKEN
            ],
        }
        if "fixed" in report:
            verdict["fixed"] = []
        self._do(
            lambda: self.client.hset(
                self.key("meta"),
                mapping={"report": path, "verdict": json.dumps(verdict), "winner": self.worker},
            ),
            0,
        )
        if self.expire > 0:
            self._do(lambda: expire_audit(self.client, self.audit, self.expire), None)


def _verdict(text: str) -> dict[str, Any] | None:
    """The verdict another worker wrote (``report_written``); None when it
    is not a JSON object (an altered record: the exit code says incomplete)."""
    try:
        verdict = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return verdict if isinstance(verdict, dict) else None
