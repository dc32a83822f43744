"""Processes a test watches: is a PID still one (a zombie is not)."""

from __future__ import annotations

from pathlib import Path


def alive(pid: int) -> bool:
    """Still a process (a zombie left to a container's init is not one)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return False
    return stat[stat.rfind(b")") + 2 :].split()[0] != b"Z"
