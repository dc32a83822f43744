"""``linkaudit keygen DIR``: a new Ed25519 key for Web Bot Auth, and the key
directory its owner publishes (``rules/signatures.py``).

Two files in ``DIR`` (made if missing):

- ``linkaudit-key.pem``: the private key (PKCS #8, PEM), readable by its
  owner alone (0600), what ``--sign-key`` reads; never overwritten;
- ``http-message-signatures-directory``: the public key as a JWKS, to be
  served at ``https://ORIGIN/.well-known/http-message-signatures-directory``
  as ``application/http-message-signatures-directory+json``; ``ORIGIN`` is
  then the ``--signature-agent``.

Whatever the umask, nothing keygen makes is writable by anyone but its
owner: the folders it creates are at most 0755 and the key directory at
most 0644 (readable, for a web server to publish), so no other local user
can replace the key directory a site will trust (a umask of 000 or a
shared group's 002 would have let them).  A folder that already existed
and that others may write to is named in a warning: they could replace
the files in it.
"""

from __future__ import annotations

import errno
import json
import os
import stat
import sys

from linkaudit.command.usage import SubcommandParser
from linkaudit.output.exitstatus import EXIT_OK, EXIT_USAGE
from linkaudit.output.formats.common import shown
from linkaudit.rules.signatures import DIRECTORY_PATH, DIRECTORY_TYPE, directory

KEY_FILE = "linkaudit-key.pem"
DIRECTORY_FILE = DIRECTORY_PATH.rpartition("/")[2]
# the most a mode may be (os.mkdir and os.open take the umask off it)
FOLDER_MODE, PUBLIC_MODE, PRIVATE_MODE = 0o755, 0o644, 0o600


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
        _make_folders(ns.dir)
        for path in (key_path, directory_path):  # a key a site knows is never replaced
            if os.path.lexists(path):
                raise FileExistsError(errno.EEXIST, "exists already: not overwritten", path)
        _write(key_path, pem, PRIVATE_MODE)
        _write(directory_path, (json.dumps(jwks, indent=2) + "\n").encode("ascii"), PUBLIC_MODE)
        shared = _writable_by_others(ns.dir)
    except OSError as exc:
        where, what = exc.filename or ns.dir, exc.strerror or str(exc)
        print(f"linkaudit keygen: error: {shown(str(where))}: {shown(what)}", file=sys.stderr)
        return EXIT_USAGE
    if shared:
        print(
            f"linkaudit keygen: warning: {shown(ns.dir)} is writable by others: they could "
            "replace the key directory; keep the files in a folder only you can write to",
            file=sys.stderr,
        )
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


def _make_folders(folder: str) -> None:
    """``folder`` and the folders above it that are missing, each 0755 at
    most (``os.makedirs`` gives its mode to the last one only)."""
    missing: list[str] = []
    path = os.path.normpath(folder)  # named as given in an error
    while path and not os.path.isdir(path):
        missing.append(path)
        parent = os.path.dirname(path)
        if parent == path:
            break
        path = parent
    for path in reversed(missing):
        try:
            os.mkdir(path, FOLDER_MODE)
        except FileExistsError:
            if not os.path.isdir(path):  # a file (or a link to one) in the way
                raise NotADirectoryError(errno.ENOTDIR, "not a directory", path) from None


def _write(path: str, data: bytes, mode: int) -> None:
    """``data`` in a new file whose mode is at most ``mode``: the umask may
    take more away, never add (the private key is exactly 0600)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, mode)
    try:
        if mode == PRIVATE_MODE:
            os.fchmod(fd, mode)  # whatever the umask left: its owner must read it
        os.write(fd, data)
    finally:
        os.close(fd)


def _writable_by_others(folder: str) -> bool:
    """Whether users other than its owner may replace files in ``folder``
    (one that existed): writable by its group or others, and not sticky
    (in /tmp, 1777, only a file's owner may remove or rename it)."""
    mode = os.stat(folder).st_mode
    return bool(mode & (stat.S_IWGRP | stat.S_IWOTH)) and not mode & stat.S_ISVTX
