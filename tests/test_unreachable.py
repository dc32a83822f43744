"""A server that cannot be reached at all against one that is only slow.

A server whose packets are dropped never accepts a connection: a visitor's
browser gives up on it, and its links are dead.  A server that accepts the
connection and then answers too slowly is alive, and RFC 9309 forbids
crawling a host whose robots.txt did not answer.  Both used to be one
timeout, and a page full of links to a dead server passed the audit
(``unchecked``, "robots.txt ... did not answer").  Real servers on
127.0.0.1: a port whose accept queue is full drops the SYNs
(``tests/rawserver.py``, ``DroppingPort``), and one that accepts and never
answers."""

from __future__ import annotations

import errno
import json
import os
import time

import pytest
from scrapy.exceptions import DownloadTimeoutError
from twisted.internet import error, task
from twisted.internet.interfaces import IHostnameResolver, IReactorPluggableNameResolver
from zope.interface import directlyProvides, implementer

from linkaudit.exceptions import ConnectTimedOut, HostUnreachable
from linkaudit.network.endpoint import HostnameEndpoint
from linkaudit.network.failures import (
    describe_failure,
    is_network_failure,
    never_connected,
    no_route,
)
from tests.conftest import check_no_fault, validate
from tests.helpers.command import run
from tests.rawserver import DroppingPort, RawServer, silent

TIMEOUT = 1  # DOWNLOAD_TIMEOUT of these audits
BOUND = 60


def audit(tmp_path, *args: str) -> tuple[dict, int, float]:
    """``linkaudit ARGS``: its report, exit code and seconds."""
    report = tmp_path / "report.json"
    started = time.monotonic()
    out = run(
        tmp_path,
        *args,
        "--delay",
        "0",
        "--report",
        str(report),
        "-s",
        f"DOWNLOAD_TIMEOUT={TIMEOUT}",
        timeout=BOUND,
    )
    elapsed = time.monotonic() - started
    data = json.loads(report.read_text())
    validate(data)
    check_no_fault(out.stdout, out.stderr, report=data)
    return data, out.returncode, elapsed


def outcomes(data: dict, prefix: str) -> dict[str, tuple[str, str | None]]:
    return {
        u["url"].removeprefix(prefix): (u["outcome"], u["error"])
        for u in data["urls"]
        if u["url"].startswith(prefix + "/")
    }


@pytest.mark.parametrize("obey", [True, False], ids=["robots.txt", "ROBOTSTXT_OBEY=False"])
def test_a_far_server_that_never_accepts_a_connection_fails_its_links(tmp_path, server, obey):
    """Its links are ``broken``, "Could not connect", and fail the audit
    (exit 1), whether its robots.txt is asked first or not; a slow server's
    robots.txt leaves its links ``unchecked`` as before, and without
    robots.txt they are slow links, ``Timed out``."""
    with DroppingPort() as dead, RawServer(silent, robots=False) as slow:
        links = [f"{dead.url}/a", f"{dead.url}/b", f"{slow.url}/c", f"{slow.url}/d", "/fine"]
        server.add("/", "".join(f'<a href="{link}">x</a>' for link in links))
        server.add("/fine", "fine")
        args = [] if obey else ["-s", "ROBOTSTXT_OBEY=False"]
        data, code, elapsed = audit(tmp_path, f"{server.url}/", *args)
    could_not = ("broken", f"Could not connect within {TIMEOUT} s")
    assert outcomes(data, dead.url) == {"/a": could_not, "/b": could_not}
    if obey:
        # the server accepted the connection: alive, and not to be crawled
        unanswered = (
            "unchecked",
            f"robots.txt of 127.0.0.1:{slow.port} did not answer within {TIMEOUT} s "
            "(RFC 9309: an unreachable robots.txt means no crawling)",
        )
        assert outcomes(data, slow.url) == {"/c": unanswered, "/d": unanswered}
        assert slow.requests == [("GET", "/robots.txt")]
    else:
        timed_out = ("broken", f"Timed out after {TIMEOUT} s")
        assert outcomes(data, slow.url) == {"/c": timed_out, "/d": timed_out}
    assert outcomes(data, server.url) == {"/": ("ok", None), "/fine": ("ok", None)}
    assert code == 1, data["summary"]
    # one connection's timeout per dead host (robots.txt's, or the first
    # link's and its retry), the other links failed at once
    assert elapsed < 4 * TIMEOUT + 15


def test_a_site_whose_server_never_accepts_a_connection_fails_the_audit(tmp_path):
    """The near case: a start URL on a server that drops every connection
    is ``broken`` (exit 1); one on a server that accepts and never answers
    its robots.txt stays ``unchecked``."""
    with DroppingPort() as dead, RawServer(silent, robots=False) as slow:
        data, code, _ = audit(tmp_path, f"{dead.url}/", f"{slow.url}/")
    assert outcomes(data, dead.url) == {"/": ("broken", f"Could not connect within {TIMEOUT} s")}
    assert outcomes(data, slow.url)["/"][0] == "unchecked"
    assert slow.requests == [("GET", "/robots.txt")]
    assert code == 1 and data["summary"]["broken"] == 1, data["summary"]


@implementer(IHostnameResolver)
class _NeverResolves:
    """A name resolver whose lookups never end (until told to)."""

    def __init__(self) -> None:
        self.receivers: list = []

    def resolveHostName(self, receiver, hostName, portNumber=0, *args, **kwargs):
        self.receivers.append(receiver)
        return None


def test_a_download_cancelled_while_the_name_is_resolved_never_connected():
    """A lookup that does not end within the download timeout is a server
    that cannot be reached: the cancel says "while connecting", as Twisted's
    own endpoint says it, and the lookup's late end is ignored."""
    clock = task.Clock()
    clock.nameResolver = _NeverResolves()
    directlyProvides(clock, IReactorPluggableNameResolver)
    endpoint = HostnameEndpoint(clock, b"dead.example", 80, timeout=TIMEOUT)
    connecting = endpoint.connect(None)
    failures: list = []
    connecting.addErrback(failures.append)
    connecting.cancel()
    assert failures and failures[0].check(error.ConnectingCancelledError)
    (receiver,) = clock.nameResolver.receivers
    receiver.resolutionComplete()  # no AlreadyCalledError


def test_the_words_of_a_server_that_cannot_be_reached():
    """What the link says, the host failure cache's repeat of it included;
    a host the system has no route to (``EHOSTUNREACH``: a neighbour that
    never answers ARP, an ICMP "host unreachable") is not a fault of ours
    nor an odd Twisted message."""
    never = ConnectTimedOut("No connection to http://h/ within 15 s")
    assert describe_failure(never, host="h", timeout=15) == "Could not connect within 15 s"
    repeated = HostUnreachable(str(never))
    repeated.__cause__ = never
    assert describe_failure(repeated, host="h", timeout=15) == "Could not connect within 15 s"
    assert never_connected(repeated) and not never_connected(DownloadTimeoutError())
    for number in (errno.EHOSTUNREACH, errno.ENETUNREACH, errno.EHOSTDOWN):
        unreachable = error.getConnectError((number, os.strerror(number)))
        assert no_route(unreachable) and is_network_failure(unreachable)
        assert describe_failure(unreachable, host="h", timeout=15) == "No route to host"
    assert not no_route(error.ConnectionRefusedError())
