"""rules/inflate.py: capped, linear inflation of gzip, deflate, brotli and zstd."""

from __future__ import annotations

import functools
import gzip
import random
import zlib

import brotli
import pytest

from linkaudit.rules import inflate as module
from linkaudit.rules.inflate import MAX_MEMBERS, CorruptBody, Inflated, inflate

try:
    from backports import zstd
except ImportError:  # pragma: no cover - Python 3.14 has it built in
    from compression import zstd  # type: ignore[no-redef]

MiB = 1024 * 1024
TEXT = b"<a href='/x'>x</a>\n" * 100


def _raw_deflate(data: bytes) -> bytes:
    comp = zlib.compressobj(wbits=-zlib.MAX_WBITS)
    return comp.compress(data) + comp.flush()


ENCODERS = {
    b"gzip": gzip.compress,
    b"x-gzip": gzip.compress,
    b"deflate": zlib.compress,
    b"br": brotli.compress,
    b"zstd": zstd.compress,
}


FAST = {**ENCODERS, b"br": functools.partial(brotli.compress, quality=5)}
FAST.update({k: functools.partial(gzip.compress, compresslevel=1) for k in (b"gzip", b"x-gzip")})
FAST[b"deflate"] = functools.partial(zlib.compress, level=1)


@pytest.mark.parametrize("encoding", list(ENCODERS))
def test_round_trip(encoding):
    assert inflate(ENCODERS[encoding](TEXT), encoding, MiB) == Inflated(TEXT, None, True)


def test_raw_deflate_as_some_servers_send_it():
    assert inflate(_raw_deflate(TEXT), b"deflate", MiB) == Inflated(TEXT, None, True)


@pytest.mark.parametrize("encoding", list(ENCODERS))
def test_a_bomb_is_cut_at_the_cap(encoding):
    bomb = FAST[encoding](bytes(16 * MiB))
    body, cut, complete = inflate(bomb, encoding, MiB)
    assert len(body) == MiB and cut == f"larger than {MiB} bytes once decompressed"
    assert not complete


@pytest.mark.parametrize("encoding", list(ENCODERS))
def test_the_cap_is_inclusive(encoding):
    assert inflate(ENCODERS[encoding](TEXT), encoding, len(TEXT)) == Inflated(TEXT, None, True)


@pytest.mark.parametrize("encoding", [b"gzip", b"deflate", b"br", b"zstd"])
def test_a_stream_cut_short_yields_what_it_holds(encoding):
    text = random.Random(0).randbytes(400_000)  # several blocks, each decoded alone
    encode = (
        functools.partial(brotli.compress, quality=5) if encoding == b"br" else ENCODERS[encoding]
    )
    data = encode(text)
    body, cut, complete = inflate(data[: len(data) * 3 // 4], encoding, MiB)
    assert body and text.startswith(body)
    assert cut is None and not complete


@pytest.mark.parametrize("encoding", list(ENCODERS))
def test_garbage_is_corrupt(encoding):
    with pytest.raises(CorruptBody, match=encoding.decode()):
        inflate(b"this is not compressed at all", encoding, MiB)


def test_members_and_frames_are_read_in_turn():
    halves = TEXT[:700], TEXT[700:]
    assert inflate(b"".join(map(gzip.compress, halves)), b"gzip", MiB).body == TEXT
    assert inflate(b"".join(map(zstd.compress, halves)), b"zstd", MiB).body == TEXT


def test_bytes_after_the_last_gzip_member_are_ignored():
    assert inflate(gzip.compress(TEXT) + b"\0" * 512, b"gzip", MiB) == Inflated(TEXT, None, True)


def test_corrupt_member_after_a_good_one_keeps_the_good_one():
    body = gzip.compress(TEXT) + b"\x1f\x8b\x08\x00" + b"\xff" * 40
    assert inflate(body, b"gzip", MiB) == Inflated(TEXT, None, False)


def test_members_are_counted():
    member = gzip.compress(b"x", mtime=0)
    assert inflate(member * MAX_MEMBERS, b"gzip", MiB) == Inflated(b"x" * MAX_MEMBERS, None, True)
    body, cut, complete = inflate(member * (MAX_MEMBERS + 1), b"gzip", MiB)
    assert (body, cut, complete) == (
        b"x" * MAX_MEMBERS,
        f"more than {MAX_MEMBERS} gzip members",
        False,
    )


def test_cap_and_encoding_are_checked():
    with pytest.raises(ValueError, match="cap must be positive"):
        inflate(gzip.compress(TEXT), b"gzip", 0)
    with pytest.raises(ValueError, match="not an encoding"):
        inflate(TEXT, b"compress", MiB)


_decompressobj = zlib.decompressobj


class _Counting:
    """zlib's decompressobj, counting the input bytes it is given."""

    fed = 0

    def __init__(self, wbits: int):
        self.d = _decompressobj(wbits)

    def decompress(self, data, max_length):
        _Counting.fed += len(data)
        return self.d.decompress(data, max_length)

    def __getattr__(self, name):
        return getattr(self.d, name)


@pytest.mark.parametrize("member_size, n", [(1, 250), (2000, 250), (100_000, 25)])
def test_work_is_linear_in_the_body(monkeypatch, member_size, n):
    """The bytes handed to the decompressors stay within a constant factor
    of the body, however it is split into members (the quadratic loop handed
    the whole rest of the body to every member's decompressor)."""
    monkeypatch.setattr(module.zlib, "decompressobj", _Counting)
    fed = []
    for members in (n, 4 * n):
        member = gzip.compress(bytes(range(256)) * (member_size // 256) + b"x", mtime=0)
        body = member * members
        _Counting.fed = 0
        assert len(inflate(body, b"gzip", 64 * MiB).body) == members * (
            member_size // 256 * 256 + 1
        )
        assert _Counting.fed <= 2 * len(body) + 256 * members
        fed.append(_Counting.fed)
    assert fed[1] <= 4.5 * fed[0]


def test_many_empty_members_cost_little():
    """5 MiB of empty gzip members (the issue's page): cut after MAX_MEMBERS,
    in well under a second (the quadratic loop took 48 s)."""
    import time

    body = gzip.compress(b"<a href='/x'>", mtime=0) + gzip.compress(b"", mtime=0) * (5 * MiB // 20)
    started = time.process_time()
    inflated = inflate(body, b"gzip", 5 * MiB)
    assert inflated.body == b"<a href='/x'>" and inflated.cut
    assert time.process_time() - started < 2
