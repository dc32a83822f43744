"""The report as SARIF 2.1.0, for code-scanning tools: each broken target
one result, located at the first page and line that links to it (a
build's: its source line when known, ``sarifplaces.py``), the other places
its related locations.  A build's symbolic link out is a warning (rule
``symlink-out``), its orphan pages a note; what was read is the run's
``properties.build``."""

from __future__ import annotations

from typing import Any

from linkaudit import PROJECT_URL, __version__
from linkaudit.items import GroupKind
from linkaudit.output.formats.builds import (
    BUILD_COUNTS,
    SYMLINK_OUT,
    build_line,
    not_pages,
    orphans,
    symlink_target,
    symlink_words,
    symlinks_out,
)
from linkaudit.output.formats.common import (
    Report,
    app_shells,
    broken_urls,
    groups_by_target,
    missing_fragments,
    shown,
    walled,
)
from linkaudit.output.formats.naming import for_reading
from linkaudit.output.formats.offline import sarif_invocations
from linkaudit.output.formats.places import fix_place
from linkaudit.output.formats.sarifedits import written_edit
from linkaudit.output.formats.sarifplaces import MAX_RELATED, Locator, message
from linkaudit.output.jsontext import json_text
from linkaudit.output.report.records import Place, RedirectFix, SuggestionRecord
from linkaudit.output.words import fix_words, group_text
from linkaudit.rules.suggest import suggestion_text


def as_sarif(report: Report, options: object = None) -> str:
    """SARIF 2.1.0: one result per broken target and kind (a broken URL, a
    missing fragment, a link to a permanent or temporary redirect), located
    at the first place that links to it, every other place a related
    location: one missing file is one code-scanning alert, not a thousand."""
    at = Locator(report)
    name = at.name
    results: list[dict[str, Any]] = []
    named = for_reading(report)
    by_target = groups_by_target(named)
    root = (report.get("build") or {}).get("url")  # a build's root, as its report names it
    for u in broken_urls(report):
        text = f"Broken link to {name(u['url'])}: {u['error']}"
        if u.get("suggestion"):
            suggested: SuggestionRecord = {**u["suggestion"], "url": name(u["suggestion"]["url"])}
            text += f"; {suggestion_text(suggested, u['url'])}"
        # the largest template block in words (they come most pages first)
        blocks = [g for g in by_target.get(name(u["url"]), ()) if g["kind"] == GroupKind.TEMPLATE]
        if blocks:
            text += f"; {group_text(blocks[0])}"
            text += f" and {len(blocks) - 1} other blocks" if len(blocks) > 1 else ""
        copy = u.get("archived")
        if copy:
            text += f"; archived copy ({str(copy['date'])[:10]}): {copy['url']}"
        elif "archived" in u:
            text += f"; no archived copy ({u.get('archive_note')})"
        result = at.result("broken-link", u["url"], text, u["referrers"], u.get("referrer_count"))
        if u.get("suggestion"):
            result.update(_suggested_fixes(at, result, u["url"], u["suggestion"]["url"], root))
        if copy:  # --archive: the copy readers saw
            archived = {"archivedCopy": copy["url"], "archivedDate": copy["date"]}
            result["properties"].update(archived, robustLink=copy["markup"])
        if "broken_since" in u:  # --db: how long it has been broken
            since = {"brokenSince": u["broken_since"], "auditsBroken": u["audits_broken"]}
            result["properties"].update(since)
        results.append(result)
    for u, gap in missing_fragments(report):
        target = f"{u['url']}#{gap['fragment']}"
        text = f"Link to a missing fragment: {name(target)} (the page has no such anchor)"
        results.append(at.result("missing-fragment", target, text, gap["referrers"]))
    fixes: dict[str, list[RedirectFix]] = {}
    for fix in report.get("redirect_fixes") or ():
        fixes.setdefault(fix["from"], []).append(fix)
    results.extend(_fix_result(at, chosen, root) for chosen in fixes.values())
    for wall, urls in walled(report):  # not broken: a note, apart from the errors
        for u in urls:
            text = f"Could not verify {name(u['url'])}, behind {wall}: {u['error']}"
            found = at.result("bot-wall", u["url"], text, u["referrers"], u.get("referrer_count"))
            found["level"] = "note"
            found["properties"]["wall"] = wall
            results.append(found)
    shells = _shells_result(at, report)
    if shells is not None:
        results.append(shells)
    results.extend(_build_results(at, report))
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
                            {
                                "id": "symlink-out",
                                "shortDescription": {
                                    "text": f"A file of the build reached through a {SYMLINK_OUT}:"
                                    " a copy deployed without its target breaks it"
                                },
                                "helpUri": PROJECT_URL,
                            },
                            {
                                "id": "orphan-page",
                                "shortDescription": {
                                    "text": "Pages of the build no page links to (read, and"
                                    " their links checked, all the same)"
                                },
                                "helpUri": PROJECT_URL,
                            },
                        ],
                    }
                },
                **sarif_invocations(report),  # a machine that seems offline, first
                "results": results,
                **_run_properties(report),
            }
        ],
    }
    for result in results:
        result.pop("_places", None)
    return json_text(sarif, indent=1)


def _suggested_fixes(
    at: Locator, result: dict[str, Any], target: str, url: str, root: str | None
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
            edits.append((at.location(r, built=True)["artifactLocation"], region, text))
    if not edits:
        return {}
    return {"fixes": [_fix(f"Replace {at.name(target)} with {at.name(url)}", edits)]}


def _fix(description: str, edits: list[tuple[dict[str, Any], dict[str, Any], str]]) -> dict:
    """A SARIF fix: its replacements gathered per file."""
    changes: dict[str, dict[str, Any]] = {}
    for artifact, region, text in edits:
        change = changes.setdefault(artifact["uri"], {"artifactLocation": artifact})
        replacement = {"deletedRegion": region, "insertedContent": {"text": text}}
        change.setdefault("replacements", []).append(replacement)
    return {"description": message(description), "artifactChanges": list(changes.values())}


def _fix_result(at: Locator, chosen: list[RedirectFix], root: str | None) -> dict[str, Any]:
    """A link to a redirect, wherever it is, with the edit as a SARIF fix:
    the link's URL replaced by where the chain ends, on each link's line
    (the region is the line for a live page; a tool locates the URL in it)."""
    first = chosen[0]
    places = [fix_place(f) for f in chosen]
    ends_well = first["final_outcome"] == "ok" and not first["loop"]
    name = at.name
    text = (
        f"Link to a redirect: replace {name(first['from'])} with {name(first['to'])}"
        f" ({fix_words(first)})"
    )
    result = at.result(
        "redirected-link", first["from"], text, places, level="warning" if ends_well else "error"
    )
    kept = {(p.get("file") or p["url"], p["line"]) for p in result.pop("_places")}
    if ends_well:
        edits = []
        for fix, place in zip(chosen, places, strict=True):
            if (place.get("file") or place["url"], place["line"]) in kept:
                artifact = at.location(place, built=True)["artifactLocation"]
                edit = (artifact, *written_edit(fix, root))
                if edit not in edits:  # two links on a line: one edit each form
                    edits.append(edit)
        words = f"Replace {name(first['from'])} with {name(first['to'])}"
        result["fixes"] = [_fix(words, edits)]
    return result


def _shells_result(at: Locator, report: Report) -> dict[str, Any] | None:
    """The pages that look built by JavaScript, not rendered: one note, at
    the first page, the others related (one notice, not one per page)."""
    words, pages = app_shells(report)
    if not pages:
        return None
    places: list[Place] = [{"url": u["url"], "line": None} for u in pages]
    related = places[1 : MAX_RELATED + 1]
    text = f"{words} ({at.name(pages[0]['url'])}: {pages[0]['app_shell']})"
    left = len(places) - 1 - len(related)
    text += f"; {left:,} more pages in the report" if left else ""
    result: dict[str, Any] = {
        "ruleId": "app-shell",
        "level": "note",
        "message": message(text),
        "locations": [{"physicalLocation": at.location(places[0])}],
        "properties": {"pages": len(pages)},
    }
    if related:
        result["relatedLocations"] = [
            {"id": i, "physicalLocation": at.location(r)} for i, r in enumerate(related, 1)
        ]
    return result


def _build_results(at: Locator, report: Report) -> list[dict[str, Any]]:
    """A build's own findings: each symbolic link out a warning, at the
    pages that link it (at the file itself when the report keeps none);
    the orphan pages of each kind one note, at the first, the others
    related (one notice, not one per page).  A result at a file, not at a
    link, is at its first line (code scanning annotates a line)."""
    results = []
    for u in symlinks_out(report):
        text = f"{at.name(u['url'])}: {symlink_words(u)}"
        found = at.result("symlink-out", u["url"], text, u["referrers"], u.get("referrer_count"))
        found["level"] = "warning"
        found["properties"]["symlinkTarget"] = symlink_target(u)
        found["locations"][0]["physicalLocation"].setdefault("region", {"startLine": 1})
        results.append(found)
    for heading, pages in orphans(report):
        # (a page's file as the report read back holds it: null at worst)
        places: list[Any] = [{"url": u["url"], "line": 1, "file": u.get("file")} for u in pages]
        related = places[1 : MAX_RELATED + 1]
        text = f"{heading}: {len(pages):,} ({at.name(pages[0]['url'])} first)"
        found = {
            "ruleId": "orphan-page",
            "level": "note",
            "message": message(text),
            "locations": [{"physicalLocation": at.location(places[0])}],
            "properties": {"pages": len(pages), "orphan": pages[0]["orphan"]},
        }
        if related:
            found["relatedLocations"] = [
                {"id": i, "physicalLocation": at.location(r)} for i, r in enumerate(related, 1)
            ]
        results.append(found)
    return results


def _run_properties(report: Report) -> dict[str, Any]:
    """A build's first line and counts, the run's ``properties.build``."""
    first = build_line(report)
    if not first:
        return {}
    build = report["build"]
    said: dict[str, Any] = {"summary": shown(first)}
    for key in ("directory", "start", "start_from", "root_url", *BUILD_COUNTS):
        if build.get(key) is not None:
            said[key] = build[key]
    listed, count = not_pages(report)
    if count:
        said["not_pages"] = [{"file": f.get("file"), "reason": f.get("reason")} for f in listed]
        said["not_pages_count"] = count
    if isinstance(build.get("sources"), dict):
        said["sources"] = build["sources"]
    return {"properties": {"build": said}}
