"""https links with certificates a browser would refuse: broken by default,
accepted when the user says so (DOWNLOAD_VERIFY_CERTIFICATES=False)."""

from __future__ import annotations

import datetime
import ipaddress

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from tests.conftest import run_crawl
from tests.server import TestServer


def _certificate(directory, name: str, *, expired: bool) -> tuple[str, str]:
    """A self-signed certificate for 127.0.0.1, valid now or expired."""
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    start, end = (
        (now - datetime.timedelta(days=30), now - datetime.timedelta(days=1))
        if expired
        else (
            now - datetime.timedelta(days=1),
            now + datetime.timedelta(days=30),
        )
    )
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(start)
        .not_valid_after(end)
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .sign(key, hashes.SHA256())
    )
    cert_file, key_file = directory / f"{name}.pem", directory / f"{name}.key"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return str(cert_file), str(key_file)


@pytest.fixture
def tls_servers(tmp_path):
    certs = tmp_path / "certs"
    certs.mkdir()
    with (
        TestServer(tls=_certificate(certs, "self-signed", expired=False)) as self_signed,
        TestServer(tls=_certificate(certs, "expired", expired=True)) as expired,
    ):
        for srv in (self_signed, expired):
            srv.add("/page", "secure")
        yield self_signed, expired


def test_bad_certificates_are_broken_by_default(tmp_path, server, tls_servers):
    self_signed, expired = tls_servers
    server.add("/", f'<a href="{self_signed.url}/page">a</a>\n<a href="{expired.url}/page">b</a>')
    crawl = run_crawl(tmp_path, "-a", f"start={server.url}/")
    signed = crawl.url(f"{self_signed.url}/page")
    assert signed["outcome"] == "broken"
    # OpenSSL names no finer reason through Twisted than this
    assert signed["error"] == "TLS error: certificate verify failed", signed
    old = crawl.url(f"{expired.url}/page")
    assert old["outcome"] == "broken"
    assert old["error"].startswith("TLS error: "), old
    assert "certificate" in old["error"]
    # the handshake failed: nothing reached either server's HTTP layer
    assert self_signed.log == [] and expired.log == []
    assert "Traceback" not in crawl.stderr


def test_bad_certificates_can_be_accepted(tmp_path, server, tls_servers):
    self_signed, expired = tls_servers
    server.add("/", f'<a href="{self_signed.url}/page">a</a>\n<a href="{expired.url}/page">b</a>')
    crawl = run_crawl(
        tmp_path, "-a", f"start={server.url}/", settings={"DOWNLOAD_VERIFY_CERTIFICATES": "False"}
    )
    assert crawl.url(f"{self_signed.url}/page")["outcome"] == "ok"
    assert crawl.url(f"{expired.url}/page")["outcome"] == "ok"
