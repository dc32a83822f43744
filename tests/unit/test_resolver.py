"""Names that cannot exist are not looked up (linkaudit/network/resolver.py)."""

from __future__ import annotations

import pytest

from linkaudit.network.resolver import never_resolves


@pytest.mark.parametrize(
    "name, never",
    [
        ("nosuch.invalid", True),
        ("a.b.INVALID.", True),
        ("invalid", True),
        ("expyuzz4wqqyqhjn.onion", True),
        ("example.com", False),
        ("invalid.example.com", False),
        ("localhost", False),
        ("127.0.0.1", False),
        # names DNS cannot carry (RFC 1035): no lookup, no thread's traceback
        ("a" * 64 + ".example", True),
        ("a" * 63 + ".example", False),
        ("a..example", True),
        ("a." * 126 + "example", True),
        ("a." * 120 + "example.", False),
    ],
)
def test_special_use_names(name, never):
    assert never_resolves(name) is never
