"""Every target told of one report: what changed (``changes.py``), each
kind's message, sent (``send.py``).  Nothing is sent when nothing changed
unless ``--notify-always``; a target that fails is one WARNING line.  The
report, the exit code and the audit database are never changed here:
they are all settled before this runs."""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from linkaudit.notify import documents, messages
from linkaudit.notify.changes import Changes, changes
from linkaudit.notify.send import SIGNATURE, SendError, post, send_mail, signature
from linkaudit.notify.targets import Target
from linkaudit.output.report.records import Report

logger = logging.getLogger(__name__)
CHAT = {"slack": messages.slack, "teams": messages.teams, "discord": messages.discord}
DEFAULT_SENDER = "linkaudit@localhost"


def notify(values: Mapping[str, Any], report: Report, path: str | None) -> dict[str, bool]:
    """Tell every target of ``values["LINKAUDIT_NOTIFY"]`` what ``report``
    (written at ``path``, None: not written) says changed; each target's
    masked name -> whether it got the message (none: nothing to send)."""
    targets: tuple[Target, ...] = values.get("LINKAUDIT_NOTIFY") or ()
    if not targets:
        return {}
    found = changes(report, path, values.get("LINKAUDIT_NOTIFY_REPORT_URL") or "")
    if not found.changed and not values.get("LINKAUDIT_NOTIFY_ALWAYS"):
        logger.info(
            "linkaudit: nothing changed since the last audit: no notification sent "
            "(--notify-always sends one anyway)"
        )
        return {}
    sent = {}
    for target in targets:
        sent[target.shown] = _tell(target, found, report, values)
    return sent


def _tell(target: Target, found: Changes, report: Report, values: Mapping[str, Any]) -> bool:
    retries = int(values.get("LINKAUDIT_NOTIFY_RETRIES", 2))
    seconds = float(values.get("LINKAUDIT_NOTIFY_TIMEOUT", 30.0))
    try:
        if target.kind == "smtp":
            sender = target.sender or values.get("LINKAUDIT_CONTACT") or DEFAULT_SENDER
            message = documents.mail(found, sender, target.to)
            tries = send_mail(target, message, retries, seconds)
        else:
            url, body, headers = _request(target, found, report, values)
            tries = post(url, body, headers, retries, seconds)
    except SendError as exc:
        logger.warning(
            "linkaudit: no notification sent to %s (%d %s): %s",
            target.shown,
            exc.tries,
            "try" if exc.tries == 1 else "tries",
            exc.reason,
        )
        return False
    except Exception as exc:  # a fault of ours must not cost the audit its exit code
        logger.warning(
            "linkaudit: no notification sent to %s: internal error %s (a bug in linkaudit: "
            "please report it)",
            target.shown,
            type(exc).__name__,
        )
        return False
    logger.info(
        "linkaudit: notified %s: %s%s",
        target.shown,
        found.title(),
        f" ({tries} tries)" if tries > 1 else "",
    )
    return True


def _request(
    target: Target, found: Changes, report: Report, values: Mapping[str, Any]
) -> tuple[str, bytes, dict[str, str]]:
    """The URL, the body (serialised once: what is signed is what is sent)
    and the headers of a hook's POST."""
    url, headers = target.url, {}
    payload: Mapping[str, Any]  # a webhook's document, or a chat service's message
    if target.kind == "webhook":
        document = payload = documents.webhook(found, report)
        headers = {"X-Linkaudit-Event": document["event"], "X-Linkaudit-Delivery": document["id"]}
    else:
        payload = CHAT[target.kind](found)
    if target.kind == "discord":  # else Discord drops a message it refuses, saying nothing
        url = _with_query(url, "wait", "true")
    body = json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()
    if target.kind == "webhook":
        secret = values.get("LINKAUDIT_NOTIFY_SECRET_FILE") or values.get("LINKAUDIT_NOTIFY_SECRET")
        if secret:
            headers[SIGNATURE] = signature(secret, body)
        else:
            logger.warning(
                "linkaudit: the message to %s is not signed: no secret "
                "(LINKAUDIT_NOTIFY_SECRET or --notify-secret-file)",
                target.shown,
            )
    return url, body, headers


def _with_query(url: str, name: str, value: str) -> str:
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k != name]
    return urlunsplit(parts._replace(query=urlencode([*query, (name, value)])))
