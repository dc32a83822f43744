"""A resolver for tests of an offline machine, switched on with
``-s TWISTED_DNS_RESOLVER=tests.offlineresolver.MappedResolver``: the names
of the table in the environment variable ``TEST_RESOLVER_HOSTS`` (JSON,
name -> IP address) resolve to their address, an IP literal to itself, and
every other name fails through the resolver's normal path (the resolution
begins and completes with no address, as Twisted's ``GAIResolver`` does on a
``gaierror``): the audit sees an ordinary failed lookup, and no query ever
leaves the machine."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from ipaddress import ip_address

from scrapy.resolver import HostResolution
from twisted.internet.interfaces import IAddress, IHostResolution, IResolutionReceiver

from linkaudit.network.resolver import AuditResolver

TABLE = "TEST_RESOLVER_HOSTS"


def _is_address(name: str) -> bool:
    try:
        ip_address(name.strip("[]"))
    except ValueError:
        return False
    return True


class MappedResolver(AuditResolver):
    def __init__(self, reactor, cache_size: int):  # type: ignore[no-untyped-def]
        super().__init__(reactor, cache_size)
        self.table: dict[str, str] = json.loads(os.environ.get(TABLE) or "{}")
        self.asked: list[str] = []  # (for a debugger: every name asked)

    def resolveHostName(
        self,
        resolutionReceiver: IResolutionReceiver,
        hostName: str,
        portNumber: int = 0,
        addressTypes: Sequence[type[IAddress]] | None = None,
        transportSemantics: str = "TCP",
    ) -> IHostResolution:
        name = hostName.lower().rstrip(".")
        self.asked.append(name)
        if name in self.table or _is_address(name):
            address = self.table.get(name, hostName)
            return super().resolveHostName(
                resolutionReceiver, address, portNumber, addressTypes, transportSemantics
            )
        resolutionReceiver.resolutionBegan(HostResolution(hostName))
        resolutionReceiver.resolutionComplete()
        return resolutionReceiver
