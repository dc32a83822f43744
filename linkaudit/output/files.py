"""Files linkaudit writes as it goes (the journal, the page archive, a feed),
never written through a link planted where they go.

The report and its views are written to a temporary file renamed into
place (``report.write_atomically``): a rename replaces a symbolic link, it
never follows one.  A file written line by line from the start of the crawl
cannot be renamed into place at the end, so it is created anew: whatever is
at its path (a file, a symbolic link, a hard link to another file) is
unlinked, and the file is created exclusively (``O_EXCL``, which follows no
link), so a link planted between the two fails the creation instead of
being followed.  A victim file a link points at is never opened.
"""

from __future__ import annotations

import errno
import os
import stat

_FRESH = os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
# where a link is the system's own, named on purpose: --jsonl /dev/stdout
_SYSTEM_LINKS = ("/dev", "/dev/fd", "/proc/self/fd")


def create_fresh(path: str, readable: bool = False, tries: int = 3) -> int:
    """A descriptor of a new, empty file at ``path``, open for writing (and
    reading, when ``readable``); what was at ``path`` is replaced, never
    written through.  OSError as ``os.open`` raises it (a directory there:
    ``IsADirectoryError``)."""
    flags = _FRESH | (os.O_RDWR if readable else os.O_WRONLY)
    for _ in range(tries):
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass
        try:
            return os.open(path, flags, 0o666)
        except FileExistsError:
            continue  # planted again between the two: unlinked again
    raise OSError(errno.EEXIST, "something keeps being created there", path)


def open_feed(path: str, append: bool) -> int:
    """A descriptor of the feed ``path``, open for writing.  A pipe or a
    device there (not a link to one) is written to as it is, and so is a
    link of the system's own (``/dev/stdout``); a link elsewhere is not
    followed: overwritten, the feed is created anew (:func:`create_fresh`);
    appended to, one is refused (``ELOOP``)."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        info = None
    plain_file = info is None or stat.S_ISREG(info.st_mode)
    if info is not None and stat.S_ISLNK(info.st_mode):
        if os.path.dirname(os.path.abspath(path)) in _SYSTEM_LINKS:
            return os.open(path, os.O_WRONLY | os.O_CLOEXEC | (os.O_APPEND if append else 0))
        plain_file = True
    if not plain_file:  # a pipe or a device: nothing to create (nor a link swapped in since)
        flags = os.O_WRONLY | os.O_CLOEXEC | os.O_NOFOLLOW | (os.O_APPEND if append else 0)
        return os.open(path, flags)
    if append:
        flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW | os.O_CLOEXEC
        return os.open(path, flags, 0o666)
    return create_fresh(path)
