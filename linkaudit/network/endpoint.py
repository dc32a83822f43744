"""A host with one address is connected to directly.

Twisted's ``HostnameEndpoint`` races a host's addresses ("happy eyeballs",
one new attempt every 0.3 s) and reports that every address failed only at
the next 0.3 s tick.  A host with one address and a closed port was refused
in microseconds but answered after 0.3 s: 100 such hosts took 5 s.  With one
address there is nothing to race; hosts with several keep Twisted's
algorithm.  (It reads the endpoint's private attributes through
``linkaudit/internals.py``, which installs it.)

A connection that is not made in time is the download timer's to end
(``linkaudit/network/handler.py``): that timer does not count the seconds
our own code held the event loop, Twisted's connect timer does, and a
server whose answer to connecting sat unread meanwhile would be taken for
one that never answered.  So Twisted's timer is a backstop, after the
longest the download timer can take (two timeouts).  A download cancelled
while the host's name is being resolved fails as one cancelled while
connecting (``ConnectingCancelledError``, as Twisted's own endpoint says):
either way no connection was made.
"""

from __future__ import annotations

from typing import Any

from twisted.internet import defer, endpoints, error
from twisted.internet.address import HostnameAddress, IPv4Address, IPv6Address
from twisted.internet.interfaces import IAddress, IHostResolution, IResolutionReceiver
from zope.interface import implementer

from linkaudit import internals


@implementer(IResolutionReceiver)
class _Addresses:
    """Collects a name resolution's addresses into a Deferred."""

    def __init__(self, host: str, port: int) -> None:
        self.addresses: list[IAddress] = []
        self.done: defer.Deferred[list[IAddress]] = defer.Deferred(self._cancel)
        self.host, self.port = host, port

    def _cancel(self, done: defer.Deferred[list[IAddress]]) -> None:
        # the lookup goes on (it cannot be stopped) and its end is ignored
        where = HostnameAddress(self.host.encode("utf-8", "backslashreplace"), self.port)
        done.errback(error.ConnectingCancelledError(where))

    def resolutionBegan(self, resolutionInProgress: IHostResolution) -> None:
        pass

    def addressResolved(self, address: IAddress) -> None:
        self.addresses.append(address)

    def resolutionComplete(self) -> None:
        if not self.done.called:  # not cancelled meanwhile
            self.done.callback(self.addresses)


class HostnameEndpoint(endpoints.HostnameEndpoint):
    """Twisted's endpoint, connecting straight to a host's only address."""

    def __init__(
        self,
        reactor: Any,
        host: str | bytes,
        port: int,
        timeout: float = 30,
        bindAddress: Any = None,
        attemptDelay: float | None = None,
    ) -> None:
        # Twisted's connect timer a backstop behind the download's (above)
        super().__init__(reactor, host, port, 2 * timeout + 1, bindAddress, attemptDelay)

    def connect(self, protocolFactory: Any) -> defer.Deferred[Any]:
        target = internals.endpoint_target(self)
        if target.bad_hostname:
            return super().connect(protocolFactory)
        receiver = _Addresses(target.host, target.port)
        resolver = internals.endpoint_resolver(self)
        resolver.resolveHostName(receiver, target.host, portNumber=target.port)

        def start(addresses: list[IAddress]) -> defer.Deferred[Any]:
            # none (Twisted says why), or a race to run; an address that is
            # not an IP one (none of Twisted's resolvers gives one) is Twisted's
            address = addresses[0] if len(addresses) == 1 else None
            if not isinstance(address, IPv4Address | IPv6Address):
                return super(HostnameEndpoint, self).connect(protocolFactory)
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
