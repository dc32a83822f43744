"""What the tests' servers serve (sitemaps, a huge page, certificates for
TLS), and a local build served (``linkaudit DIR``'s server) with requests
made to it by hand."""

from __future__ import annotations

import datetime
import http.client
import ipaddress
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

# -- a local build served (linkaudit/localbuild/directory.py) ----------------------------------
SERVE = """
import sys, time
from linkaudit.localbuild.directory import DirectorySite
with DirectorySite(sys.argv[1]) as site:
    print(site.url, flush=True)
    time.sleep(120)
"""


def request(
    url: str, method: str = "GET", read: int | None = None, headers: dict | None = None
) -> tuple[int, dict, bytes]:
    """One request (``headers`` may name another ``Host``); at most ``read``
    bytes of the body are read."""
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    try:
        conn.request(method, parts.path, headers=headers or {})
        answer = conn.getresponse()
        body = answer.read(read) if read is not None else answer.read()
        return answer.status, dict(answer.getheaders()), body
    finally:
        conn.close()


# -- what the tests' servers serve --------------------------------------------------------
def urlset(*locs: str) -> str:
    """A sitemap listing ``locs``."""
    rows = "\n".join(f"  <url>\n    <loc>{loc}</loc>\n  </url>" for loc in locs)
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n{rows}\n</urlset>\n'
    )


def many_links() -> Iterator[bytes]:
    """300,000 links, generated as they are sent (4.4 MB: under the 5 MiB page cap)."""
    yield b"<!doctype html><base href=/x/>\n<a href=/first>first</a>\n"
    for start in range(0, 300_000, 10_000):
        yield "".join(f"<a href={n}>" for n in range(start, start + 10_000)).encode()
    yield b"\n<a href=/last>last</a>\n"


def certificate(directory: Path, name: str, *, expired: bool) -> tuple[str, str]:
    """A self-signed certificate for 127.0.0.1, valid now or expired."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

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
