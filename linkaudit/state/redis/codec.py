"""How the shared state names a URL and writes a pending URL in Redis (a
result: ``state/compact.py``)."""

from __future__ import annotations

import hashlib
import json

from linkaudit.state.base import Pending


def fingerprint(url: str) -> tuple[str, str]:
    """As the scripts compute it: SHA-1 hex, 3 digits of bucket (4,096
    hashes), 16 of key within it."""
    digest = hashlib.sha1(url.encode("utf-8")).hexdigest()
    return digest[:3], digest[3:19]


def decode_pending(record: str) -> Pending:
    data = json.loads(record)
    return Pending(data["u"], int(data["d"]), data.get("r"), data.get("p"))
