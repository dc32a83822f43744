"""Files the user names for linkaudit to read (``--config``, ``--cookie-jar``,
``--baseline``) and to write a feed to (``--jsonl``): checked before
anything else is done with them, so that no open or read can wait for ever.

A named pipe with no writer blocks ``open()`` for reading until one comes;
one with a writer, or a device (``/dev/zero``), never ends a ``read()``.
What linkaudit reads is a file a person wrote, so it must be a regular file
(``/dev/stdin`` redirected from a file is one).  A feed may go to a pipe
(``--jsonl /dev/stdout | jq``), but one nobody reads blocks its ``open()``
until the crawl is stopped: it is refused at once instead.
"""

from __future__ import annotations

import errno
import os
import stat
from typing import BinaryIO

_HELD: list[int] = []  # the pipes of feeds checked (check_feed)


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a directory" if stat.S_ISDIR(mode) else "not a file"


def open_regular(path: str | os.PathLike[str]) -> BinaryIO:
    """``path`` opened for reading, as a binary file, if it is a regular
    file; ValueError (words for the user: ``is not a regular file (a named
    pipe)``, the path left to the caller) otherwise, without waiting for a pipe's writer; OSError as
    ``open`` raises it.  The file is checked once opened (``fstat``), so
    what is read is what was checked."""
    # O_NONBLOCK: opening a pipe without a writer returns at once
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise ValueError(f"not a regular file ({_kind(mode)})")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def check_regular(path: str) -> None:
    """``path`` is a regular file that opens (ValueError, OSError as
    :func:`open_regular`)."""
    open_regular(path).close()


def check_feed(path: str) -> None:
    """A feed's path that exists and is a pipe has a reader now (ValueError
    otherwise): the feed's ``open()`` would wait for one."""
    try:
        # lstat, as the feed's open: a link to a pipe is replaced, not written through
        mode = os.lstat(path).st_mode
    except OSError:
        return  # not there: a file is created
    if not stat.S_ISFIFO(mode):
        return  # a file is replaced, a device written to (/dev/null)
    try:
        # held open until the process ends: closed now, it would end the
        # reader's input (``cat PIPE`` would stop) before the feed opens
        _HELD.append(os.open(path, os.O_WRONLY | os.O_NONBLOCK | os.O_CLOEXEC))
    except OSError as exc:
        if exc.errno == errno.ENXIO:
            raise ValueError(f"{path} is a named pipe that nobody reads") from None
        raise ValueError(f"{path} is not writable ({exc.strerror or exc})") from None
