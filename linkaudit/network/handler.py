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

It also sends ``request_sent`` (``linkaudit/signals.py``) as each request
goes to the network: later than Scrapy's ``request_reached_downloader``,
which fires while the request may still wait in its slot's queue.
"""

from __future__ import annotations

from scrapy import Request
from scrapy.core.downloader.handlers.http11 import HTTP11DownloadHandler
from scrapy.crawler import Crawler
from scrapy.http import Response

from linkaudit import internals
from linkaudit.signals import request_sent


class HttpDownloadHandler(HTTP11DownloadHandler):
    """``http`` and ``https`` downloads (see ``DOWNLOAD_HANDLERS``)."""

    def __init__(self, crawler: Crawler):
        super().__init__(crawler)
        internals.cache_hostname_encoding()
        internals.connect_single_addresses_directly()

    async def download_request(self, request: Request) -> Response:
        self._crawler.signals.send_catch_log(request_sent, request=request)
        return await super().download_request(request)
