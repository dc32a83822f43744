"""``linkaudit keygen DIR``: a new Ed25519 key for Web Bot Auth, and the key
directory its owner publishes (``rules/signatures.py``).

Two files in ``DIR`` (made if missing):

- ``linkaudit-key.pem``: the private key (PKCS #8, PEM), readable by its
  owner alone (0600), what ``--sign-key`` reads; never overwritten;
- ``http-message-signatures-directory``: the public key as a JWKS, to be
  served at ``https://ORIGIN/.well-known/http-message-signatures-directory``
  as ``application/http-message-signatures-directory+json``; ``ORIGIN`` is
  then the ``--signature-agent``.
"""

from __future__ import annotations

import errno
import json
import os
import sys

from linkaudit.command.usage import SubcommandParser
from linkaudit.output.exitstatus import EXIT_OK, EXIT_USAGE
from linkaudit.output.formats.common import shown
from linkaudit.rules.signatures import DIRECTORY_PATH, DIRECTORY_TYPE, directory

KEY_FILE = "linkaudit-key.pem"
DIRECTORY_FILE = DIRECTORY_PATH.rpartition("/")[2]


def keygen_main(argv: list[str]) -> int:
    """``linkaudit keygen``: write a key and its directory, say how to use them."""
    p = SubcommandParser(
        prog="linkaudit keygen",
        description="Make an Ed25519 key to sign linkaudit's requests (Web Bot Auth) and "
        "the key directory to publish, in DIR.",
    )
    p.add_argument("dir", metavar="DIR", help="where the two files are written (made if missing)")
    ns = p.parse_args(argv)
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    key = Ed25519PrivateKey.generate()
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    public = key.public_key().public_bytes(
        serialization.Encoding.Raw, serialization.PublicFormat.Raw
    )
    jwks = directory(public)
    key_path = os.path.join(ns.dir, KEY_FILE)
    directory_path = os.path.join(ns.dir, DIRECTORY_FILE)
    try:
        os.makedirs(ns.dir, exist_ok=True)
        for path in (key_path, directory_path):  # a key a site knows is never replaced
            if os.path.lexists(path):
                raise FileExistsError(errno.EEXIST, "exists already: not overwritten", path)
        _write_private(key_path, pem)
        with open(directory_path, "x", encoding="ascii") as file:
            file.write(json.dumps(jwks, indent=2) + "\n")
    except OSError as exc:
        where, what = exc.filename or ns.dir, exc.strerror or str(exc)
        print(f"linkaudit keygen: error: {shown(str(where))}: {shown(what)}", file=sys.stderr)
        return EXIT_USAGE
    keyid = jwks["keys"][0]["kid"]
    print(
        f"Key {keyid}\n"
        f"  private key: {shown(key_path)} (keep it secret: readable by you alone)\n"
        f"  key directory: {shown(directory_path)}\n"
        f"Publish the key directory at https://ORIGIN{DIRECTORY_PATH}\n"
        f"served as {DIRECTORY_TYPE}, then audit with\n"
        f"  linkaudit --sign-key {shown(key_path)} --signature-agent https://ORIGIN URL"
    )
    return EXIT_OK


def _write_private(path: str, pem: bytes) -> None:
    """``pem`` in a new file only its owner may read or write."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        os.fchmod(fd, 0o600)  # whatever the umask left
        os.write(fd, pem)
    finally:
        os.close(fd)
