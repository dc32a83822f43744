"""The report as SARIF 2.1.0, for code-scanning tools: each broken target
one result, located at the first page and line that links to it, the
other places its related locations.

Messages are plain text (``message.text``, never ``markdown``), in which
SARIF reads ``[text](target)`` as a link and ``{0}`` as a placeholder
(section 3.11.5-6): a message quoting a page's href ``[click](https://...)``
would become a link in GitHub code scanning.  So every message goes through
:func:`_message`: its values shown (:func:`shown`), then ``\\``, ``[`` and
``]`` escaped with a backslash and braces doubled, as the spec says."""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from typing import Any
from urllib.parse import quote

from linkaudit import PROJECT_URL, __version__
from linkaudit.output.formats.common import (
    Report,
    app_shells,
    broken_urls,
    groups_by_target,
    missing_fragments,
    no_line,
    shown,
    walled,
)
from linkaudit.output.formats.naming import for_reading, namer, repository_path
from linkaudit.output.formats.places import distinct, link_count, linked_from
from linkaudit.output.jsontext import json_text
from linkaudit.output.report.groups import group_text
from linkaudit.output.report.redirects import fix_words, written_edit
from linkaudit.rules.suggest import suggestion_text


def as_sarif(report: Report, options: object = None) -> str:
    """SARIF 2.1.0: one result per broken target and kind (a broken URL, a
    missing fragment, a link to a permanent or temporary redirect), located
    at the first place that links to it, every other place a related
    location: one missing file is one code-scanning alert, not a thousand."""
    # a build's pages are located by their files (from the root of the git
    # work tree they are in), its targets named by their paths
    name = namer(report)
    places, names = _PLACES.set(lambda r: _artifact(r, report)), _NAME.set(name)
    try:
        return _sarif(report, name)
    finally:
        _PLACES.reset(places)
        _NAME.reset(names)


def _sarif(report: Report, name: Callable[[str], str]) -> str:
    results: list[dict[str, Any]] = []
    named = for_reading(report)
    by_target = groups_by_target(named)
    root = (report.get("build") or {}).get("url")  # a build's root, as its report names it
    for u in broken_urls(report):
        text = f"Broken link to {name(u['url'])}: {u['error']}"
        if u.get("suggestion"):
            suggested = {**u["suggestion"], "url": name(u["suggestion"]["url"])}
            said = suggestion_text(suggested, u["url"])
            text += f"; {said}"
        # the largest template block in words (they come most pages first)
        blocks = [g for g in by_target.get(name(u["url"]), ()) if g["kind"] == "template"]
        if blocks:
            text += f"; {group_text(blocks[0])}"
            text += f" and {len(blocks) - 1} other blocks" if len(blocks) > 1 else ""
        result = _result("broken-link", u["url"], text, u["referrers"], u.get("referrer_count"))
        if u.get("suggestion"):
            fixes = _suggested_fixes(result, u["url"], u["suggestion"]["url"], root, name)
            result.update(fixes)
        if "broken_since" in u:  # --db: how long it has been broken
            since = {"brokenSince": u["broken_since"], "auditsBroken": u["audits_broken"]}
            result["properties"].update(since)
        results.append(result)
    for u, gap in missing_fragments(report):
        target = f"{u['url']}#{gap['fragment']}"
        text = f"Link to a missing fragment: {name(target)} (the page has no such anchor)"
        results.append(_result("missing-fragment", target, text, gap["referrers"]))
    fixes: dict[str, list[dict[str, Any]]] = {}
    for fix in report.get("redirect_fixes") or ():
        fixes.setdefault(fix["from"], []).append(fix)
    results.extend(_fix_result(chosen, root, name) for chosen in fixes.values())
    for wall, urls in walled(report):  # not broken: a note, apart from the errors
        for u in urls:
            text = f"Could not verify {name(u['url'])}, behind {wall}: {u['error']}"
            found = _result("bot-wall", u["url"], text, u["referrers"], u.get("referrer_count"))
            found["level"] = "note"
            found["properties"]["wall"] = wall
            results.append(found)
    shells = _shells_result(report, name)
    if shells is not None:
        results.append(shells)
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
                                "id": "bot-wall",
                                "shortDescription": {
                                    "text": "A link a bot wall kept from being checked: not"
                                    " broken, not verified either"
                                },
                                "helpUri": PROJECT_URL,
                            },
                            {
                                "id": "app-shell",
                                "shortDescription": {
                                    "text": "Pages built by JavaScript whose links were not"
                                    " checked (--render auto checks them)"
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
    for result in results:
        result.pop("_places", None)
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


# GitHub code scanning refuses a result with more than 1,000 locations
# (and shows 100): the first place and 999 related ones at most, the places
# past them counted in the message
MAX_RELATED = 999


def _result(
    rule: str,
    target: str,
    text: str,
    referrers: list[dict[str, Any]],
    count: int | None = None,
    level: str = "error",
) -> dict[str, Any]:
    """One result for ``target``: at its first place (a local build's file
    served at two URLs, / and /index.html, is one place; several links on
    one line are one), the others related; the target itself when no page
    links to it (a start URL, a sitemap's)."""
    places = [r for r, _n in distinct(referrers)] or [{"url": target, "line": None}]
    # located at a page and line that links the target (code scanning
    # annotates a line): a redirect that leads here has no line, and is a
    # related location like any other place
    first = next((i for i, r in enumerate(places) if r["line"] is not None), 0)
    if first:
        places.insert(0, places.pop(first))
    related = places[1 : MAX_RELATED + 1]
    if referrers:
        text += f"; {linked_from(referrers, count)}"
        left = len(places) - 1 - len(related)
        text += f"; {left:,} more places in the report" if left else ""
    result: dict[str, Any] = {
        "ruleId": rule,
        "level": level,
        "message": _message(text),
        "locations": [_place(places[0])],
        # the links "linked from" counts: pages' links, through redirects too
        "properties": {"referrerCount": link_count(referrers, count), "places": len(places)},
    }
    if related:
        result["relatedLocations"] = [{"id": i, **_place(r)} for i, r in enumerate(related, 1)]
    result["_places"] = places[: MAX_RELATED + 1]  # for the fixes; removed below
    return result


def _suggested_fixes(
    result: dict[str, Any], target: str, url: str, root: str | None, name: Callable[[str], str]
) -> dict[str, Any]:
    """``{"fixes": [...]}``: the link as written in a local build's files
    replaced by the suggested URL (in the same form), exact columns, in
    every place it is found; nothing for a live page (its text is not
    kept) or a link not found on its line."""
    edits = []
    for r in result.pop("_places"):
        if not r.get("file") or r["line"] is None or r.get("via"):
            continue  # (through a redirect, the line holds the redirect's URL)
        fix = {"page": r["url"], "file": r["file"], "line": r["line"]}
        region, text = written_edit({**fix, "from": target, "to": url}, root)
        if "startColumn" in region:
            edits.append((_location(r)["artifactLocation"], region, text))
    if not edits:
        return {}
    return {"fixes": [_fix(f"Replace {name(target)} with {name(url)}", edits)]}


def _fix(description: str, edits: list[tuple[dict[str, Any], dict[str, Any], str]]) -> dict:
    """A SARIF fix: its replacements gathered per file."""
    changes: dict[str, dict[str, Any]] = {}
    for artifact, region, text in edits:
        change = changes.setdefault(artifact["uri"], {"artifactLocation": artifact})
        replacement = {"deletedRegion": region, "insertedContent": {"text": text}}
        change.setdefault("replacements", []).append(replacement)
    return {"description": _message(description), "artifactChanges": list(changes.values())}


def _place(referrer: dict[str, Any]) -> dict[str, Any]:
    """A place as a SARIF location, with what it is when it does not link
    the target itself: a redirect that leads here, a page's link through
    one (``via``), a link only the rendered page has."""
    place: dict[str, Any] = {"physicalLocation": _location(referrer)}
    if referrer.get("via"):
        place["message"] = _message(f"links {_NAME.get()(referrer['via'])}, which redirects here")
    elif referrer["line"] is None:
        why = no_line(referrer)
        place["message"] = _message("redirects here" if why == "redirect" else why)
    return place


# how the report being told locates a place (its build's files from the
# root of their git work tree): set by as_sarif for the helpers below
_PLACES: ContextVar[Callable[[dict[str, Any]], str]] = ContextVar(
    "places", default=lambda r: r.get("file") or r["url"]
)
_NAME: ContextVar[Callable[[str], str]] = ContextVar("name", default=str)


def _artifact(referrer: dict[str, Any], report: Report) -> str:
    """A place's artifact: a build's file, from the root of the git work
    tree it is in (code scanning annotates the repository's file at that
    path), or relative to the current directory outside any; a page of a
    site by its URL."""
    if referrer.get("file"):
        return repository_path(referrer["file"], report)
    return _NAME.get()(referrer["url"])


def _location(referrer: dict[str, Any]) -> dict[str, Any]:
    """A page as SARIF locates it: a local build's file (relative: code
    scanning annotates it), else the page's URL; the line when known."""
    uri = _uri(_PLACES.get()(referrer))
    location: dict[str, Any] = {"artifactLocation": {"uri": uri}}
    if referrer["line"] is not None:
        location["region"] = {"startLine": referrer["line"]}
    return location


def _fix_result(
    chosen: list[dict[str, Any]], root: str | None, name: Callable[[str], str]
) -> dict[str, Any]:
    """A link to a redirect, wherever it is, with the edit as a SARIF fix:
    the link's URL replaced by where the chain ends, on each link's line
    (the region is the line for a live page; a tool locates the URL in it)."""
    first = chosen[0]
    places = [{"url": f["page"], "line": f["line"], "file": f.get("file")} for f in chosen]
    ends_well = first["final_outcome"] == "ok" and not first["loop"]
    text = (
        f"Link to a redirect: replace {name(first['from'])} with {name(first['to'])}"
        f" ({fix_words(first)})"
    )
    result = _result(
        "redirected-link", first["from"], text, places, level="warning" if ends_well else "error"
    )
    kept = {(p.get("file") or p["url"], p["line"]) for p in result.pop("_places")}
    if ends_well:
        edits = []
        for fix, place in zip(chosen, places, strict=True):
            if (place.get("file") or place["url"], place["line"]) in kept:
                edit = (_location(place)["artifactLocation"], *written_edit(fix, root))
                if edit not in edits:  # two links on a line: one edit each form
                    edits.append(edit)
        words = f"Replace {name(first['from'])} with {name(first['to'])}"
        result["fixes"] = [_fix(words, edits)]
    return result


def _shells_result(report: Report, name: Callable[[str], str]) -> dict[str, Any] | None:
    """The pages that look built by JavaScript, not rendered: one note, at
    the first page, the others related (one notice, not one per page)."""
    words, pages = app_shells(report)
    if not pages:
        return None
    places = [{"url": u["url"], "line": None} for u in pages]
    related = places[1 : MAX_RELATED + 1]
    text = f"{words} ({name(pages[0]['url'])}: {pages[0]['app_shell']})"
    left = len(places) - 1 - len(related)
    text += f"; {left:,} more pages in the report" if left else ""
    result: dict[str, Any] = {
        "ruleId": "app-shell",
        "level": "note",
        "message": _message(text),
        "locations": [{"physicalLocation": _location(places[0])}],
        "properties": {"pages": len(pages)},
    }
    if related:
        result["relatedLocations"] = [
            {"id": i, "physicalLocation": _location(r)} for i, r in enumerate(related, 1)
        ]
    return result
