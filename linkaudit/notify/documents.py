"""The two messages that are documents rather than chat: the webhook's
JSON (its fields: docs/guide/notifications.md) and the e-mail (plain text).
Both are generous, and both still bounded: a site with 100,000 new broken
links sends the first of them and counts the rest (``omitted``)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid
from typing import NotRequired, TypedDict

from linkaudit import __version__
from linkaudit.notify.changes import Changes, Link
from linkaudit.notify.fitting import more, more_links
from linkaudit.notify.messages import summary_lines
from linkaudit.output.report.records import ArchivedCopy, Report
from linkaudit.output.words import age

SCHEMA = "linkaudit-notify/1"
WEBHOOK_ITEMS = 1000  # new, fixed, still broken: each list's most items
WEBHOOK_PLACES = 100  # a new link's places
MAIL_LINKS, MAIL_PLACES, MAIL_STILL = 200, 20, 200


# The webhook's JSON, as types (docs/guide/notifications.md's table):
# plain dicts at run time, serialised once by notifier.py


class ListCounts(TypedDict):
    """``counts``, ``omitted``: per list, every one or those left out."""

    new: int
    fixed: int
    still_broken: int


class PagePlace(TypedDict):
    page: str
    lines: list[int]


class TemplatePlace(TypedDict):
    text: str
    pages: int


class NewLink(TypedDict):
    """An item of ``new``."""

    url: str
    status: int | None
    error: str | None
    places: list[PagePlace]
    templates: list[TemplatePlace]
    places_omitted: int
    archived: NotRequired[ArchivedCopy]


class StillBroken(TypedDict):
    """An item of ``still_broken``."""

    url: str
    status: int | None
    error: str | None
    since: str | None
    audits: int | None


class WebhookDocument(TypedDict):
    schema: str
    event: str
    id: str
    sent_at: str
    linkaudit: str
    site: str
    start_urls: list[str]
    started_at: str | None
    finished_at: str | None
    complete: bool
    compared: bool
    report: str
    title: str
    counts: ListCounts
    new: list[NewLink]
    fixed: list[str]
    still_broken: list[StillBroken]
    notes: list[str]
    omitted: ListCounts


def webhook(changes: Changes, report: Report) -> WebhookDocument:
    """The JSON body; ``id`` and ``sent_at`` inside the signed body, so a
    receiver can drop a replayed or stale delivery."""
    new, fixed, still = (
        changes.new[:WEBHOOK_ITEMS],
        changes.fixed[:WEBHOOK_ITEMS],
        changes.still[:WEBHOOK_ITEMS],
    )
    return {
        "schema": SCHEMA,
        "event": "audit.changed" if changes.changed else "audit.unchanged",
        "id": str(uuid.uuid4()),
        "sent_at": datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
        "linkaudit": __version__,
        "site": changes.site,
        "start_urls": list(report.get("start_urls") or []),
        "started_at": report.get("started_at"),
        "finished_at": report.get("finished_at"),
        "complete": changes.complete,
        "compared": changes.compared,
        "report": changes.report,
        "title": changes.title(),
        "counts": {
            "new": len(changes.new),
            "fixed": len(changes.fixed),
            "still_broken": len(changes.still),
        },
        "new": [_new(link) for link in new],
        "fixed": list(fixed),
        "still_broken": [
            {
                "url": link.url,
                "status": link.status,
                "error": link.error or None,
                "since": link.since,
                "audits": link.audits,
            }
            for link in still
        ],
        "notes": list(changes.notes),
        "omitted": {
            "new": len(changes.new) - len(new),
            "fixed": len(changes.fixed) - len(fixed),
            "still_broken": len(changes.still) - len(still),
        },
    }


def _new(link: Link) -> NewLink:
    places = [p for p in link.places if not p.template][:WEBHOOK_PLACES]
    item: NewLink = {
        "url": link.url,
        "status": link.status,
        "error": link.error or None,
        "places": [{"page": p.page, "lines": list(p.lines)} for p in places],
        "templates": [{"text": p.template, "pages": p.pages} for p in link.places if p.template],
        "places_omitted": sum(not p.template for p in link.places) - len(places),
    }
    if link.archived is not None:
        item["archived"] = link.archived
    return item


def mail(changes: Changes, sender: str, to: tuple[str, ...]) -> EmailMessage:
    """A plain-text e-mail: the new links with their places, the fixed
    ones, the still broken ones with how long, the report."""
    lines = [changes.title().capitalize() + ".", ""]
    if changes.new:
        lines.append("New broken links:")
        for link in changes.new[:MAIL_LINKS]:
            lines.append(f"- {link.url}: {link.what()}")
            places = [p.words() for p in link.places]
            lines += [f"    {p}" for p in places[:MAIL_PLACES]]
            if len(places) > MAIL_PLACES:
                lines.append(f"    {more(len(places) - MAIL_PLACES, 'more places')}")
        if len(changes.new) > MAIL_LINKS:
            lines.append(more_links(len(changes.new) - MAIL_LINKS))
        lines.append("")
    if changes.fixed:
        lines.append("Fixed:")
        lines += [f"- {url}" for url in changes.fixed[:MAIL_LINKS]]
        if len(changes.fixed) > MAIL_LINKS:
            lines.append(more(len(changes.fixed) - MAIL_LINKS))
        lines.append("")
    if changes.still:
        lines.append(changes.still_text().capitalize() + ":")
        for link in changes.still[:MAIL_STILL]:
            took = _took(link, changes.started_at)
            lines.append(f"- {link.url}: {link.what()}{took}")
        if len(changes.still) > MAIL_STILL:
            lines.append(more(len(changes.still) - MAIL_STILL))
        lines.append("")
    lines += [line for line in summary_lines(changes) if not line.startswith(("Fixed", "Still"))]
    message = EmailMessage()
    message["Subject"] = "linkaudit: " + changes.title()
    message["From"] = sender
    message["To"] = ", ".join(to)
    message["Date"] = format_datetime(datetime.now(UTC))
    message["Message-ID"] = make_msgid(domain=sender.rpartition("@")[2] or None)
    message["Auto-Submitted"] = "auto-generated"  # RFC 3834: no vacation replies
    message["X-Mailer"] = f"linkaudit {__version__}"
    message.set_content("\n".join(lines) + "\n")
    return message


def _took(link: Link, now: str) -> str:
    if not link.since:
        return ""
    took = age(link.since, now)
    audits = f", {link.audits} audits" if link.audits else ""
    return f" (broken for {took}{audits})" if took else f" (broken since {link.since})"
