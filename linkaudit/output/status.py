"""The live status line of an audit on a terminal (``LINKAUDIT_PROGRESS``):
drawn by the crawl's progress extension and by the walk of a local build.

The line is drawn with a carriage return and no newline, so anything else
written to the terminal while it stands would be glued onto its end: a
log line (a warning, a hint such as the pace hint) first erases it, and
the next redraw puts it back below (:class:`TerminalLine`)."""

from __future__ import annotations

import logging
from typing import TextIO

ERASE = "\r\033[K"  # back to the start of the line, clear it


def status_line(checked: int, queued: int, broken: int, requests: int, elapsed: float) -> str:
    rate = requests / elapsed if elapsed > 0 else 0.0
    minutes, seconds = divmod(int(elapsed), 60)
    return (
        f"linkaudit: {checked} checked, {queued} queued, {broken} broken, "
        f"{rate:.1f} requests/s, {minutes}:{seconds:02d} elapsed"
    )


class TerminalLine(logging.Filter):
    """The status line on ``stream``: :meth:`draw` redraws it, :meth:`erase`
    clears it.  As a filter of the root logger's handlers that write to a
    terminal, it clears the line before each record they emit: a log line
    starts at the start of a line of its own, never after the status."""

    def __init__(self, stream: TextIO):
        super().__init__()
        self.stream = stream
        self.drawn = False

    def draw(self, line: str) -> None:
        self.watch()
        self.stream.write(ERASE + line)
        self.stream.flush()
        self.drawn = True

    def erase(self) -> None:
        if self.drawn:
            self.drawn = False
            self.stream.write(ERASE)
            self.stream.flush()

    def filter(self, record: logging.LogRecord) -> bool:
        self.erase()  # (called only for a record the handler will emit)
        return True

    def watch(self) -> None:
        """Put itself on the root logger's handlers that write to a
        terminal (Scrapy replaces its handler as a crawl starts: looked at
        on each draw; ``addFilter`` adds a filter once)."""
        for handler in logging.getLogger().handlers:
            if _on_terminal(handler):
                handler.addFilter(self)

    def close(self) -> None:
        """The line erased (whatever it showed: what follows starts on a
        clean line), the filters taken off."""
        self.drawn = True
        self.erase()
        for handler in logging.getLogger().handlers:
            handler.removeFilter(self)


def _on_terminal(handler: logging.Handler) -> bool:
    stream = getattr(handler, "stream", None)
    try:
        return bool(stream is not None and stream.isatty())
    except (AttributeError, ValueError, OSError):  # closed, or no file at all
        return False
