"""The download handler's cached hostname encoding keeps Scrapy's fallbacks."""

from __future__ import annotations

from scrapy.core.downloader._idna_patch import _install_twisted_idna_fallbacks
from twisted.internet import endpoints

from linkaudit.internals import cache_hostname_encoding as _cache_hostname_encoding


def test_cached_encoding_keeps_scrapys_fallbacks():
    _install_twisted_idna_fallbacks()
    _cache_hostname_encoding()
    wrapped = endpoints._idnaBytes
    _cache_hostname_encoding()  # a second crawler in the process
    assert endpoints._idnaBytes is wrapped
    assert wrapped("b\u00fccher.example") == b"xn--bcher-kva.example"
    assert wrapped("under_score.example") == b"under_score.example"  # Scrapy's fallback
    assert wrapped("127.0.0.1") == b"127.0.0.1"
    wrapped("127.0.0.1")
    assert wrapped.cache_info().hits >= 1
