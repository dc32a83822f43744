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
    every level (``-vv``'s debug lines too).  Line breaks stay: Scrapy's own
    messages span lines (its settings, its stats); a traceback is not the
    message and is left as it is."""

    def getMessage(self) -> str:  # noqa: N802 - logging's name
        message = super().getMessage()
        if message.isprintable():  # nearly always: one pass in C
            return message
        return "\n".join(shown(line) for line in message.split("\n"))


def escape_log_records() -> None:
    """Every record made from now on is a :class:`ShownRecord` (called by
    the command at its start and by the LogLevel extension, for ``scrapy
    crawl``).  A record factory someone else installed is left alone."""
    if logging.getLogRecordFactory() is logging.LogRecord:
        logging.setLogRecordFactory(ShownRecord)
