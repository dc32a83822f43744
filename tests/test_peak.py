"""tests/peak.py measures the command's own peak, not the wrapper's nor the
test process's: the memory bounds of the hostile-server tests rest on it."""

from __future__ import annotations

import sys

from tests.peak import measure

ALLOCATE = "b = bytearray({mib} * 1024 * 1024); b[::4096] = b'x' * len(b[::4096])"


def test_the_peak_is_the_commands_own():
    small = measure([sys.executable, "-c", ALLOCATE.format(mib=1)], limit=30)
    big = measure([sys.executable, "-c", ALLOCATE.format(mib=200)], limit=30)
    assert small.proc.returncode == big.proc.returncode == 0
    assert small.peak_kib < 60 * 1024, small.peak_kib
    assert big.peak_kib > 200 * 1024, big.peak_kib
