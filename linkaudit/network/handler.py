"""Scrapy's HTTP/1.1 download handler, minus two costs per connection.

- Twisted builds a ``HostnameEndpoint`` for every request, and each one
  encodes its hostname with the ``idna`` package (IDNA 2008 checks, label by
  label): about 3 % of an audit's CPU, for the same few hostnames over and
  over.  The encoding is cached.  (Scrapy already patches the same Twisted
  function, ``scrapy.core.downloader._idna_patch``, when its handler is
  created, so ours wraps Scrapy's, after it.)
- ``HostnameEndpoint`` races a host's addresses ("happy eyeballs", one new
  attempt every 0.3 s), and reports that every address failed only at the
  next 0.3 s tick.  A host with one address and a closed port was refused in
  microseconds but answered after 0.3 s: 100 such hosts took 5 s.  With one
  address there is nothing to race, so it is connected to directly; hosts
  with several addresses keep Twisted's algorithm.

Both are process-wide patches of Twisted's module attributes
(``twisted.internet.endpoints._idnaBytes``, ``twisted.web.client.
HostnameEndpoint``), checked against Twisted 26.10 (with Scrapy 2.19); they
are installed when the handler is created.
"""

from __future__ import annotations

import functools
from typing import Any

from scrapy.core.downloader.handlers.http11 import HTTP11DownloadHandler
from scrapy.crawler import Crawler
from twisted.internet import defer, endpoints
from twisted.internet.address import IPv6Address
from twisted.internet.interfaces import IAddress, IHostResolution, IResolutionReceiver
from twisted.web import client
from zope.interface import implementer


def _cache_hostname_encoding() -> None:
    current = endpoints._idnaBytes
    if not hasattr(current, "cache_info"):  # not wrapped yet
        endpoints._idnaBytes = functools.lru_cache(maxsize=4096)(current)


@implementer(IResolutionReceiver)
class _Addresses:
    """Collects a name resolution's addresses into a Deferred."""

    def __init__(self) -> None:
        self.addresses: list[IAddress] = []
        self.done: defer.Deferred[list[IAddress]] = defer.Deferred()

    def resolutionBegan(self, resolutionInProgress: IHostResolution) -> None:
        pass

    def addressResolved(self, address: IAddress) -> None:
        self.addresses.append(address)

    def resolutionComplete(self) -> None:
        self.done.callback(self.addresses)


class HostnameEndpoint(endpoints.HostnameEndpoint):
    """Twisted's endpoint, connecting straight to a host's only address."""

    def connect(self, protocolFactory: Any) -> defer.Deferred[Any]:
        if self._badHostname:
            return super().connect(protocolFactory)
        receiver = _Addresses()
        resolver = self._getNameResolverAndMaybeWarn(self._reactor)
        resolver.resolveHostName(receiver, self._hostText, portNumber=self._port)

        def start(addresses: list[IAddress]) -> defer.Deferred[Any]:
            if len(addresses) != 1:  # none (Twisted says why), or a race to run
                return super(HostnameEndpoint, self).connect(protocolFactory)
            (address,) = addresses
            kind = (
                endpoints.TCP6ClientEndpoint
                if isinstance(address, IPv6Address)
                else endpoints.TCP4ClientEndpoint
            )
            endpoint = kind(
                self._reactor, address.host, address.port, self._timeout, self._bindAddress
            )
            return endpoint.connect(protocolFactory)

        return receiver.done.addCallback(start)


def _connect_single_addresses_directly() -> None:
    if client.HostnameEndpoint is endpoints.HostnameEndpoint:
        client.HostnameEndpoint = HostnameEndpoint


class HttpDownloadHandler(HTTP11DownloadHandler):
    """``http`` and ``https`` downloads (see ``DOWNLOAD_HANDLERS``)."""

    def __init__(self, crawler: Crawler):
        super().__init__(crawler)
        _cache_hostname_encoding()
        _connect_single_addresses_directly()
