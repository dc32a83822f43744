"""https links with certificates a browser would refuse: broken by default,
accepted when the user says so (DOWNLOAD_VERIFY_CERTIFICATES=False)."""

from __future__ import annotations

import pytest

from tests.conftest import run_crawl
from tests.helpers.served import certificate
from tests.server import TestServer


@pytest.fixture
def tls_servers(tmp_path):
    certs = tmp_path / "certs"
    certs.mkdir()
    with (
        TestServer(tls=certificate(certs, "self-signed", expired=False)) as self_signed,
        TestServer(tls=certificate(certs, "expired", expired=True)) as expired,
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
