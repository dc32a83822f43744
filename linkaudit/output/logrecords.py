"""Log records whose messages are written as every other output writes a
value from a page or a server (without Scrapy: the command installs it at
its start, before Scrapy is imported), and, in an audit of a build
directory, name its URLs as every output does (``rules/names.py``): its
files or its deployed URLs, never the internal address it is audited at
(Scrapy's own lines, ``GET 200 http://...``, included)."""

from __future__ import annotations

import logging

from linkaudit.output.formats.common import shown
from linkaudit.rules.names import BuildNames

# the build whose URLs the log names (one audit a process: the command's,
# or scrapy crawl's); empty for a site
_BUILD: list[BuildNames] = []


def name_build_in_log(names: BuildNames | None) -> None:
    """From now on, every log record names ``names``' URLs as shown (None:
    a site, nothing to translate)."""
    _BUILD[:] = [names] if names is not None else []


class ShownRecord(logging.LogRecord):
    """A log record whose message is written as the formats write a value
    from a page or a server (``formats/common.shown``): a URL holding ESC
    or a bidi override is logged as ``\\x1b``, ``\\u202e``, never raw, at
    every level (``-vv``'s debug lines too), and so is the text of a
    traceback (an exception's words may quote a page).  Line breaks stay:
    Scrapy's own messages span lines (its settings, its stats), and so do
    tracebacks."""

    def getMessage(self) -> str:  # noqa: N802 - logging's name
        return _lines_shown(_named(super().getMessage()))

    # the formatter caches the traceback's text here: kept escaped
    @property
    def exc_text(self) -> str | None:
        return self._exc_text

    @exc_text.setter
    def exc_text(self, text: str | None) -> None:
        self._exc_text = None if text is None else _lines_shown(_named(text))


def _named(text: str) -> str:
    return _BUILD[0].text(text) if _BUILD else text


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
