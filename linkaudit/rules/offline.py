"""An offline machine is not a broken web: the rule that tells one from the
other, judged passively from the audit's own far links (no probe of a third
party's host is ever sent).

- A far host **answered** when any of its links got an HTTP answer in this
  audit (any status: a 404 proves the network as well as a 200), or was
  ``blocked`` (its robots.txt answered).  An outcome reused from the audit
  database (``from_cache``) proves nothing about today's network.
- A far link **failed for want of a network** when its check ended at the
  name lookup (``DNS lookup failed for HOST``), a refused connection or no
  route to the host.  Not a connect timeout (a slow or firewalled host, not
  an absent network: it keeps its verdict), nor a name that fails without a
  query (:func:`never_resolves`: ``.invalid``, ``.onion``, a name DNS cannot
  carry; they say nothing about the network).
- The machine **seems offline** when no far host answered and the failures
  span at least ``least`` distinct registrable domains
  (``LINKAUDIT_OFFLINE_HOSTS``, default 3; 0 turns the rule off): one dead
  host, or two, is not enough to be sure.  Then the far links that failed so
  are ``unchecked``, "no network" (:func:`no_network`); where any far host
  answered, every verdict stands (a dead host among live ones is broken).

Hosts are counted by registrable domain (``docs.example.com`` and
``www.example.com`` are one), an IP address by itself (``127.0.0.2`` and
``127.0.0.3`` are two: loopback literals count as far hosts like any
other, so an audit of servers on this machine is judged the same way).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from ipaddress import ip_address
from typing import Any
from urllib.parse import urlsplit

from linkaudit.items import Outcome, UrlResult

# Special-use domain names that never resolve (RFC 6761, RFC 7686)
NEVER_RESOLVED = ("invalid", "onion")
MAX_NAME, MAX_LABEL = 253, 63  # RFC 1035 2.3.4, written without the final dot

DNS_FAILED = "DNS lookup failed for "  # network/failures.py's words
REFUSED, NO_ROUTE = "Connection refused", "No route to host"
NO_NETWORK = "Not checked: no network"  # the start of an offline link's error


def never_resolves(name: str) -> bool:
    """``name`` is in a special-use domain that has no addresses, or is a
    name DNS cannot carry (the resolver fails it without a query)."""
    name = name.rstrip(".")
    labels = name.split(".")
    if len(name) > MAX_NAME or any(not 0 < len(label) <= MAX_LABEL for label in labels):
        return True
    return labels[-1].lower() in NEVER_RESOLVED


def host_of(url: str) -> str | None:
    """The host of an http(s) URL, lower case, without brackets; None for
    any other URL (or one that cannot be split)."""
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not host:
        return None
    return host


def unreached(result: UrlResult) -> bool:
    """The check of a far link ended for want of a network: the name
    lookup failed (a name that needed a query), the connection was refused,
    or no route led to the host."""
    error = result.error or ""
    if result.outcome != Outcome.BROKEN or result.status is not None or result.from_cache:
        return False
    if error.startswith(DNS_FAILED):
        return not never_resolves(error[len(DNS_FAILED) :])
    return error in (REFUSED, NO_ROUTE)


def answered(result: UrlResult) -> bool:
    """A far link's host answered in this audit (any HTTP status, or a
    robots.txt that blocked it)."""
    if result.from_cache:
        return False
    return result.status is not None or result.outcome == Outcome.BLOCKED


def no_network(error: str | None) -> str:
    """The error of a far link left unchecked because the machine seems
    offline: ``Not checked: no network (DNS lookup failed for x.example)``."""
    return f"{NO_NETWORK} ({error})" if error else NO_NETWORK


def is_no_network(entry: dict[str, Any]) -> bool:
    """A report entry left unchecked because the machine seemed offline."""
    error = entry.get("error")
    return entry.get("outcome") == Outcome.UNCHECKED and str(error or "").startswith(NO_NETWORK)


def domain_of(host: str) -> str:
    """``host``'s registrable domain (the bundled Public Suffix List, private
    domains included: ``a.github.io`` and ``b.github.io`` are two); an IP
    address is its own; a name under no known suffix, its last two labels."""
    host = host.rstrip(".").lower()
    try:
        ip_address(host)
        return host
    except ValueError:
        pass
    found = _extract()(host)
    domain = found.top_domain_under_public_suffix
    return domain or ".".join(host.split(".")[-2:])


def distinct_domains(hosts: Iterable[str]) -> int:
    return len({domain_of(h) for h in hosts})


def seems_offline(answered_hosts: int, failed_hosts: Iterable[str], least: int) -> bool:
    """No far host answered, and at least ``least`` registrable domains
    failed for want of a network (``least`` 0: never)."""
    if least <= 0 or answered_hosts:
        return False
    return distinct_domains(failed_hosts) >= least


@cache
def _extract() -> Any:
    """tldextract with the list it bundles: never a download, no cache file."""
    from tldextract import TLDExtract

    return TLDExtract(cache_dir=None, suffix_list_urls=(), include_psl_private_domains=True)
