"""The secrets of a configuration, masked for what a person reads
(``--print-config``, which a CI job may print into a public log).

A value is masked by what it is, whoever set it (an option, the
configuration file, ``-s``): a Redis URL's password wherever redis-py reads
one (``redis://user:***@host/0``, ``?password=***``), ``--auth``'s
password (``user:***``), the values of the headers that carry credentials
(``Authorization: ***``), any URL's password, a ``password`` in a
table of parameters (``REDIS_PARAMS``), a notification target's URL but
its kind and host (``slack:https://hooks.slack.com/***``: a webhook's URL
is its secret) and the webhook's signing secret.  Other headers (``X-Token``) are
the user's to name: they are shown, as the guide says.
"""

from __future__ import annotations

import re
from typing import Any

from linkaudit.notify.targets import masked as masked_target
from linkaudit.rules.userinfo import masked_passwords, masked_service

# the option's key (the configuration file's) and the setting's name
SERVICE_URLS = frozenset({"redis", "LINKAUDIT_REDIS", "REDIS_URL"})
CREDENTIALS = frozenset({"auth", "LINKAUDIT_AUTH"})
TARGETS = frozenset({"notify", "LINKAUDIT_NOTIFY"})
SECRETS = frozenset({"notify-secret", "LINKAUDIT_NOTIFY_SECRET"})
# headers whose values are credentials (RFC 9110 section 11, RFC 6265)
CREDENTIAL_HEADERS = ("authorization", "proxy-authorization", "cookie")
# "Authorization: Bearer x" in a header's text, or in a table's
# ("{'Authorization': 'Bearer x'}"): the value up to its quote, comma or end
_HEADER_VALUE = re.compile(
    rf"""(\b(?:{"|".join(CREDENTIAL_HEADERS)})['"]?\s*:\s*['"]?)([^'"\n,}}\]]+)""",
    re.IGNORECASE,
)
_URL = re.compile(r"^\s*[A-Za-z][A-Za-z0-9+.-]*://")


def secret_free(name: str, value: Any) -> Any:
    """``value`` of the option or setting ``name`` with its secrets as
    ``***``; a list item by item; other types as they are."""
    if isinstance(value, list | tuple):
        return [secret_free(name, item) for item in value]
    if name in SECRETS:
        return "***" if value else value
    if not isinstance(value, str):
        return value
    if name in TARGETS:  # a JSON list's text, or targets apart by whitespace
        items = re.findall(r'"((?:[^"\\]|\\.)*)"', value) if value.lstrip()[:1] == "[" else None
        return " ".join(masked_target(t) for t in (items if items is not None else value.split()))
    if name in CREDENTIALS:
        user, colon, _password = value.partition(":")
        return f"{user}:***" if colon else "***"
    if name in SERVICE_URLS or _URL.match(value):
        value = masked_service(value)
    return _HEADER_VALUE.sub(r"\1***", masked_passwords(value))
