"""The report as SARIF 2.1.0, for code-scanning tools: each broken link
located at its page and line.

Messages are plain text (``message.text``, never ``markdown``), in which
SARIF reads ``[text](target)`` as a link and ``{0}`` as a placeholder
(section 3.11.5-6): a message quoting a page's href ``[click](https://...)``
would become a link in GitHub code scanning.  So every message goes through
:func:`_message`: its values shown (:func:`shown`), then ``\\``, ``[`` and
``]`` escaped with a backslash and braces doubled, as the spec says."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from linkaudit import PROJECT_URL, __version__
from linkaudit.output.formats.common import (
    Report,
    broken_urls,
    groups_by_target,
    missing_fragments,
    shown,
)
from linkaudit.output.groups import group_text
from linkaudit.output.jsontext import json_text
from linkaudit.output.redirects import fix_text, written_edit
from linkaudit.rules.suggest import suggestion_text


def as_sarif(report: Report) -> str:
    """SARIF 2.1.0: one result per broken link occurrence, located at the
    page (as an artifact URI) and the line of the linking element."""
    results: list[dict[str, Any]] = []
    seen: set[tuple[str, str, int | None]] = set()
    by_target = groups_by_target(report)
    for u in broken_urls(report):
        first = len(results)  # this URL's results start here
        text = f"Broken link to {u['url']}: {u['error']}"
        if u.get("suggestion"):
            text += f"; {suggestion_text(u['suggestion'], u['url'])}"
        referrers = u["referrers"] or [{"url": u["url"], "line": None}]
        if u["url"] in by_target:  # template links: one result, every page related
            referrers = []
            for group in by_target[u["url"]]:
                if group["kind"] == "template":
                    results.append(_template_result(group, f"{text}, {group_text(group)}"))
                else:
                    referrers.extend(group["referrers"])
        _add(results, seen, "broken-link", u["url"], text, referrers, u.get("suggestion"))
        if "broken_since" in u:  # --db: how long it has been broken
            since = {"brokenSince": u["broken_since"], "auditsBroken": u["audits_broken"]}
            for result in results[first:]:
                result.setdefault("properties", {}).update(since)
    for u, gap in missing_fragments(report):
        target = f"{u['url']}#{gap['fragment']}"
        text = f"Link to a missing fragment: {target} (the page has no such anchor)"
        _add(results, seen, "missing-fragment", target, text, gap["referrers"])
    results.extend(_fix_result(fix) for fix in report.get("redirect_fixes") or ())
    sarif = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "linkaudit",
                        "version": __version__,
                        "informationUri": PROJECT_URL,
                        "rules": [
                            {
                                "id": "broken-link",
                                "shortDescription": {"text": "A link whose target is broken"},
                                "helpUri": PROJECT_URL,
                            },
                            {
                                "id": "redirected-link",
                                "shortDescription": {
                                    "text": "A link to a URL that redirects: link the end instead"
                                },
                                "helpUri": PROJECT_URL,
                            },
                            {
                                "id": "missing-fragment",
                                "shortDescription": {
                                    "text": "A link to a fragment the page does not have"
                                },
                                "helpUri": PROJECT_URL,
                            },
                        ],
                    }
                },
                "results": results,
            }
        ],
    }
    return json_text(sarif, indent=1)


_SARIF_ESCAPES = str.maketrans({"\\": "\\\\", "[": "\\[", "]": "\\]", "{": "{{", "}": "}}"})


def _message(text: str) -> dict[str, str]:
    """A message object for ``text`` (our words, which hold none of the
    characters escaped here, and values from pages and servers)."""
    return {"text": shown(text).translate(_SARIF_ESCAPES)}


def _uri(value: str) -> str:
    """A page or file as a URI reference: what is not printable (never in
    a URL that was fetched, but a state or a build's file name may hold
    it) percent-encoded, the rest as it is (an IRI GitHub reads)."""
    if value.isprintable():
        return value
    return "".join(
        c if c.isprintable() else quote(c, safe="", errors="surrogatepass") for c in value
    )


def _add(
    results: list[dict[str, Any]],
    seen: set[tuple[str, str, int | None]],
    rule: str,
    target: str,
    text: str,
    referrers: list[dict[str, Any]],
    suggestion: dict[str, Any] | None = None,
) -> None:
    """One result per place that links to ``target`` (a local build's file
    served at two URLs, / and /index.html, is one place); with the
    ``suggestion`` as a fix where the link is found in a local build's file."""
    for r in referrers:
        place = (target, r.get("file") or r["url"], r["line"])
        if place in seen:
            continue
        seen.add(place)
        location = _location(r)
        result = {
            "ruleId": rule,
            "level": "error",
            "message": _message(text),
            "locations": [{"physicalLocation": location}],
        }
        if suggestion is not None:
            result.update(_suggested_fix(r, target, suggestion["url"], location))
        results.append(result)


def _suggested_fix(
    referrer: dict[str, Any], target: str, url: str, location: dict[str, Any]
) -> dict[str, Any]:
    """``{"fixes": [...]}``: the link as written in a local build's file
    replaced by the suggested URL (in the same form), exact columns; nothing
    for a live page (its text is not kept) or a link not found on its line."""
    if not referrer.get("file") or referrer["line"] is None:
        return {}
    fix = {"page": referrer["url"], "file": referrer["file"], "line": referrer["line"]}
    region, text = written_edit({**fix, "from": target, "to": url})
    if "startColumn" not in region:
        return {}
    return {"fixes": [_fix(f"Replace {target} with {url}", location, region, text)]}


def _fix(description: str, location: dict[str, Any], region: dict[str, Any], text: str) -> dict:
    return {
        "description": _message(description),
        "artifactChanges": [
            {
                "artifactLocation": location["artifactLocation"],
                "replacements": [{"deletedRegion": region, "insertedContent": {"text": text}}],
            }
        ],
    }


def _location(referrer: dict[str, Any]) -> dict[str, Any]:
    """A page as SARIF locates it: a local build's file (relative: code
    scanning annotates it), else the page's URL; the line when known."""
    uri = _uri(referrer.get("file") or referrer["url"])
    location: dict[str, Any] = {"artifactLocation": {"uri": uri}}
    if referrer["line"] is not None:
        location["region"] = {"startLine": referrer["line"]}
    return location


def _template_result(group: dict[str, Any], text: str) -> dict[str, Any]:
    """A link in the site template: one result at its first page, every
    page that carries it a related location."""
    places = [{"physicalLocation": _location(r)} for r in group["referrers"]]
    related = [{"id": i, **place} for i, place in enumerate(places)]
    return {
        "ruleId": "broken-link",
        "level": "error",
        "message": _message(text),
        "locations": places[:1],
        "relatedLocations": related,
    }


def _fix_result(fix: dict[str, Any]) -> dict[str, Any]:
    """A link to a redirect, with the edit as a SARIF fix: the link's URL
    replaced by where the chain ends, on the link's line (the region is the
    line; a tool locates the URL in it)."""
    place = {"url": fix["page"], "line": fix["line"], "file": fix.get("file")}
    location = _location(place)
    edit = written_edit(fix)
    ends_well = fix["final_outcome"] == "ok" and not fix["loop"]
    result: dict[str, Any] = {
        "ruleId": "redirected-link",
        "level": "warning" if ends_well else "error",
        "message": _message(fix_text(fix)),
        "locations": [{"physicalLocation": location}],
    }
    if ends_well:
        result["fixes"] = [
            {
                "description": _message(f"Replace {fix['from']} with {fix['to']}"),
                "artifactChanges": [
                    {
                        "artifactLocation": location["artifactLocation"],
                        "replacements": [
                            {"deletedRegion": edit[0], "insertedContent": {"text": edit[1]}}
                        ],
                    }
                ],
            }
        ]
    return result
