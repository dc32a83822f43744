"""A notification target as the user writes it (one value of ``--notify``),
read and masked.

- ``slack:URL``, ``teams:URL``, ``discord:URL``: the services' incoming
  webhooks; a bare URL on one of their own hosts is taken as its kind
  (``https://hooks.slack.com/services/...`` is ``slack:``);
- ``webhook:URL``: a generic JSON body (docs/guide/notifications.md),
  signed when a secret is given;
- ``smtp://[USER:PASSWORD@]HOST[:PORT]?to=ADDRESS[&from=ADDRESS]``: an
  e-mail (``smtps://`` for TLS from the first byte, port 465).

A webhook's URL is its secret (Slack's and Discord's tokens are in the
path, a Teams Workflows URL's in its ``sig=`` query), so what a person
reads (errors, the log, ``--print-config``) shows the kind and the host
only: ``slack:https://hooks.slack.com/***``; an SMTP URL shows everything
but the password.  Pure: no network, no Scrapy.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from email.utils import getaddresses
from urllib.parse import parse_qs, unquote, urlsplit

HOOKS = ("slack", "teams", "discord", "webhook")
MAIL = ("smtp", "smtps")
KINDS = (*HOOKS, "smtp")
# a bare URL on a service's own hosts: its kind (the host, or a suffix after a dot)
SERVICE_HOSTS = (
    ("slack", ("hooks.slack.com", "hooks.slack-gov.com")),
    ("discord", ("discord.com", "discordapp.com", "ptb.discord.com", "canary.discord.com")),
    # Teams: Workflows (Power Automate) and the retired connectors
    (
        "teams",
        ("logic.azure.com", "environment.api.powerplatform.com", "webhook.office.com")
        + ("outlook.office.com", "outlook.office365.com"),
    ),
)
_KIND = re.compile(r"^\s*([A-Za-z]+):(?!//)(.*)$", re.DOTALL)  # "slack:https://..."
_SCHEME = re.compile(r"^\s*([A-Za-z][A-Za-z0-9+.-]*)://")
HELP = (
    "give slack:URL, teams:URL, discord:URL, webhook:URL or "
    "smtp://[USER:PASSWORD@]HOST[:PORT]?to=ADDRESS"
)


@dataclass(frozen=True)
class Target:
    """One target: its ``kind`` (``slack``, ``teams``, ``discord``,
    ``webhook``, ``smtp``), the URL to post to (hooks) or the mail
    server's address and envelope (smtp), and ``shown``, what a person may
    read of it."""

    kind: str
    shown: str
    url: str = ""  # a hook's URL (never shown)
    host: str = ""  # smtp: the server
    port: int = 0
    user: str | None = None
    password: str | None = field(default=None, repr=False)
    to: tuple[str, ...] = ()
    sender: str = ""  # "" : the configuration's (--contact), else linkaudit@localhost
    tls: bool = False  # smtps: TLS from the first byte

    def __repr__(self) -> str:  # never the URL, never the password
        return f"Target({self.shown!r})"


def masked(text: str) -> str:
    """What a person may read of a target's text, whether it reads or not:
    a hook's kind, scheme and host (``teams:https://x.logic.azure.com/***``),
    an SMTP URL with its password as ``***``, anything else as ``***``
    after its kind."""
    text = str(text).strip()
    kind = _KIND.match(text)
    prefix, url = (kind[1] + ":", kind[2].strip()) if kind else ("", text)
    scheme = _SCHEME.match(url)
    if scheme is None:
        return f"{prefix}***"
    if scheme[1].lower() in MAIL and not prefix:
        return _masked_mail(url)
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port else ""
    except ValueError:
        return f"{prefix}{scheme[1]}://***"
    bracket = f"[{host}]" if ":" in host else host
    return f"{prefix}{scheme[1].lower()}://{bracket}{port}/***"


def _masked_mail(url: str) -> str:
    scheme, rest = url.split("://", 1)
    authority, sep, tail = rest.partition("?")
    userinfo, at, hostport = authority.rpartition("@")
    if at:
        user, colon, _password = userinfo.partition(":")
        authority = f"{user}{':***' if colon else ''}@{hostport}" if user else f"***@{hostport}"
    return f"{scheme.lower()}://{authority}{sep}{tail}"


def parse(text: str) -> Target:
    """The target ``text`` names; ValueError with the masked text when it
    names none."""
    text = str(text).strip()
    shown = masked(text)
    kind = _KIND.match(text)
    if kind is not None:
        name = kind[1].lower()
        if name not in HOOKS:
            raise ValueError(f"{shown}: unknown kind {kind[1]!r}: {HELP}")
        return Target(name, shown, url=_hook_url(kind[2].strip(), shown))
    scheme = _SCHEME.match(text)
    if scheme is not None and scheme[1].lower() in MAIL:
        return _smtp(text, shown)
    if scheme is not None and scheme[1].lower() in ("http", "https"):
        url = _hook_url(text, shown)
        host = (urlsplit(url).hostname or "").lower()
        for name, hosts in SERVICE_HOSTS:
            if any(host == h or host.endswith("." + h) for h in hosts):
                return Target(name, f"{name}:{shown}", url=url)
        raise ValueError(f"{shown}: a URL on no service's own host: {HELP}")
    raise ValueError(f"{shown}: not a notification target: {HELP}")


def _hook_url(url: str, shown: str) -> str:
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - a port out of range raises here
    except ValueError:
        raise ValueError(f"{shown}: not a URL") from None
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise ValueError(f"{shown}: not an http(s) URL with a host")
    if any(ord(c) < 0x21 or ord(c) == 0x7F for c in url):
        raise ValueError(f"{shown}: a URL holds no space or control character")
    return url


def _smtp(text: str, shown: str) -> Target:
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError:
        raise ValueError(f"{shown}: not an SMTP URL (a port 1-65535?)") from None
    if not parts.hostname:
        raise ValueError(f"{shown}: no mail server: {HELP}")
    query = parse_qs(parts.query, keep_blank_values=True)
    unknown = sorted(set(query) - {"to", "from"})
    if unknown:
        raise ValueError(f"{shown}: unknown parameter {unknown[0]!r} (to=, from=)")
    to = tuple(_addresses(",".join(query.get("to", [])), shown))
    if not to:
        raise ValueError(f"{shown}: no recipient: add ?to=ADDRESS")
    senders = _addresses(",".join(query.get("from", [])), shown)
    if len(senders) > 1:
        raise ValueError(f"{shown}: one from= address")
    user = unquote(parts.username) if parts.username else None
    password = unquote(parts.password) if parts.password is not None else None
    tls = parts.scheme.lower() == "smtps"
    default = 465 if tls else 587 if user else 25
    return Target(
        "smtp",
        shown,
        host=parts.hostname,
        port=port or default,
        user=user,
        password=password,
        to=to,
        sender=senders[0] if senders else "",
        tls=tls,
    )


def _addresses(text: str, shown: str) -> list[str]:
    found = []
    for _name, address in getaddresses([text]) if text.strip() else ():
        if not re.fullmatch(r"[^@\s<>,;\"]+@[^@\s<>,;\"]+", address):
            raise ValueError(f"{shown}: {address or text!r} is not an e-mail address")
        found.append(address)
    return found


def targets(values: list[str] | tuple[str, ...]) -> tuple[Target, ...]:
    """Every target of a list, each once (the same text twice: one message)."""
    return tuple(parse(v) for v in dict.fromkeys(str(v).strip() for v in values if str(v).strip()))
