"""A site behind a Web Bot Auth wall, on 127.0.0.1, for the signing tests.

The wall is an independent verifier: the PyPI package
``http-message-signatures`` checks each request's signature (RFC 9421),
with the key it finds as a verifier does (draft-meunier-webbotauth-httpsig-
protocol): the ``Signature-Agent`` member the signature covers names an
https origin, whose ``/.well-known/http-message-signatures-directory`` is
fetched (over TLS, the test's certificate trusted) and must be served as
``application/http-message-signatures-directory+json``; the key is the one
whose ``kid`` is the signature's ``keyid`` and whose thumbprint, computed
here from the JWK, is that ``keyid`` too.  Nothing of linkaudit is used.

The site answers 403 to a request whose signature does not verify
(missing, made with another key, expired, made for another authority or
scheme, not tagged ``web-bot-auth``, not covering ``@authority``,
``@scheme`` and its ``Signature-Agent`` member) and its route's answer to one that does; the
log keeps each request with what the wall decided.
"""

from __future__ import annotations

import base64
import datetime
import hashlib
import json
import ssl
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import http_sf
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from http_message_signatures import (
    HTTPMessageVerifier,
    InvalidSignature,
    MappingKeyResolver,
    algorithms,
)

DIRECTORY = "/.well-known/http-message-signatures-directory"
DIRECTORY_TYPE = "application/http-message-signatures-directory+json"


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def jwk_thumbprint(jwk: dict) -> str:
    """RFC 7638 for an OKP key (RFC 8037 A.3), written out again here."""
    members = json.dumps({k: jwk[k] for k in ("crv", "kty", "x")}, separators=(",", ":"))
    return _b64url(hashlib.sha256(members.encode()).digest())


@dataclass
class Seen:
    method: str
    path: str
    headers: dict[str, str]
    verdict: str  # "verified", or why not
    params: dict = field(default_factory=dict)  # the verified signature's parameters


@dataclass
class _Request:  # what the verifier reads of a request
    method: str
    url: str
    headers: dict[str, str]


class Wall:
    """Verifies Web Bot Auth signatures for the authority it guards."""

    def __init__(self, ca_file: str | None):
        self.context = ssl.create_default_context(cafile=ca_file) if ca_file else None
        self.directories: dict[str, dict] = {}  # origin -> JWKS, fetched once
        self.lock = threading.Lock()

    def keys_of(self, origin: str) -> dict[str, Ed25519PublicKey]:
        with self.lock:
            if origin not in self.directories:
                request = urllib.request.Request(
                    origin + DIRECTORY, headers={"Accept": DIRECTORY_TYPE}
                )
                with urllib.request.urlopen(request, context=self.context, timeout=5) as answer:
                    if answer.headers.get_content_type() != DIRECTORY_TYPE:
                        raise InvalidSignature("the key directory's media type")
                    self.directories[origin] = json.loads(answer.read())
        keys = {}
        for jwk in self.directories[origin]["keys"]:
            if jwk.get("kty") == "OKP" and jwk.get("crv") == "Ed25519":
                if jwk.get("kid", jwk_thumbprint(jwk)) == jwk_thumbprint(jwk):
                    raw = base64.urlsafe_b64decode(jwk["x"] + "==")
                    keys[jwk_thumbprint(jwk)] = Ed25519PublicKey.from_public_bytes(raw)
        return keys

    def verify(self, method: str, url: str, headers: dict[str, str]) -> tuple[str, dict]:
        try:
            inputs = http_sf.parse(headers.get("signature-input", "").encode(), tltype="dictionary")
            agents = http_sf.parse(headers.get("signature-agent", "").encode(), tltype="dictionary")
            if len(inputs) != 1:
                raise InvalidSignature("one signature expected")
            ((label, (covered, params)),) = inputs.items()
            if params.get("tag") != "web-bot-auth" or "expires" not in params:
                raise InvalidSignature("not a web-bot-auth signature with an expiry")
            member = agents[label][0]  # (value, parameters)
            if not member.startswith("https://"):
                raise InvalidSignature("Signature-Agent is not https")
            keys = self.keys_of(member)
            verifier = HTTPMessageVerifier(
                signature_algorithm=algorithms.ED25519,
                key_resolver=MappingKeyResolver(public_keys=keys, private_keys={}),
            )
            result = verifier.verify(
                _Request(method, url, headers),
                expect_tag="web-bot-auth",
                # the scheme too: a signature sent in clear is none for https
                require_components=("@authority", "@scheme", f'"signature-agent";key="{label}"'),
                max_age=datetime.timedelta(minutes=10),
            )
        except (InvalidSignature, KeyError, ValueError, OSError) as exc:
            return f"refused: {exc!r}", {}
        return "verified", dict(result[0].parameters)


class WalledSite:
    """Serves ``routes`` (path -> (status, headers, body)) on 127.0.0.1 to
    requests the wall lets through; 403 to the rest.  A status may be a
    function of (how many times the path was asked before, the method)."""

    def __init__(
        self,
        routes: dict[str, tuple[int, dict[str, str], bytes]],
        wall: Wall,
        pause: float = 0,
        host: str = "127.0.0.1",  # another loopback address is another host
        tls: tuple[str, str] | None = None,  # (certificate file, key file): https
    ):
        self.routes = routes
        self.wall = wall
        self.pause = pause  # seconds before each answer (a slow site)
        self.seen: list[Seen] = []
        self.counts: dict[str, int] = {}
        site = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def _answer(self) -> None:
                headers = {k.lower(): v for k, v in self.headers.items()}
                # the authority this server is: a signature made for another is refused
                url = f"{site.url}{self.path}"
                verdict, params = site.wall.verify(self.command, url, headers)
                with site.wall.lock:
                    site.seen.append(Seen(self.command, self.path, headers, verdict, params))
                    n = site.counts.get(self.path, 0)
                    site.counts[self.path] = n + 1
                status, extra, body = site.routes.get(self.path, (404, {}, b"not found"))
                if callable(status):  # HEAD answered otherwise, an answer that changes
                    status = status(n, self.command)
                if verdict != "verified":
                    status, extra, body = 403, {}, b"<h1>Forbidden: unverified bot</h1>"
                time.sleep(site.pause)
                self.send_response(status)
                self.send_header("Content-Type", extra.pop("Content-Type", "text/html"))
                for name, value in extra.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(body)

            do_GET = do_HEAD = _answer

        self.httpd = ThreadingHTTPServer((host, 0), Handler)
        self.httpd.daemon_threads = True
        scheme = "http"
        if tls is not None:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(*tls)
            self.httpd.socket = context.wrap_socket(self.httpd.socket, server_side=True)
            scheme = "https"
        self.url = f"{scheme}://{host}:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> WalledSite:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def asked(self, path: str) -> list[Seen]:
        with self.wall.lock:
            return [s for s in self.seen if s.path == path]
