"""Host name resolution for an audit: Scrapy's caching resolver (IPv4 and
IPv6), plus what a link checker meets more than a crawler does, dead hosts.

- Names that cannot exist are answered at once, without a query: the
  ``invalid`` top-level domain (RFC 6761, section 6.4: "name resolution APIs
  and libraries SHOULD ... always return immediate negative responses") and
  ``onion`` (RFC 7686: not resolvable through DNS), and names DNS cannot
  carry (a label over 63 octets or empty, a name over 253: RFC 1035
  section 2.3.4).  The URL Standard lets such hosts through (browsers fail
  them at lookup); the system's resolver refuses them with a UnicodeError
  in a worker thread, which Twisted logs as a CRITICAL traceback while the
  request waits out its whole timeout.
- A name whose lookup found nothing is remembered for the run, so no other
  request (robots.txt, HEAD, the GET fallback) waits for the same answer
  again.  The host failure cache (``linkaudit/hosts/failures.py``)
  then fails the host's other URLs before they reach the downloader.

A lookup that does go to the network costs what the system's resolver
takes; it occupies one request slot, and the engine goes on with the rest.

Setting: ``TWISTED_DNS_RESOLVER = "linkaudit.network.resolver.AuditResolver"`` (the
default); ``DNSCACHE_ENABLED`` and ``DNSCACHE_SIZE`` work as in Scrapy.
"""

from __future__ import annotations

from collections.abc import Sequence

from scrapy.resolver import CachingHostnameResolver, HostResolution
from twisted.internet.base import ReactorBase
from twisted.internet.interfaces import (
    IAddress,
    IHostnameResolver,
    IHostResolution,
    IResolutionReceiver,
)
from zope.interface import implementer

from linkaudit.rules.offline import never_resolves  # (the offline rule leaves these out)

__all__ = ["AuditResolver", "never_resolves"]


@implementer(IResolutionReceiver)
class _FailureWatch:
    """Passes a resolution on, noting a name that resolved to nothing."""

    def __init__(self, receiver: IResolutionReceiver, name: str, failed: set[str]):
        self.receiver = receiver
        self.name = name
        self.failed = failed
        self.found = False

    def resolutionBegan(self, resolution: IHostResolution) -> None:
        self.receiver.resolutionBegan(resolution)

    def addressResolved(self, address: IAddress) -> None:
        self.found = True
        self.receiver.addressResolved(address)

    def resolutionComplete(self) -> None:
        if not self.found:
            self.failed.add(self.name)
        self.receiver.resolutionComplete()


@implementer(IHostnameResolver)
class AuditResolver(CachingHostnameResolver):
    def __init__(self, reactor: ReactorBase, cache_size: int):
        super().__init__(reactor, cache_size)
        self.failed: set[str] = set()

    def resolveHostName(
        self,
        resolutionReceiver: IResolutionReceiver,
        hostName: str,
        portNumber: int = 0,
        addressTypes: Sequence[type[IAddress]] | None = None,
        transportSemantics: str = "TCP",
    ) -> IHostResolution:
        name = hostName.lower()
        if name in self.failed or never_resolves(name):
            # no address: Twisted fails the connection with DNSLookupError
            resolution = HostResolution(hostName)
            resolutionReceiver.resolutionBegan(resolution)
            resolutionReceiver.resolutionComplete()
            return resolution
        watch = _FailureWatch(resolutionReceiver, name, self.failed)
        return super().resolveHostName(
            watch, hostName, portNumber, addressTypes, transportSemantics
        )
