"""What a rendered page's browser may reach: the audit's scope and rules,
applied to every request its scripts make, before anything is sent.

A page's scripts run with the browser's reach, not the audit's: unchecked,
they would request what ``--exclude`` and ``--skip-far`` keep out, read a
service of the machine the audit runs on that nobody links to (another port
of 127.0.0.1, a cloud's metadata address), send what they read to a third
host, ``POST`` it, or open a WebSocket to it.  So each request the page
makes (``page.py`` hands over those of the kinds a page needs to run) is
asked, in this order, and refused at the first no (``render.refused``):

1. the method: ``GET`` or ``HEAD`` (a WebSocket's handshake is a ``GET``),
   with no body: a render reads, it never sends;
2. the audit's own rules for a URL (``rules/judge.py``): ``--exclude``,
   ``--skip-far``, a password in the URL, the trap guards, the length bound.
   ``--include`` is not applied: it chooses which links are checked, not
   what a page of the site needs to run, and a URL it names still wins over
   ``--exclude``, as for links;
3. the address: a host on a public address is allowed.  A host whose
   address (every address its name resolves to, looked up here: a name that
   resolves to 127.0.0.1 is a loopback address) is loopback, link-local or
   private is allowed only when the audited site itself is on an address of
   that kind (a site served on 127.0.0.1 in CI and its other local hosts,
   an intranet and its network), and never on another port of the site's
   own address: that is another program of the machine that serves the
   site (in CI, the runner's services: a page's cross-origin read of
   ``127.0.0.1:6379`` or of ``localhost:5432``), not a host of the site.
   A service bound to every address (``0.0.0.0``) answers on ``127.0.0.2``
   too: a port of another local address is reached only if the site's own
   address does not answer it (one connection, closed at once, nothing
   sent).
   Reserved addresses (multicast) never are.  ``--near ORIGIN`` makes an
   origin the site's own (a local API of the app on another port);
4. the hosts one render may ask about: at most ``LINKAUDIT_RENDER_HOSTS``
   (a script that names thousands of hosts would have as many robots.txt
   asked);
5. robots.txt (the ``robots_asked`` signal: the crawl's own parsers): at
   most ``CONCURRENT_REQUESTS`` hosts' robots.txt asked at once for the
   browser (each a download of its own, outside the scheduler's places),
   and only a robots.txt that answered allows: one that could not be
   fetched, for a fault of the network's or ours (out of file descriptors),
   refuses, never "no rules".

The address is looked up here, and the browser looks it up again when it
connects: a name whose DNS answers a public address to the first lookup and
a local one to the second (rebinding) is not caught.  Those are names an
attacker controls, with a DNS server to match; a page's plain ``fetch`` of
``http://127.0.0.1:PORT/`` or of ``localhost`` is.
"""

from __future__ import annotations

import asyncio
import dataclasses
import ipaddress
import logging
import socket
from typing import Any
from urllib.parse import urlsplit

from scrapy.crawler import Crawler

from linkaudit.config import config_of
from linkaudit.rules.judge import LinkRules
from linkaudit.rules.urls import InvalidURL, canonicalize
from linkaudit.signals import robots_asked

logger = logging.getLogger(__name__)

METHODS = frozenset({"GET", "HEAD"})
PUBLIC, PRIVATE = "public", "private"
# how far from public an address is: a host with several addresses is its worst
_RANK = {PUBLIC: 0, PRIVATE: 1, "reserved": 2, "link-local": 3, "loopback": 4}
KNOWN = 10_000  # hosts whose addresses, and netlocs whose robots.txt, are remembered
SAID = 1_000  # refusals said in the log (once per origin and reason)
RESOLVE_TIMEOUT = 10.0  # s at most for a name's lookup
CONNECT_TIMEOUT = 2.0  # s at most to learn whether the site's own address answers a port
NOT_SITE = "not the site's (--near adds an origin to the site)"


def address_kind(address: str) -> str:
    """What an IP address is: ``public``, ``private`` (RFC 1918, unique
    local, shared address space...), ``link-local``, ``loopback`` (and the
    unspecified address, which reaches the machine itself) or ``reserved``
    (multicast, reserved ranges)."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])  # an IPv6 zone is not the address
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if ip.is_loopback or ip.is_unspecified:
        return "loopback"
    if ip.is_link_local:
        return "link-local"
    if ip.is_multicast or ip.is_reserved:
        return "reserved"
    return PUBLIC if ip.is_global else PRIVATE


def _plain(address: str) -> str:
    """An IP address as one string per machine it reaches: no IPv6 zone, an
    IPv4-mapped IPv6 address as its IPv4, and ``::1``, ``0.0.0.0`` and
    ``::`` (which reach the machine itself) as ``127.0.0.1`` (``ValueError``
    for a name)."""
    ip = ipaddress.ip_address(address.strip("[]").split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if ip.is_unspecified or ip == ipaddress.IPv6Address("::1"):
        return "127.0.0.1"
    return str(ip)


def origin_of(url: str) -> str:
    """``scheme://host[:port]`` of a canonical URL."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc.rpartition('@')[2]}"


class Reach:
    """The audit's rules for the browser's requests (see the module)."""

    def __init__(self, crawler: Crawler):
        self.crawler = crawler
        config = config_of(crawler)
        guards = config.guards
        self.include = guards.include
        limit = config["URLLENGTH_LIMIT"]
        self.rules = LinkRules(config.near_prefixes, guards, limit)
        # --include narrows the checks, not what a page needs to run
        unchosen = dataclasses.replace(guards, include=())
        self.unchosen = LinkRules(config.near_prefixes, unchosen, limit)
        self.own = frozenset(origin_of(u) for u in (*config.near_prefixes, *config.start_urls))
        self.hosts = config["LINKAUDIT_RENDER_HOSTS"]
        self.asking = asyncio.Semaphore(crawler.settings.getint("CONCURRENT_REQUESTS") or 16)
        self.answered: set[str] = set()  # netlocs whose robots.txt the crawl holds
        self.found: dict[str, frozenset[str]] = {}  # host -> its addresses
        self.ports: dict[int, bool] = {}  # port -> whether the site's own address answers it
        # the addresses of the site's own hosts, and their kinds
        self.site: tuple[frozenset[str], frozenset[str]] | None = None
        self.said: set[tuple[str, str]] = set()

    async def admit(self, url: str, method: str, body: bool, hosts: set[str]) -> str | None:
        """Why the browser may not send this request, or None; ``hosts``:
        the hosts this render has asked about so far."""
        refusal = await self._refusal(url, method, body)
        if refusal is None:
            netloc = urlsplit(url).netloc
            if netloc not in hosts and len(hosts) >= self.hosts:
                refusal = f"more than {self.hosts} hosts asked for by one page"
                refusal += " (LINKAUDIT_RENDER_HOSTS)"
            else:
                hosts.add(netloc)
                if not await self._allows(url, netloc):
                    logger.debug("Browser request refused by robots.txt: %s", url)
                    return "robots.txt"
                return None
        key = (origin_of(url), refusal)
        if key not in self.said and len(self.said) < SAID:
            self.said.add(key)
            # a local address: a page reaching for the machine's services,
            # or an app's local API the user may want (--near): said aloud
            level = logging.WARNING if refusal.endswith(NOT_SITE) else logging.INFO
            logger.log(level, "The browser was refused %s %s: %s", method, url[:200], refusal)
        return refusal

    async def _refusal(self, url: str, method: str, body: bool) -> str | None:
        if method not in METHODS:
            return f"a {method[:20]} request (a render sends only GET and HEAD)"
        if body:
            return "a request with a body (a render sends none)"
        try:
            url = canonicalize(url)
        except InvalidURL:
            return "an invalid URL"
        rules = self.rules if any(p.search(url) for p in self.include) else self.unchosen
        verdict = rules.judge(url)
        if verdict.outcome is not None:
            return verdict.error
        if origin_of(url) in self.own:
            return None
        addresses = await self._addresses(urlsplit(url).hostname or "")
        if not addresses:
            return "its host's address was not found"
        kind = max((address_kind(a) for a in addresses), key=_RANK.__getitem__)
        if kind == PUBLIC:
            return None
        site_addresses, site_kinds = await self._site()
        if addresses & site_addresses:  # the site's machine, another of its ports
            return f"another port of the site's own address, {NOT_SITE}"
        if kind not in site_kinds or kind == "reserved":
            return f"a {kind} address, {NOT_SITE}"
        port = urlsplit(url).port or (443 if url.startswith("https:") else 80)
        if kind == "loopback" and await self._site_machine_answers(port, kind):
            # a service bound to every address (0.0.0.0: Docker's published
            # ports, a CI job's services) answers on 127.0.0.2 as on the
            # site's own 127.0.0.1: the site's machine, not a host of its network
            return f"another port of the site's own address (it answers there too), {NOT_SITE}"
        return None

    async def _site_machine_answers(self, port: int, kind: str) -> bool:
        """Whether ``port`` accepts a connection on the site's own address of
        ``kind`` (asked once a port, connected and closed at once, nothing
        sent); a port that cannot be asked counts as answering."""
        if port in self.ports:
            return self.ports[port]
        site = sorted(a for a in (await self._site())[0] if address_kind(a) == kind)
        answers = True
        if site:
            try:
                _, writer = await asyncio.wait_for(
                    asyncio.open_connection(site[0], port), CONNECT_TIMEOUT
                )
                writer.close()
            except ConnectionRefusedError:
                answers = False  # nothing there: another host of the site's network
            except (OSError, TimeoutError):
                pass  # not known: the site's machine, as far as we can tell
        if len(self.ports) >= KNOWN:
            self.ports.clear()
        self.ports[port] = answers
        return answers

    async def _addresses(self, host: str) -> frozenset[str]:
        """The addresses ``host`` names (itself, for an address), IPv4-mapped
        IPv6 ones as IPv4; empty: it has none."""
        try:
            return frozenset({_plain(host)})
        except ValueError:  # a name
            pass
        if host in self.found:
            return self.found[host]
        loop = asyncio.get_running_loop()
        try:
            infos = await asyncio.wait_for(
                loop.getaddrinfo(host, None, type=socket.SOCK_STREAM), RESOLVE_TIMEOUT
            )
            found = frozenset(_plain(str(info[4][0])) for info in infos)
        except (OSError, TimeoutError, ValueError, UnicodeError):
            found = frozenset()
        if found:  # a failed lookup is asked again: it may have been the network's
            if len(self.found) >= KNOWN:
                self.found.clear()
            self.found[host] = found
        return found

    async def _site(self) -> tuple[frozenset[str], frozenset[str]]:
        """The addresses of the site's own hosts, and their kinds."""
        if self.site is None:
            hosts = {urlsplit(origin).hostname or "" for origin in self.own}
            addresses = frozenset().union(*[await self._addresses(host) for host in hosts])
            self.site = addresses, frozenset(address_kind(a) for a in addresses)
        return self.site

    async def _allows(self, url: str, netloc: str) -> bool:
        """robots.txt's verdict for a URL the browser asks for: the crawl's
        (the ``robots_asked`` signal).  A host met for the first time has its
        robots.txt fetched: at most ``CONCURRENT_REQUESTS`` at once; a host
        answered before is the crawl's cache, asked at once.  Only a True
        from every receiver allows (an exception in one is a refusal); no
        receiver (robots.txt not obeyed: ``ROBOTSTXT_OBEY``) allows."""
        if netloc in self.answered:
            return await self._ask(url)
        async with self.asking:
            allowed = await self._ask(url)
        if len(self.answered) >= KNOWN:
            self.answered.clear()
        self.answered.add(netloc)
        return allowed

    async def _ask(self, url: str) -> bool:
        answers: list[tuple[Any, Any]] = await self.crawler.signals.send_catch_log_async(
            robots_asked, url=url
        )
        return all(answer is True for _, answer in answers)
