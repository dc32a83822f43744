"""Readers (see ``checks.py``) of the notification settings: the targets
(``--notify``, ``linkaudit/notify/targets.py``) and the webhook's secret
(``LINKAUDIT_NOTIFY_SECRET``, from the setting or the environment, or
``--notify-secret-file``).  Errors show a target masked and never a
secret."""

from __future__ import annotations

import json
import os
from typing import Any

from linkaudit.config.inputs import open_regular
from linkaudit.notify.targets import Target, targets

SECRET_ENV = "LINKAUDIT_NOTIFY_SECRET"
_MAX_SECRET_BYTES = 4096


def notify_targets(settings: Any, name: str) -> tuple[Target, ...]:
    """A list (the command's repeated option, the configuration file's
    list), or text: a JSON list, or targets apart by whitespace (not by
    commas: an SMTP URL's ``to=`` may hold several addresses)."""
    value = settings.get(name) or []
    if isinstance(value, str):
        if value.lstrip().startswith("["):
            try:
                value = json.loads(value)
            except json.JSONDecodeError:
                raise ValueError(
                    "is not a JSON list of targets (the text is not shown: it may hold a secret)"
                ) from None
        else:
            value = value.split()
    if not isinstance(value, list | tuple):
        raise ValueError("is not a list of targets")
    return targets(value)


def notify_secret(settings: Any, name: str) -> str:
    """The setting, else the environment variable of the same name."""
    value = settings.get(name)
    if value in (None, ""):
        value = os.environ.get(SECRET_ENV, "")
    return str(value)


def secret_file(settings: Any, name: str) -> str:
    """The secret a file holds (its trailing newline dropped); "" : no file."""
    path = str(settings.get(name) or "").strip()
    if not path:
        return ""
    try:
        with open_regular(path) as file:  # a pipe or /dev/zero would never end
            data = file.read(_MAX_SECRET_BYTES + 1)
    except ValueError as exc:
        raise ValueError(f"{path!r} is {exc}") from None
    except OSError as exc:
        raise ValueError(f"{path!r} cannot be read ({exc.strerror or 'error'})") from None
    if len(data) > _MAX_SECRET_BYTES:
        raise ValueError(f"{path!r} is too large for a secret (over {_MAX_SECRET_BYTES} bytes)")
    try:
        secret = data.decode("utf-8").rstrip("\r\n")
    except UnicodeDecodeError:
        raise ValueError(f"{path!r} is not UTF-8 text") from None
    if not secret:
        raise ValueError(f"{path!r} is empty")
    return secret
