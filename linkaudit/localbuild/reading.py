"""Reading a build's file: its bytes as the download handler reads them
(the walk decodes them as the crawl decodes a response: ``decoding.py``).

(Reading a level's pages in a pool of processes was tried: on two cores
the parent's unpickling of every page's links cost more CPU than the
workers saved, 4.1 s against 3.5 s on the Python docs, and the walk was
slower.)"""

from __future__ import annotations

from pathlib import Path

from linkaudit.localbuild.static import NOT_FOUND_BODY

CHUNK = 64 * 1024  # read as the download handler reads a file (the page cap counts chunks)


def read_file(path: Path | None, cap: int) -> tuple[bytes, bool]:
    """The file's bytes, 64 KiB at a time, stopping after the chunk that
    passes ``cap`` (truncated); no file: the plain 404 body."""
    if path is None:
        return NOT_FOUND_BODY, False
    body: list[bytes] = []
    read = 0
    with open(path, "rb") as handle:
        while chunk := handle.read(CHUNK):
            body.append(chunk)
            read += len(chunk)
            if read > cap:
                return b"".join(body), True
    return b"".join(body), False
