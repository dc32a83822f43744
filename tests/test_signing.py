"""Web Bot Auth: ``linkaudit keygen`` and ``--sign-key`` (rules/signatures.py,
middlewares/signing.py, command/keygen.py, config/signing.py).

The signature base and the signature are held to RFC 9421's own Ed25519
example (B.2.6) and to the Web Bot Auth draft's test vector, byte for byte,
with the RFC's test key.  A site on 127.0.0.1 behind a wall that verifies
signatures with an independent verifier (tests/helpers/botauth.py: the
``http-message-signatures`` package, the key fetched from the published
key directory over TLS) answers 403 to unsigned, wrongly signed, expired
and other-authority requests, and lets linkaudit's through: the audit
behind it is all ``ok``, and every request it sent (robots.txt, HEAD, the
GET after it, a redirect hop, a request asked again after a 503, a far
host's) carried a signature made for it.
"""

from __future__ import annotations

import base64
import json
import os
import stat
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.asymmetric.rsa import generate_private_key

from linkaudit.rules.signatures import (
    Component,
    Signer,
    authority,
    sf_string,
    signature_base,
    signed_headers,
    thumbprint,
)
from tests.conftest import Spawned, run_process, validate
from tests.helpers.botauth import DIRECTORY, DIRECTORY_TYPE, Wall, WalledSite, jwk_thumbprint
from tests.helpers.command import LINKAUDIT, refused, run
from tests.helpers.served import certificate
from tests.redisserver import RedisServer
from tests.server import Route, TestServer

DIRECTORY_FILE = DIRECTORY.rpartition("/")[2]

# RFC 9421 B.1.4: the test key test-key-ed25519
RFC_KEY = (
    b"-----BEGIN PRIVATE KEY-----\n"
    b"MC4CAQAwBQYDK2VwBCIEIJ+DYvh6SEqVTm50DFtMDoQikTmiCqirVv9mWG9qfSnF\n"
    b"-----END PRIVATE KEY-----\n"
)


def _rfc_key() -> Ed25519PrivateKey:
    key = serialization.load_pem_private_key(RFC_KEY, password=None)
    assert isinstance(key, Ed25519PrivateKey)
    return key


def _raw_public(key: Ed25519PrivateKey) -> bytes:
    return key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


# -- the test vectors --------------------------------------------------------------


def test_rfc_9421_ed25519_example_b26():
    """B.2.6: the signature base of the test request, and its signature."""
    covered = [
        Component("date", "Tue, 20 Apr 2021 02:07:55 GMT"),
        Component("@method", "POST"),
        Component("@path", "/foo"),
        Component("@authority", "example.com"),
        Component("content-type", "application/json"),
        Component("content-length", "18"),
    ]
    base = signature_base(covered, [("created", 1618884473), ("keyid", "test-key-ed25519")])
    assert base == (
        '"date": Tue, 20 Apr 2021 02:07:55 GMT\n'
        '"@method": POST\n'
        '"@path": /foo\n'
        '"@authority": example.com\n'
        '"content-type": application/json\n'
        '"content-length": 18\n'
        '"@signature-params": ("date" "@method" "@path" "@authority" "content-type" '
        '"content-length");created=1618884473;keyid="test-key-ed25519"'
    )
    signature = base64.b64encode(_rfc_key().sign(base.encode())).decode()
    assert signature == (
        "wqcAqbmYJ2ji2glfAMaRy4gruYYnx2nEFN2HN6jrnDnQCK1u02Gb04v9EDgwUPiu4A0w6vuQv5lIp5WPpBKRCw=="
    )


def test_web_bot_auth_draft_ed25519_vector():
    """draft-meunier-webbotauth-httpsig-protocol, "EdDSA Using Curve
    edwards25519": the keyid is the RFC key's thumbprint, and linkaudit's
    headers for those parameters are the draft's, signature included."""
    key = _rfc_key()
    assert thumbprint(_raw_public(key)) == "poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U"
    covered = [
        Component("@authority", "example.com"),
        Component(
            "signature-agent", sf_string("https://signature-agent.test"), (("key", "agent2"),)
        ),
    ]
    nonce = (
        "n9p433xm+NJ3ph3upfBIGmsuwHw387YV7Q/F+6BSpGCVjYCqQw6rznNA8PVVLySrAWsv0hQtFioQb6E1YsauiA=="
    )
    params = [
        ("created", 1735689600),
        ("keyid", "poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U"),
        ("alg", "ed25519"),
        ("expires", 4889289600),
        ("nonce", nonce),
        ("tag", "web-bot-auth"),
    ]
    base = signature_base(covered, params)
    assert base == (
        '"@authority": example.com\n'
        '"signature-agent";key="agent2": "https://signature-agent.test"\n'
        '"@signature-params": ("@authority" "signature-agent";key="agent2")'
        ';created=1735689600;keyid="poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U"'
        f';alg="ed25519";expires=4889289600;nonce="{nonce}";tag="web-bot-auth"'
    )
    assert base64.b64encode(key.sign(base.encode())).decode() == (
        "RdNFx5Bj6au3YgAMQL/RzmUlZE8QZLIaXGRpw985hWnwPfMxT228NMk6ehRS1PSl4e8PhbNZACSanGdhEwYCCg=="
    )
    # linkaudit's own headers: the member keyed by the signature's label
    signer = Signer("rfc.pem", key, thumbprint(_raw_public(key)))
    headers = signed_headers(signer, "https://signature-agent.test", "example.com", 1, 2, b"n")
    assert headers["Signature-Agent"] == 'sig1="https://signature-agent.test"'
    assert headers["Signature-Input"] == (
        'sig1=("@authority" "@scheme" "signature-agent";key="sig1");created=1;expires=2'
        ';keyid="poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U";alg="ed25519";nonce="bg==";'
        'tag="web-bot-auth"'
    )


def test_authority_is_the_host_in_lower_case_and_a_port_not_the_default():
    """RFC 9421 2.2.3 (RFC 9110 4.2.3): as the Host header names it."""
    assert authority("https", "Example.COM", 443) == "example.com"
    assert authority("http", "example.com", 80) == "example.com"
    assert authority("http", "example.com", 443) == "example.com:443"
    assert authority("https", "127.0.0.1", 8443) == "127.0.0.1:8443"
    assert authority("http", "::1", 8080) == "[::1]:8080"
    assert authority("https", "::1", None) == "[::1]"


# -- keygen --------------------------------------------------------------------------


def _keygen(tmp_path: Path) -> tuple[Path, Path, dict]:
    out = run(tmp_path, "keygen", "keys")
    assert out.returncode == 0, out.stderr
    key, directory = (
        tmp_path / "keys" / "linkaudit-key.pem",
        tmp_path / "keys" / DIRECTORY.rpartition("/")[2],
    )
    return key, directory, json.loads(directory.read_text())


def test_keygen_makes_a_private_key_and_the_directory_to_publish(tmp_path):
    key_file, directory_file, jwks = _keygen(tmp_path)
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    key = serialization.load_pem_private_key(key_file.read_bytes(), password=None)
    assert isinstance(key, Ed25519PrivateKey)
    (jwk,) = jwks["keys"]
    assert jwk["kty"] == "OKP" and jwk["crv"] == "Ed25519" and "d" not in jwk
    assert base64.urlsafe_b64decode(jwk["x"] + "==") == _raw_public(key)
    assert jwk["kid"] == jwk_thumbprint(jwk)  # RFC 7638, computed by the test
    out = run(tmp_path, "keygen", "keys")  # a key is never replaced
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert out.stderr.count("\n") == 1 and "exists already" in out.stderr
    assert key_file.read_bytes() == key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )


def test_keygen_makes_nothing_others_may_write_whatever_the_umask(tmp_path):
    """Under umask 000, the folders keygen creates (each of them) and the
    key directory to publish are writable by their owner alone; a folder
    that others may write to already is named in a warning."""

    def keygen(folder: str) -> subprocess.CompletedProcess:
        return run_process(f"umask 000; exec {LINKAUDIT} keygen {folder}", shell=True, cwd=tmp_path)

    out = keygen("a/b/keys")
    assert out.returncode == 0 and "warning" not in out.stderr, out.stderr
    modes = {
        path: stat.S_IMODE((tmp_path / path).stat().st_mode)
        for path in ("a", "a/b", "a/b/keys", "a/b/keys/linkaudit-key.pem")
    }
    modes["directory"] = stat.S_IMODE((tmp_path / "a/b/keys" / DIRECTORY_FILE).stat().st_mode)
    assert modes == {
        "a": 0o755, "a/b": 0o755, "a/b/keys": 0o755,
        "a/b/keys/linkaudit-key.pem": 0o600, "directory": 0o644,
    }  # fmt: skip
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared").chmod(0o777)
    out = keygen("shared")
    assert out.returncode == 0, out.stderr
    assert out.stderr == (
        "linkaudit keygen: warning: shared is writable by others: they could replace the key "
        "directory; keep the files in a folder only you can write to\n"
    )
    assert stat.S_IMODE((tmp_path / "shared" / DIRECTORY_FILE).stat().st_mode) == 0o644


# -- the wall ------------------------------------------------------------------------


@pytest.fixture
def published(tmp_path):
    """A key from keygen, its directory served over https (the signature
    agent), and the wall that trusts that server's certificate."""
    key_file, directory_file, _ = _keygen(tmp_path)
    certs = tmp_path / "certs"
    certs.mkdir()
    tls = certificate(certs, "agent", expired=False)
    body = directory_file.read_text()
    with TestServer({DIRECTORY: Route(body=body, content_type=DIRECTORY_TYPE)}, tls=tls) as agent:
        yield key_file, agent.url, Wall(ca_file=tls[0])


def _signing(key_file: Path, agent: str, *more: str) -> list[str]:
    """The options of a signed audit, at full speed."""
    return ["--sign-key", str(key_file), "--signature-agent", agent, "--delay", "0", *more]


# the sites of these tests are on plain http, and some far: both asked for
EVERY_REQUEST = ("--sign-far", "--sign-http")


def _busy(n: int, method: str) -> int:
    return 503 if n == 0 else 200  # asked again after its Retry-After


def _no_head(n: int, method: str) -> int:
    return 405 if method == "HEAD" else 200


def _far(wall: Wall) -> WalledSite:
    robots = (200, {"Content-Type": "text/plain"}, b"")
    return WalledSite({"/robots.txt": robots, "/elsewhere": (200, {}, b"far")}, wall)


def _near_routes(far_url: str) -> dict:
    page = b"<p>a page</p>"
    links = "".join(
        f'<a href="{href}">x</a>'
        for href in ("/page", "/moved", "/busy", "/nohead", f"{far_url}/elsewhere")
    )
    return {
        "/robots.txt": (200, {"Content-Type": "text/plain"}, b"User-agent: *\nAllow: /\n"),
        "/": (200, {}, links.encode()),
        "/page": (200, {}, page),
        "/moved": (301, {"Location": "/page2"}, b""),
        "/page2": (200, {}, page),
        "/busy": (_busy, {"Retry-After": "1"}, page),
        "/nohead": (_no_head, {}, page),
    }


def test_a_walled_site_lets_the_signed_audit_through(tmp_path, published):
    key_file, agent, wall = published
    with _far(wall) as far, WalledSite(_near_routes(far.url), wall) as near:
        started = int(time.time())
        signing = _signing(key_file, agent, *EVERY_REQUEST)
        out = run(tmp_path, f"{near.url}/", *signing, "--report", "r.json")
        assert out.returncode == 0, out.stderr
        report = json.loads((tmp_path / "r.json").read_text())
        validate(report)
        outcomes = {u["url"]: u["outcome"] for u in report["urls"]}
        assert set(outcomes.values()) == {"ok", "redirect"}, outcomes
        assert outcomes[f"{near.url}/moved"] == "redirect"
        assert outcomes[f"{near.url}/page2"] == outcomes[f"{far.url}/elsewhere"] == "ok"
        seen = near.seen + far.seen
        assert seen and all(s.verdict == "verified" for s in seen), [
            (s.method, s.path, s.verdict) for s in seen if s.verdict != "verified"
        ]
        # each request signed on its own: robots.txt, HEAD then GET, a
        # redirect hop, the request asked again, the far host's
        asked = [(s.method, s.path) for s in near.seen]
        assert ("GET", "/robots.txt") in asked and ("GET", "/page2") in asked
        assert [s.method for s in near.asked("/nohead")] == ["HEAD", "GET"]
        # a 503 with Retry-After, the HEAD asked again, then the page's GET
        assert [s.method for s in near.asked("/busy")] == ["HEAD", "HEAD", "GET"]
        assert [s.path for s in far.seen] == ["/robots.txt", "/elsewhere"]
        nonces = [s.params["nonce"] for s in seen]
        assert len(set(nonces)) == len(nonces)
        for s in seen:  # short-lived, made now
            assert started - 1 <= s.params["created"] <= time.time()
            assert s.params["created"] < s.params["expires"] <= s.params["created"] + 120
        # linkaudit's signature for one authority is refused by another, and
        # one sent in clear (http) by the same authority over https
        replayed = dict(near.asked("/page")[-1].headers)
        assert replayed["signature-input"].startswith('sig1=("@authority" "@scheme" ')
        assert _status(f"{near.url}/page", replayed) == 200
        assert _status(f"{far.url}/elsewhere", replayed) == 403
        assert far.seen[-1].verdict.startswith("refused")
        https = near.url.replace("http://", "https://")
        verdict, _ = wall.verify("GET", f"{https}/page", replayed)
        assert verdict.startswith("refused"), verdict
    key_text = key_file.read_text()
    secret = key_text.split("-----")[2].strip()
    assert secret not in out.stdout + out.stderr + (tmp_path / "r.json").read_text()
    assert "readable by other users" not in out.stderr


def _status(url: str, headers: dict[str, str]) -> int:
    sent = {k: v for k, v in headers.items() if k not in ("host", "accept-encoding")}
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=sent), timeout=10) as r:
            return r.status
    except urllib.error.HTTPError as exc:
        return exc.code


def test_the_wall_refuses_what_is_not_a_fresh_signature_made_for_it(tmp_path, published):
    key_file, agent, wall = published
    key = serialization.load_pem_private_key(key_file.read_bytes(), password=None)
    signer = Signer(str(key_file), key, thumbprint(_raw_public(key)))
    impostor = Signer("other", Ed25519PrivateKey.generate(), signer.keyid)
    with WalledSite({"/": (200, {}, b"in")}, wall) as site:
        authority = site.url.split("//")[1]
        now = int(time.time())

        def signed(
            who: Signer, where: str, created: int, expires: int, scheme: str = "http"
        ) -> dict[str, str]:
            return signed_headers(who, agent, where, created, expires, os.urandom(64), scheme)

        assert _status(f"{site.url}/", signed(signer, authority, now, now + 60)) == 200
        assert _status(f"{site.url}/", {}) == 403  # unsigned
        assert _status(f"{site.url}/", signed(impostor, authority, now, now + 60)) == 403
        assert _status(f"{site.url}/", signed(signer, authority, now - 120, now - 60)) == 403
        other = "127.0.0.1:1"  # made for another authority
        assert _status(f"{site.url}/", signed(signer, other, now, now + 60)) == 403
        # made for https: no signature for this plain http site
        assert _status(f"{site.url}/", signed(signer, authority, now, now + 60, "https")) == 403
        assert [s.verdict == "verified" for s in site.seen] == [True] + [False] * 5
        # and an audit that does not sign is kept out: its links broken
        out = run(tmp_path, f"{site.url}/", "--delay", "0", "--report", "r.json")
        assert out.returncode == 1, out.stderr
        (entry,) = json.loads((tmp_path / "r.json").read_text())["urls"]
        assert entry["status"] == 403 and entry["outcome"] == "broken"


_SIGNATURE = ("Signature", "Signature-Input", "Signature-Agent")


def test_only_the_sites_own_hosts_over_https_are_signed_unless_asked(tmp_path, published):
    """By default the site's own hosts over https are signed (robots.txt,
    HEAD, GET, a redirect hop on the site), and nothing else: not a far
    host over https, not one over plain http, not where the site's redirect
    leads elsewhere, nor their robots.txt; a signature made for https is
    refused over plain http (it covers the scheme).  A site on plain http is
    not signed without --sign-http, and says so."""
    key_file, agent, wall = published
    certs = tmp_path / "site-certs"
    certs.mkdir()
    tls = certificate(certs, "site", expired=False)
    with (
        TestServer(tls=tls) as far_tls,
        TestServer() as far_plain,
        WalledSite({}, wall, tls=tls) as near,
    ):
        far_tls.add("/x", "far")
        far_tls.add("/landing", "landing")
        far_plain.add("/y", "far")
        links = ["/page", "/moved", "/out", f"{far_tls.url}/x", f"{far_plain.url}/y"]
        near.routes.update(
            {
                "/robots.txt": (200, {"Content-Type": "text/plain"}, b""),
                "/": (200, {}, "".join(f'<a href="{u}">x</a>' for u in links).encode()),
                "/page": (200, {}, b"<p>page</p>"),
                "/moved": (301, {"Location": "/page"}, b""),
                "/out": (301, {"Location": f"{far_tls.url}/landing"}, b""),
            }
        )
        signing = _signing(key_file, agent, "--insecure")
        out = run(tmp_path, f"{near.url}/", *signing, "--report", "r.json", "-v")
        assert out.returncode == 0, out.stderr[-3000:]
        report = json.loads((tmp_path / "r.json").read_text())
        assert {u["outcome"] for u in report["urls"]} == {"ok", "redirect"}
        assert near.seen and all(s.verdict == "verified" for s in near.seen), near.seen
        asked = {(s.method, s.path) for s in near.seen}
        assert {("GET", "/robots.txt"), ("HEAD", "/page"), ("HEAD", "/moved")} <= asked
        for far in (far_tls, far_plain):
            assert far.log and not [h for h in far.log for n in _SIGNATURE if n in h.headers]
        assert "over https: key" in out.stderr and "the site's own hosts (127.0.0.1:" in out.stderr
        # the scheme is covered: a signature made for https is none over http
        made = dict(near.asked("/page")[-1].headers)
        assert wall.verify("GET", f"{near.url}/page", made)[0] == "verified"
        plain = near.url.replace("https://", "http://")
        assert wall.verify("GET", f"{plain}/page", made)[0].startswith("refused")
    with WalledSite({"/": (200, {}, b"<p>in</p>")}, wall) as plain_site:
        out = run(tmp_path, f"{plain_site.url}/", *_signing(key_file, agent), "--report", "p.json")
        assert out.returncode == 1  # kept out: nothing was signed
        assert [s.headers.get("signature") for s in plain_site.seen] == [None] * len(
            plain_site.seen
        )
        warned = [line for line in out.stderr.splitlines() if "plain http" in line]
        assert len(warned) == 1 and "--sign-http" in warned[0], out.stderr


# -- the key file --------------------------------------------------------------------


def _bad_keys(tmp_path: Path) -> dict[str, Path]:
    files = {}
    garbage = tmp_path / "garbage.pem"
    garbage.write_text(
        "-----BEGIN PRIVATE KEY-----\nc2VjcmV0LWJ1dC1ub3QtYS1rZXk=\n-----END PRIVATE KEY-----\n"
    )
    files["garbage"] = garbage
    rsa = tmp_path / "rsa.pem"
    rsa.write_bytes(
        generate_private_key(65537, 2048).private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    files["rsa"] = rsa
    locked = tmp_path / "locked.pem"
    locked.write_bytes(
        Ed25519PrivateKey.generate().private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.BestAvailableEncryption(b"pass"),
        )
    )
    files["encrypted"] = locked
    files["missing"] = tmp_path / "nosuch.pem"
    files["directory"] = tmp_path
    return files


def test_a_bad_key_file_is_one_line_and_exit_2(tmp_path, server):
    server.add("/", "<p>hi</p>")
    for what, path in _bad_keys(tmp_path).items():
        out = run(
            tmp_path,
            f"{server.url}/",
            "--sign-key",
            str(path),
            "--signature-agent",
            "https://bot.example",
        )
        line = refused(out, "sign_key: ")
        assert str(path) in line, (what, line)
        if path.is_file():  # what the file holds is never shown
            body = path.read_text().split("-----")[2].strip()
            assert body[:20] not in out.stderr, what
    assert not server.log  # nothing was requested


def test_signing_needs_an_https_origin_as_its_agent(tmp_path, server):
    key_file, _, _ = _keygen(tmp_path)
    out = run(tmp_path, f"{server.url}/", "--sign-key", str(key_file))
    refused(out, "sign_key: needs --signature-agent URL")
    out = run(tmp_path, f"{server.url}/", "--signature-agent", "https://bot.example")
    refused(out, "signature_agent: needs --sign-key PATH")  # nothing would be signed
    for agent in ("http://bot.example", "https://bot.example/keys", "https://bot.example/?a"):
        out = run(
            tmp_path, f"{server.url}/", "--sign-key", str(key_file), "--signature-agent", agent
        )
        refused(out, "signature_agent: ")
    assert not server.log


def test_a_key_others_can_read_is_warned_of_and_never_shown(tmp_path, server):
    server.add("/", "<p>hi</p>")
    key_file, _, _ = _keygen(tmp_path)
    secret = key_file.read_text().split("-----")[2].strip()
    signing = _signing(key_file, "https://bot.example", "--sign-http")
    args = [f"{server.url}/", *signing, "--report", "r.json"]
    config = run(tmp_path, *args, "--print-config")
    assert config.returncode == 0 and secret not in config.stdout
    key_file.chmod(0o644)
    out = run(tmp_path, *args, "-v")
    assert out.returncode == 0, out.stderr
    warned = [line for line in out.stderr.splitlines() if "readable by other users" in line]
    assert len(warned) == 1 and str(key_file) in warned[0], out.stderr
    assert secret not in out.stdout + out.stderr + (tmp_path / "r.json").read_text()
    assert server.log  # signed as it was sent (no wall here)
    for hit in server.log:
        assert hit.headers["Signature-Agent"] == 'sig1="https://bot.example"'
        assert 'tag="web-bot-auth"' in hit.headers["Signature-Input"]


# -- a shared audit ------------------------------------------------------------------


def test_every_worker_of_a_shared_audit_signs(tmp_path, published):
    """Two workers on one audit (Redis): every request either sends, on
    either host, is signed for it; the audit behind the wall is all ok."""
    key_file, agent, wall = published
    pages = {f"/p{i}": (200, {}, b"<p>page</p>") for i in range(30)}
    robots = {"/robots.txt": (200, {"Content-Type": "text/plain"}, b"")}
    far_pages = {f"/f{i}": (200, {}, b"far") for i in range(10)}
    with (
        RedisServer(tmp_path / "redis") as redis,
        # another host (each is one worker's at a time), slow enough for the
        # second worker to join before the first is done
        WalledSite({**robots, **far_pages}, wall, pause=0.2, host="127.0.0.2") as far,
        WalledSite({**robots, **pages}, wall, pause=0.2) as near,
    ):
        links = [f"/p{i}" for i in range(30)] + [f"{far.url}/f{i}" for i in range(10)]
        near.routes["/"] = (200, {}, "".join(f'<a href="{u}">x</a>' for u in links).encode())
        workers = []
        for i in range(2):
            cmd = [
                LINKAUDIT,
                f"{near.url}/",
                *_signing(key_file, agent, *EVERY_REQUEST),
                "--redis",
                redis.url,
                "--audit",
                "walled",
                "--report",
                str(tmp_path / f"w{i}.json"),
                "--user-agent",  # which worker sent a request
                f"linkaudit-worker-{i}",
            ]
            workers.append(Spawned(cmd))
        codes = [w.wait(timeout=90) for w in workers]
        assert codes == [0, 0], [w.stderr[-1500:] for w in workers]
        (written,) = [p for p in tmp_path.glob("w*.json")]
        report = json.loads(written.read_text())
        validate(report)
        assert report["summary"]["ok"] == report["summary"]["urls"] == 41, report["summary"]
        seen = near.seen + far.seen
        assert all(s.verdict == "verified" for s in seen), [s.verdict for s in seen]
        senders = {s.headers["user-agent"] for s in seen}
        assert senders == {"linkaudit-worker-0", "linkaudit-worker-1"}, senders
