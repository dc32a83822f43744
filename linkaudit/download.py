"""Scrapy's HTTP/1.1 download handler, minus one per-request cost.

Twisted builds a ``HostnameEndpoint`` for every request, and each one encodes
its hostname with the ``idna`` package (IDNA 2008 checks, label by label):
about 3 % of an audit's CPU, for the same few hostnames over and over.  The
handler below caches that encoding.  Scrapy already patches the same Twisted
function (``scrapy.core.downloader._idna_patch``) and installs its patch when
its handler is created, so ours wraps Scrapy's, after it.
"""

from __future__ import annotations

import functools

from scrapy.core.downloader.handlers.http11 import HTTP11DownloadHandler
from scrapy.crawler import Crawler
from twisted.internet import endpoints


def _cache_hostname_encoding() -> None:
    current = endpoints._idnaBytes
    if not hasattr(current, "cache_info"):  # not wrapped yet
        endpoints._idnaBytes = functools.lru_cache(maxsize=4096)(current)


class HttpDownloadHandler(HTTP11DownloadHandler):
    """``http`` and ``https`` downloads (see ``DOWNLOAD_HANDLERS``)."""

    def __init__(self, crawler: Crawler):
        super().__init__(crawler)
        _cache_hostname_encoding()
