"""Capped, linear inflation of a compressed body (gzip, deflate, brotli,
zstd): the one decoder of pages, robots.txt and sitemaps.

What a hostile server can send and what it costs:

- A bomb (1 GiB of zeros in 1 MB): at most ``cap`` bytes are produced, then
  inflation stops (``cut``).
- Many tiny members (gzip allows members one after the other, zstd frames):
  the naive loop, ``data = decompressor.unused_data``, copies the rest of
  the body for every member, which is quadratic (5 MiB of 20-byte members
  took 48 s of CPU on the event loop).  Here the input is a memoryview read
  in pieces that double from 256 bytes for each member: a member costs
  about twice its own size, whatever comes after it.  Members are also
  counted: past ``MAX_MEMBERS`` the rest is not inflated (``cut``), since
  empty members (20 bytes, no output) would otherwise cost a Python loop
  turn each without ever reaching the output cap.
- Garbage: undecodable from the start is :class:`CorruptBody`; after at
  least some output, what was inflated is kept (``complete`` False), as
  Scrapy's gunzip and browsers do.  Bytes after a gzip member that do not
  start another (1f 8b) are ignored, as gzip(1) does ("trailing garbage").
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from typing import NamedTuple, Protocol

try:
    import brotli
except ImportError:  # pragma: no cover - Scrapy installs one of the two
    import brotlicffi as brotli

try:
    from backports import zstd
except ImportError:  # pragma: no cover - Python 3.14 has it built in
    from compression import zstd  # type: ignore[no-redef]

GZIP_MAGIC = b"\x1f\x8b"
ENCODINGS = frozenset({b"gzip", b"x-gzip", b"deflate", b"br", b"zstd"})
# Real bodies have one member, a few when files were concatenated; far more
# is an attack (each empty member is 20 bytes of input and no output).
MAX_MEMBERS = 10_000
_FIRST_PIECE = 256  # input bytes first given to a new member's decompressor
_MAX_PIECE = 1 << 20  # pieces double up to this


class CorruptBody(ValueError):
    """The body does not decode with its declared encoding."""


class Inflated(NamedTuple):
    body: bytes  # at most ``cap`` bytes
    cut: str | None  # why the rest was not inflated (None: nothing was left out)
    complete: bool  # the stream ended where its format says (not cut short or corrupt)


class _Decompressor(Protocol):  # zlib's and zstd's objects
    @property
    def eof(self) -> bool: ...
    @property
    def unused_data(self) -> bytes: ...

    def decompress(self, data: memoryview, max_length: int) -> bytes: ...


def inflate(data: bytes, encoding: bytes, cap: int) -> Inflated:
    """``data`` decoded from ``encoding`` (a Content-Encoding token, lower
    case), at most ``cap`` bytes of it.  The work is linear in
    ``len(data)`` and ``cap``.

    Raises :class:`CorruptBody` when nothing of it decodes, ValueError for
    an encoding not in :data:`ENCODINGS` or a cap below 1."""
    if cap < 1:
        raise ValueError(f"cap must be positive, not {cap}")
    try:
        if encoding in (b"gzip", b"x-gzip"):
            return _members(data, lambda: zlib.decompressobj(16 + zlib.MAX_WBITS), cap, "gzip")
        if encoding == b"deflate":
            try:
                return _members(data, lambda: zlib.decompressobj(zlib.MAX_WBITS), cap, None)
            except zlib.error:  # raw deflate, as some servers send it
                return _members(data, lambda: zlib.decompressobj(-zlib.MAX_WBITS), cap, None)
        if encoding == b"br":
            return _brotli(data, cap)
        if encoding == b"zstd":
            return _members(data, zstd.ZstdDecompressor, cap, "zstd")
    except (zlib.error, brotli.error, zstd.ZstdError) as exc:
        raise CorruptBody(f"{encoding.decode()}: {exc}") from None
    raise ValueError(f"not an encoding linkaudit decodes: {encoding!r}")


def _members(
    data: bytes, new: Callable[[], _Decompressor], cap: int, members_of: str | None
) -> Inflated:
    """Members (``members_of``: "gzip" or "zstd") or one stream (None), each
    fed in growing pieces of a memoryview, never the whole rest at once."""
    view = memoryview(data)
    size, pos, count = len(view), 0, 0
    out = bytearray()
    while True:
        d, piece = new(), _FIRST_PIECE
        try:
            while not d.eof:
                if pos >= size:  # cut short (in transit, or at our download cap)
                    return Inflated(bytes(out), None, False)
                chunk = view[pos : pos + piece]
                # max_length >= 1: 0 would mean "no limit" to zlib
                out += d.decompress(chunk, cap + 1 - len(out))
                if len(out) > cap:
                    return Inflated(bytes(out[:cap]), _larger(cap), False)
                # below the limit, the piece was read whole; past the end of
                # the member, what follows is in unused_data (a copy of at most
                # this piece, which is why the pieces start small)
                pos += len(chunk) - (len(d.unused_data) if d.eof else 0)
                piece = min(piece * 2, _MAX_PIECE)
        except (zlib.error, zstd.ZstdError):
            if not out:
                raise
            return Inflated(bytes(out), None, False)
        count += 1
        if members_of is None or pos >= size:
            return Inflated(bytes(out), None, True)
        if members_of == "gzip" and view[pos : pos + 2] != GZIP_MAGIC:
            return Inflated(bytes(out), None, True)  # trailing garbage, ignored
        if count >= MAX_MEMBERS:
            return Inflated(bytes(out), f"more than {MAX_MEMBERS} {members_of} members", False)


def _brotli(data: bytes, cap: int) -> Inflated:
    d = brotli.Decompressor()
    out = d.process(data, output_buffer_limit=cap + 1)
    if len(out) > cap:
        return Inflated(out[:cap], _larger(cap), False)
    return Inflated(out, None, d.is_finished())


def _larger(cap: int) -> str:
    return f"larger than {cap} bytes once decompressed"
