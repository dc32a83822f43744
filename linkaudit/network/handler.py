"""The download handler for ``http`` and ``https`` (``DOWNLOAD_HANDLERS``):
Scrapy's HTTP/1.1 handler, minus two costs per connection.

- Twisted builds a ``HostnameEndpoint`` for every request, and each one
  encodes its hostname with the ``idna`` package (IDNA 2008 checks, label by
  label): about 3 % of an audit's CPU, for the same few hostnames over and
  over.  The encoding is cached.
- A host with one address is connected to directly
  (``linkaudit/network/endpoint.py``): a refused connection is reported at
  once, not at Twisted's next 0.3 s address-race tick.

Both are patches of Twisted's module attributes, installed when the handler
is created (``linkaudit/internals.py``).
"""

from __future__ import annotations

from scrapy.core.downloader.handlers.http11 import HTTP11DownloadHandler
from scrapy.crawler import Crawler

from linkaudit import internals


class HttpDownloadHandler(HTTP11DownloadHandler):
    """``http`` and ``https`` downloads (see ``DOWNLOAD_HANDLERS``)."""

    def __init__(self, crawler: Crawler):
        super().__init__(crawler)
        internals.cache_hostname_encoding()
        internals.connect_single_addresses_directly()
