"""The live status line of an audit on a terminal (``LINKAUDIT_PROGRESS``):
drawn by the crawl's progress extension and by the walk of a local build."""

from __future__ import annotations

ERASE = "\r\033[K"  # back to the start of the line, clear it


def status_line(checked: int, queued: int, broken: int, requests: int, elapsed: float) -> str:
    rate = requests / elapsed if elapsed > 0 else 0.0
    minutes, seconds = divmod(int(elapsed), 60)
    return (
        f"linkaudit: {checked} checked, {queued} queued, {broken} broken, "
        f"{rate:.1f} requests/s, {minutes}:{seconds:02d} elapsed"
    )
