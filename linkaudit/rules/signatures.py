"""HTTP Message Signatures (RFC 9421) as the Web Bot Auth drafts profile
them: what a signed request of linkaudit carries, pure (the time, the
nonce and the key are given).

A crawler that signs its requests lets a site's owner, or the CDN in front
of the site, recognise it and let it through a wall the owner opened for
it (draft-meunier-webbotauth-httpsig-protocol, formerly
draft-meunier-web-bot-auth-architecture and
draft-meunier-http-message-signatures-directory).  Each request carries:

- ``Signature-Agent: sig1="https://agent.example"``: a Structured Fields
  Dictionary (RFC 9651) whose member, keyed by the signature's label, is
  the origin that publishes the key directory at
  ``/.well-known/http-message-signatures-directory`` (the draft's
  ``directory`` type, its default);
- ``Signature-Input: sig1=("@authority" "@scheme" "signature-agent";
  key="sig1");created=...;expires=...;keyid="...";alg="ed25519";
  nonce="...";tag="web-bot-auth"``: the covered components, the request's
  authority, its scheme and that member (RFC 9421 2.2.3, 2.2.4 and
  2.1.2), and the signature's parameters (2.3): ``keyid`` is the key's JWK
  SHA-256 thumbprint (RFC 7638, RFC 8037 A.3), ``tag`` the profile's.  The
  draft requires ``@authority`` and the member, and lets a signer cover
  more; ``@scheme`` is covered so that a signature sent in clear to
  ``http://host/`` (which anyone on the way reads) is no signature for
  ``https://host/``;
- ``Signature: sig1=:BASE64:``: Ed25519 (RFC 9421 3.3.6, RFC 8032) over
  the signature base (2.5).

The signature base is built here from the components' values, as RFC 9421
2.5 says: one line per covered component, its identifier serialized as a
Structured Field String with its parameters, ``: `` and its value, then the
``"@signature-params"`` line, with no newline at the end.  The tests hold
it to RFC 9421's own Ed25519 example (B.2.6) and to the draft's test
vector, byte for byte.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

TAG = "web-bot-auth"
LABEL = "sig1"  # the signature's label, and its Signature-Agent member's key
ALGORITHM = "ed25519"
# the key directory: where it is published, and its media type
DIRECTORY_PATH = "/.well-known/http-message-signatures-directory"
DIRECTORY_TYPE = "application/http-message-signatures-directory+json"
NONCE_BYTES = 64  # as Cloudflare's reference signer makes them
_DEFAULT_PORTS = {"http": 80, "https": 443}

Param = tuple[str, "str | int | bool"]


def b64url(data: bytes) -> str:
    """Base64url without padding (RFC 7515 2), as JWKs write bytes."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def sf_string(text: str) -> str:
    """A Structured Field String (RFC 9651 4.1.6): printable ASCII only,
    ``"`` and ``\\`` escaped."""
    if any(not (0x20 <= ord(ch) <= 0x7E) for ch in text):
        raise ValueError("a Structured Field String holds printable ASCII only")
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _bare(value: str | int | bool) -> str:
    """A parameter's value (RFC 9651 4.1.1.2): an Integer, a String, or the
    Boolean true written as the bare key."""
    if value is True:
        return ""
    if isinstance(value, int) and not isinstance(value, bool):
        return f"={value}"
    return "=" + sf_string(str(value))


def parameters(params: Sequence[Param]) -> str:
    """``;key=value`` for each parameter, in the order given."""
    return "".join(f";{key}{_bare(value)}" for key, value in params)


def identifier(name: str, params: Sequence[Param] = ()) -> str:
    """A component identifier (RFC 9421 2): its name as a String, then its
    parameters: ``"signature-agent";key="sig1"``."""
    return sf_string(name) + parameters(params)


@dataclass(frozen=True)
class Component:
    """A covered component: its name, its parameters, and its value as the
    message gives it (already derived or canonicalized)."""

    name: str
    value: str
    params: tuple[Param, ...] = ()

    @property
    def identifier(self) -> str:
        return identifier(self.name, self.params)


def signature_params(covered: Sequence[Component], params: Sequence[Param]) -> str:
    """The ``@signature-params`` value (RFC 9421 2.3), which is also the
    member of ``Signature-Input``: the covered components' identifiers as an
    Inner List, then the signature's parameters."""
    return "(" + " ".join(c.identifier for c in covered) + ")" + parameters(params)


def signature_base(covered: Sequence[Component], params: Sequence[Param]) -> str:
    """The signature base (RFC 9421 2.5)."""
    lines = []
    for component in covered:
        if "\n" in component.value:
            raise ValueError("a component value holds no newline (RFC 9421 2)")
        lines.append(f"{component.identifier}: {component.value}\n")
    return "".join(lines) + f'"@signature-params": {signature_params(covered, params)}'


def authority(scheme: str, host: str, port: int | None) -> str:
    """``@authority`` (RFC 9421 2.2.3): the host in lower case (an IPv6
    address in brackets), the port unless it is the scheme's default."""
    host = host.lower()
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    if port is None or port == _DEFAULT_PORTS.get(scheme.lower()):
        return host
    return f"{host}:{port}"


def thumbprint(public: bytes) -> str:
    """The JWK SHA-256 thumbprint of an Ed25519 public key (RFC 7638 3,
    RFC 8037 A.3): the required members in lexicographic order, no white
    space, hashed."""
    canonical = json.dumps(
        {"crv": "Ed25519", "kty": "OKP", "x": b64url(public)}, separators=(",", ":")
    )
    return b64url(hashlib.sha256(canonical.encode("ascii")).digest())


def directory(public: bytes) -> dict[str, Any]:
    """The key directory (a JWKS, RFC 7517 5) that publishes ``public``:
    its ``kid`` is the thumbprint a signature's ``keyid`` names."""
    jwk = {
        "kty": "OKP",
        "crv": "Ed25519",
        "kid": thumbprint(public),
        "x": b64url(public),
        "use": "sig",
    }
    return {"keys": [jwk]}


@dataclass(frozen=True)
class Signer:
    """An Ed25519 private key (``cryptography``'s) and what names it.  Its
    repr shows the file and the key id, never the key."""

    path: str
    key: Any = field(repr=False)  # Ed25519PrivateKey
    keyid: str

    def sign(self, data: bytes) -> bytes:
        return self.key.sign(data)


def signed_headers(
    signer: Signer,
    agent: str,
    request_authority: str,
    created: int,
    expires: int,
    nonce: bytes,
    scheme: str = "https",
) -> dict[str, str]:
    """The three headers of a Web Bot Auth request to ``request_authority``
    over ``scheme``: ``Signature-Agent`` (``agent``: the origin of the key
    directory), ``Signature-Input`` and ``Signature``."""
    member = sf_string(agent)
    covered = (
        Component("@authority", request_authority),
        Component("@scheme", scheme.lower()),  # RFC 9421 2.2.4: lower case
        Component("signature-agent", member, (("key", LABEL),)),
    )
    params: tuple[Param, ...] = (
        ("created", created),
        ("expires", expires),
        ("keyid", signer.keyid),
        ("alg", ALGORITHM),
        ("nonce", base64.b64encode(nonce).decode("ascii")),
        ("tag", TAG),
    )
    base = signature_base(covered, params)
    signature = base64.b64encode(signer.sign(base.encode("ascii"))).decode("ascii")
    return {
        "Signature-Agent": f"{LABEL}={member}",
        "Signature-Input": f"{LABEL}={signature_params(covered, params)}",
        "Signature": f"{LABEL}=:{signature}:",
    }
