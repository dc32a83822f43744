"""Log records whose messages are written as every other output writes a
value from a page or a server (without Scrapy: the command installs it at
its start, before Scrapy is imported)."""

from __future__ import annotations

import logging

from linkaudit.output.formats.common import shown


class ShownRecord(logging.LogRecord):
    """A log record whose message is written as the formats write a value
    from a page or a server (``formats/common.shown``): a URL holding ESC
    or a bidi override is logged as ``\\x1b``, ``\\u202e``, never raw, at
    every level (``-vv``'s debug lines too), and so is the text of a
    traceback (an exception's words may quote a page).  Line breaks stay:
    Scrapy's own messages span lines (its settings, its stats), and so do
    tracebacks."""

    def getMessage(self) -> str:  # noqa: N802 - logging's name
        return _lines_shown(super().getMessage())

    # the formatter caches the traceback's text here: kept escaped
    @property
    def exc_text(self) -> str | None:
        return self._exc_text

    @exc_text.setter
    def exc_text(self, text: str | None) -> None:
        self._exc_text = None if text is None else _lines_shown(text)


def _lines_shown(text: str) -> str:
    if text.isprintable():  # nearly always: one pass in C
        return text
    return "\n".join(shown(line) for line in text.split("\n"))


def escape_log_records() -> None:
    """Every record made from now on is a :class:`ShownRecord` (called by
    the command at its start and by the LogLevel extension, for ``scrapy
    crawl``).  A record factory someone else installed is left alone."""
    if logging.getLogRecordFactory() is logging.LogRecord:
        logging.setLogRecordFactory(ShownRecord)
