"""Reading a build's page: a file's bytes as the download handler reads
them, decoded as the crawl decodes them, and what its text says
(``read_page``), without the audit's state.

(Reading a level's pages in a pool of processes was tried: on two cores
the parent's unpickling of every page's links cost more CPU than the
workers saved, 4.1 s against 3.5 s on the Python docs, and the walk was
slower.)"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from linkaudit.localbuild.decoding import decoded
from linkaudit.localbuild.static import NOT_FOUND_BODY
from linkaudit.rules.pagelinks import PageLinks, read_page
from linkaudit.rules.soft404 import says_not_found

CHUNK = 64 * 1024  # read as the download handler reads a file (the page cap counts chunks)


class PageJob(NamedTuple):
    path: Path | None  # None: the plain 404 body
    content_type: str
    cap: int  # LINKAUDIT_PAGE_MAXSIZE
    stylesheet: bool
    css: bool
    anchors: bool
    limit: int  # LINKAUDIT_PAGE_MAXLINKS
    templates: bool
    soft_404: bool  # read the title for a soft 404 (HTML pages)


class PageRead(NamedTuple):
    size: int  # bytes read
    truncated: bool
    said: str | None  # what the title or first heading says, when it says not found
    links: PageLinks


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


def read_job(job: PageJob) -> PageRead | OSError:
    """One page read and tokenized; a file gone or unreadable since it was
    found is its OSError (the handler answers it 404)."""
    try:
        body, truncated = read_file(job.path, job.cap)
    except OSError as exc:
        return exc
    text = decoded(job.content_type, body)
    # the soft-404 title from the whole body, as the crawl reads it; links
    # from what the cap lets through
    said = says_not_found(text) if job.soft_404 and not job.stylesheet else None
    if truncated:
        text = text[: job.cap]
    links = read_page(
        text,
        job.stylesheet,
        css=job.css,
        anchors=job.anchors,
        limit=job.limit,
        templates=job.templates and not job.stylesheet,
    )
    return PageRead(len(body), truncated, said, links)
