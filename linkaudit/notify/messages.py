"""Each kind's message from the changes: Slack's blocks, a Teams Adaptive
Card (the Workflows envelope), a Discord embed.  Each fits its service's
limits (``fitting.py``); text from pages (URLs, errors) is escaped where
the service reads markup, and no message can ping a channel."""

from __future__ import annotations

import json
from typing import Any

from linkaudit.notify.changes import Changes, Link
from linkaudit.notify.fitting import clip, fit, listed, more_links, place_lines

# Slack: 50 blocks (header, summary, context kept), 3,000 a section, about
# 12,000 characters of block text before msg_blocks_too_long
SLACK_BLOCKS, SLACK_SECTION, SLACK_HEADER, SLACK_TOTAL = 50, 3000, 150, 11000
# Discord: 25 fields (one kept for "and N more"), 1,024 a value, 256 a
# name or title, 4,096 the description, 6,000 in all
DISCORD_FIELDS, DISCORD_VALUE, DISCORD_NAME, DISCORD_TEXT, DISCORD_TOTAL = 25, 1024, 256, 4096, 6000
TEAMS_BYTES = 20_000  # of Teams' 28 KB: the envelope and escaping count
PLACES = 5  # a chat message's places for a new link


def summary_lines(changes: Changes, fixed_limit: int = 20, width: int = 1500) -> list[str]:
    """Fixed, still broken, the audit's caveats, where the report is."""
    lines = []
    if changes.fixed:
        lines.append(f"Fixed ({len(changes.fixed)}): {listed(changes.fixed, fixed_limit, width)}")
    if changes.still:
        lines.append(changes.still_text().capitalize() + ".")
    if not changes.compared:
        lines.append("No earlier audit to compare with: every broken link counts as new.")
    lines += [note.capitalize() + "." for note in changes.notes]
    lines.append(f"Report: {changes.report}")
    return lines


def link_text(link: Link, places: int = PLACES, bullet: str = "• ") -> str:
    """``URL: 404 Not Found`` and its places, a line each."""
    return "\n".join(
        [f"{link.url}: {link.what()}", *(bullet + p for p in place_lines(link, places))]
    )


def _slack_escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


# The chat messages are each service's own JSON (Slack's blocks, Discord's
# embeds, an Adaptive Card): shapes the services define, made and sent
# here, so plain dicts, not records of ours (the webhook's is: documents.py)


def slack(changes: Changes) -> dict[str, Any]:
    """Blocks: a header, a section a new link, the summary, the report."""
    title = "linkaudit: " + changes.title()
    fixed = [_slack_escape(line) for line in summary_lines(changes)]
    tail: dict[str, Any] = {
        "type": "section",
        "text": {"type": "mrkdwn", "text": clip("\n".join(fixed), 3000)},
    }
    sections = [clip(_slack_escape(link_text(link)), SLACK_SECTION) for link in changes.new]
    budget = SLACK_TOTAL - len(title) - len(tail["text"]["text"]) - 200
    kept = fit(sections, lambda s: len(s) + 1, budget, SLACK_BLOCKS - 4)
    blocks: list[dict[str, Any]] = [
        {"type": "header", "text": {"type": "plain_text", "text": clip(title, SLACK_HEADER)}}
    ]
    blocks += [{"type": "section", "text": {"type": "mrkdwn", "text": s}} for s in kept]
    left = len(changes.new) - len(kept)
    if left:
        blocks.append({"type": "section", "text": {"type": "mrkdwn", "text": more_links(left)}})
    blocks.append(tail)
    return {"text": clip(title, 3000), "blocks": blocks}


def discord(changes: Changes) -> dict[str, Any]:
    """One embed: the summary as its description, a field a new link."""
    title = clip("linkaudit: " + changes.title(), DISCORD_NAME)
    description = clip("\n".join(summary_lines(changes, width=2500)), DISCORD_TEXT)
    fields = [
        {
            "name": clip(link.url, DISCORD_NAME),
            "value": clip("\n".join([link.what(), *place_lines(link, PLACES)]), DISCORD_VALUE),
        }
        for link in changes.new
    ]
    budget = DISCORD_TOTAL - len(title) - len(description) - len("linkaudit") - 200
    kept = fit(fields, lambda f: len(f["name"]) + len(f["value"]), budget, DISCORD_FIELDS - 1)
    left = len(changes.new) - len(kept)
    if left:
        kept.append({"name": "…", "value": more_links(left)})
    embed = {
        "title": title,
        "description": description,
        "color": 0xD70000 if changes.new else 0x2E8B57,
        "fields": kept,
        "footer": {"text": "linkaudit"},
    }
    # nothing a page wrote (@everyone in a URL) pings anyone
    return {"content": None, "allowed_mentions": {"parse": []}, "embeds": [embed]}


def teams(changes: Changes) -> dict[str, Any]:
    """The Workflows envelope: an Adaptive Card, a text block a new link."""
    title = "linkaudit: " + changes.title()

    def block(text: str, **style: Any) -> dict[str, Any]:
        return {"type": "TextBlock", "wrap": True, "text": text, **style}

    # Adaptive Cards read a subset of markdown: a link's own text stays as
    # it is, each place a list item
    texts = [link_text(link, bullet="- ") for link in changes.new]
    tail = [block(line) for line in summary_lines(changes)]
    base = len(json.dumps(_card(title, [], tail)).encode())
    kept = fit(
        texts, lambda t: len(json.dumps(block(t)).encode()) + 2, TEAMS_BYTES - base - 300, 200
    )
    body = [block(t) for t in kept]
    left = len(changes.new) - len(kept)
    if left:
        body.append(block(more_links(left), weight="Bolder"))
    return _card(title, body, tail)


def _card(title: str, body: list[dict[str, Any]], tail: list[dict[str, Any]]) -> dict[str, Any]:
    head = {"type": "TextBlock", "size": "Large", "weight": "Bolder", "wrap": True, "text": title}
    card = {
        "$schema": "http://adaptivecards.io/schemas/adaptive-card.json",
        "type": "AdaptiveCard",
        "version": "1.4",
        "body": [head, *body, *tail],
        "msteams": {"width": "Full"},
    }
    return {
        "type": "message",
        "attachments": [
            {
                "contentType": "application/vnd.microsoft.card.adaptive",
                "contentUrl": None,
                "content": card,
            }
        ],
    }
