"""A host with one address is connected to directly.

Twisted's ``HostnameEndpoint`` races a host's addresses ("happy eyeballs",
one new attempt every 0.3 s) and reports that every address failed only at
the next 0.3 s tick.  A host with one address and a closed port was refused
in microseconds but answered after 0.3 s: 100 such hosts took 5 s.  With one
address there is nothing to race; hosts with several keep Twisted's
algorithm.  (It reads the endpoint's private attributes through
``linkaudit/internals.py``, which installs it.)
"""

from __future__ import annotations

from typing import Any

from twisted.internet import defer, endpoints
from twisted.internet.address import IPv6Address
from twisted.internet.interfaces import IAddress, IHostResolution, IResolutionReceiver
from zope.interface import implementer

from linkaudit import internals


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
        target = internals.endpoint_target(self)
        if target.bad_hostname:
            return super().connect(protocolFactory)
        receiver = _Addresses()
        resolver = internals.endpoint_resolver(self)
        resolver.resolveHostName(receiver, target.host, portNumber=target.port)

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
                target.reactor, address.host, address.port, target.timeout, target.bind_address
            )
            return endpoint.connect(protocolFactory)

        return receiver.done.addCallback(start)
