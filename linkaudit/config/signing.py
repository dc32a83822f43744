"""Readers (see ``checks.py``) of Web Bot Auth's settings: the private key
that signs every request (``--sign-key``) and the origin that publishes its
key directory (``--signature-agent``); the rules of the signature are
``rules/signatures.py``.

The key is read once, here, before anything is requested: a file that is
no Ed25519 private key is one error line that names the file and never
shows what it holds (nor what ``cryptography`` said of it, which could).
"""

from __future__ import annotations

import os
import stat
from typing import Any
from urllib.parse import urlsplit

from linkaudit.config.inputs import open_regular
from linkaudit.config.urls import optional_url
from linkaudit.rules.signatures import Signer, thumbprint

AGENT_SETTING, KEY_SETTING = "LINKAUDIT_SIGNATURE_AGENT", "LINKAUDIT_SIGN_KEY"
_MAX_KEY_BYTES = 64 * 1024  # a PEM Ed25519 key is 119 bytes: more is another file
_NOT_A_KEY = (
    "is not an unencrypted Ed25519 private key in PEM (make one with: linkaudit keygen DIR)"
)


def signature_agent(settings: Any, name: str) -> str | None:
    """The https origin whose ``/.well-known/http-message-signatures-directory``
    holds the public key, serialized as an origin (``https://host[:port]``):
    what the drafts' ``directory`` member must be; None: not given."""
    url = optional_url(settings, name)
    if url is None:
        return None
    if not str(settings.get(KEY_SETTING) or "").strip():  # nothing would be signed
        raise ValueError("needs --sign-key PATH (LINKAUDIT_SIGN_KEY): the key that signs")
    parts = urlsplit(url)
    if parts.scheme != "https" or parts.path != "/" or parts.query or parts.fragment:
        raise ValueError(
            f"{url!r} is not an https origin (https://HOST[:PORT], no path): the key "
            "directory is published at its /.well-known/http-message-signatures-directory"
        )
    return f"https://{parts.netloc}"


def sign_key(settings: Any, name: str) -> Signer | None:
    """The private key of ``--sign-key PATH``, loaded; None: not given.  It
    needs the signature agent: a signed request names where its key is
    published."""
    path = str(settings.get(name) or "").strip()
    if not path:
        return None
    if not str(settings.get(AGENT_SETTING) or "").strip():
        raise ValueError(
            "needs --signature-agent URL (LINKAUDIT_SIGNATURE_AGENT): the https origin "
            "that publishes the key directory"
        )
    try:
        with open_regular(path) as file:  # a pipe or /dev/zero would never end
            data = file.read(_MAX_KEY_BYTES + 1)
    except ValueError as exc:
        raise ValueError(f"{path!r} is {exc}") from None
    except OSError as exc:
        raise ValueError(f"{path!r} cannot be read ({exc.strerror or 'error'})") from None
    key = _ed25519(data) if len(data) <= _MAX_KEY_BYTES else None
    if key is None:
        raise ValueError(f"{path!r} {_NOT_A_KEY}")
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    public = key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    return Signer(os.path.abspath(path), key, thumbprint(public))


def _ed25519(data: bytes) -> Any | None:
    """The Ed25519 private key PEM ``data`` holds, or None (whatever else it
    is: what was wrong is not said, it might quote the file)."""
    from cryptography.exceptions import UnsupportedAlgorithm
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.serialization import load_pem_private_key

    try:
        key = load_pem_private_key(data, password=None)
    except (ValueError, TypeError, UnsupportedAlgorithm):
        return None
    return key if isinstance(key, Ed25519PrivateKey) else None


def readable_by_others(path: str) -> bool:
    """The key file's group or anyone else may read it (a warning: a key
    another user can read can sign as you)."""
    try:
        return bool(os.stat(path).st_mode & (stat.S_IRGRP | stat.S_IROTH))
    except OSError:
        return False
