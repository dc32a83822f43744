"""Servers on 127.0.0.1 that play notification targets (--notify): one
HTTP server whose paths play Slack, Teams, Discord and a generic webhook
that verifies the HMAC signature, each answering as the service does and
refusing what the service refuses; answers on demand (a 500 then a 200, a
429 with Retry-After, a slow answer); and an SMTP server (aiosmtpd) with
STARTTLS and AUTH LOGIN/PLAIN.  Every request and mail is recorded."""

from __future__ import annotations

import hashlib
import hmac
import json
import socket
import ssl
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

SECRET = "It's a Secret to Everybody"


@dataclass
class Delivery:
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes
    status: int = 0  # what was answered

    def json(self) -> dict:
        return json.loads(self.body)


@dataclass
class Answer:
    status: int
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0


class Hooks:
    """``/slack/...``, ``/teams/...``, ``/discord/...``, ``/webhook/...``:
    each checks the message as its service would; ``script[path]``: answers
    given first, one a request, before the service's own."""

    def __init__(self, secret: str = SECRET):
        self.secret = secret.encode()
        self.deliveries: list[Delivery] = []
        self.script: dict[str, list[Answer]] = {}
        self.lock = threading.Lock()
        hooks = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                parts = urlsplit(self.path)
                got = Delivery(parts.path, parse_qs(parts.query), dict(self.headers), body)
                with hooks.lock:
                    hooks.deliveries.append(got)
                    scripted = hooks.script.get(parts.path)
                    answer = scripted.pop(0) if scripted else None
                if answer is None:
                    answer = hooks.judge(got)
                time.sleep(answer.delay)
                got.status = answer.status
                try:
                    self.send_response(answer.status)
                    for name, value in answer.headers.items():
                        self.send_header(name, value)
                    self.send_header("Content-Length", str(len(answer.body)))
                    self.end_headers()
                    self.wfile.write(answer.body)
                except OSError:  # the client gave up (a slow answer)
                    pass

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def to(self, prefix: str) -> list[Delivery]:
        """The deliveries to the paths under ``prefix`` that were accepted."""
        return [d for d in self.deliveries if d.path.startswith(prefix) and d.status < 300]

    def judge(self, got: Delivery) -> Answer:
        try:
            payload = json.loads(got.body)
        except ValueError:
            return Answer(400, b"invalid_payload")
        if got.path.startswith("/slack/"):
            return _slack(payload)
        if got.path.startswith("/teams/"):
            return _teams(payload, len(got.body))
        if got.path.startswith("/discord/"):
            return _discord(payload, got.query)
        if got.path.startswith("/webhook/"):
            want = "sha256=" + hmac.new(self.secret, got.body, hashlib.sha256).hexdigest()
            signed = got.headers.get("X-Hub-Signature-256", "")
            if not hmac.compare_digest(signed, want):
                return Answer(401, b"bad signature")
            return Answer(204)
        return Answer(404)

    def __enter__(self) -> Hooks:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


def _slack(payload: dict) -> Answer:
    """Slack's incoming webhook: 200 ``ok``; 400 ``invalid_blocks`` over
    its limits (50 blocks, 3,000 a section, 150 a header)."""
    blocks = payload.get("blocks", [])
    if not payload.get("text") or len(blocks) > 50:
        return Answer(400, b"invalid_blocks")
    for block in blocks:
        text = block.get("text", {}).get("text", "")
        limit = 150 if block["type"] == "header" else 3000
        if len(text) > limit:
            return Answer(400, b"invalid_blocks")
    return Answer(200, b"ok", {"Content-Type": "text/plain"})


def _teams(payload: dict, size: int) -> Answer:
    """A Workflows trigger: 202 and no body; 413 past 28 KB."""
    if size > 28 * 1024:
        return Answer(413)
    card = payload["attachments"][0]
    if payload.get("type") != "message" or card["content"]["type"] != "AdaptiveCard":
        return Answer(400)
    return Answer(202)


def _discord(payload: dict, query: dict) -> Answer:
    """Discord: 400 past its embed limits; 200 with the message when
    ``wait=true``, 204 otherwise."""
    embeds = payload.get("embeds", [])
    total = 0
    for embed in embeds:
        fields = embed.get("fields", [])
        if len(fields) > 25 or len(embed.get("title", "")) > 256:
            return Answer(400, b'{"code": 50035, "message": "Invalid Form Body"}')
        if len(embed.get("description", "")) > 4096:
            return Answer(400, b'{"code": 50035, "message": "Invalid Form Body"}')
        for f in fields:
            if len(f["name"]) > 256 or len(f["value"]) > 1024:
                return Answer(400, b'{"code": 50035, "message": "Invalid Form Body"}')
        total += len(embed.get("title", "")) + len(embed.get("description", ""))
        total += sum(len(f["name"]) + len(f["value"]) for f in fields)
        total += len(embed.get("footer", {}).get("text", ""))
    if total > 6000 or len(embeds) > 10:
        return Answer(400, b'{"code": 50035, "message": "Invalid Form Body"}')
    if query.get("wait") == ["true"]:
        return Answer(200, b'{"id": "1"}', {"Content-Type": "application/json"})
    return Answer(204)


# -- SMTP ------------------------------------------------------------------------------
@dataclass
class Mail:
    sender: str
    recipients: list[str]
    content: bytes
    tls: bool
    login: bytes | None  # the user that logged in (None: no login)


class MailServer:
    """aiosmtpd on 127.0.0.1: STARTTLS offered (with ``certificate``),
    AUTH LOGIN and PLAIN after it for ``user``:``password``, required when
    ``user`` is given."""

    def __init__(
        self,
        certificate: tuple[str, str] | None,
        user: str | None = None,
        password: str = "",
    ):
        from aiosmtpd.controller import Controller
        from aiosmtpd.smtp import AuthResult, LoginPassword

        self.mails: list[Mail] = []
        self.logins: list[tuple[str, bool]] = []  # (mechanism, accepted)
        lock = threading.Lock()
        server = self

        class Recorder:
            async def handle_DATA(self, smtp, session, envelope):  # noqa: N802
                login = session.auth_data.login if session.authenticated else None
                with lock:
                    server.mails.append(
                        Mail(
                            envelope.mail_from,
                            list(envelope.rcpt_tos),
                            envelope.content,
                            session.ssl is not None,
                            login,
                        )
                    )
                return "250 Message accepted for delivery"

        def authenticator(smtp, session, envelope, mechanism, auth_data):
            ok = isinstance(auth_data, LoginPassword) and (
                auth_data.login,
                auth_data.password,
            ) == ((user or "").encode(), password.encode())
            with lock:
                server.logins.append((mechanism, ok))
            return AuthResult(success=ok, handled=False, auth_data=auth_data if ok else None)

        tls = None
        if certificate is not None:
            tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
            tls.load_cert_chain(*certificate)
        with socket.socket() as s:  # aiosmtpd cannot take port 0
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.controller = Controller(
            Recorder(),
            hostname="127.0.0.1",
            port=self.port,
            server_hostname="smtp.test",
            tls_context=tls,
            require_starttls=False,
            authenticator=authenticator if user else None,
            auth_required=bool(user),
            auth_require_tls=tls is not None,
            ready_timeout=20,
        )

    def __enter__(self) -> MailServer:
        self.controller.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.controller.stop()


def ca_file(directory: Path) -> tuple[str, str]:
    """A certificate for 127.0.0.1 and its key (the client trusts it
    through ``SSL_CERT_FILE``)."""
    from tests.helpers.served import certificate

    return certificate(directory, "smtp", expired=False)
