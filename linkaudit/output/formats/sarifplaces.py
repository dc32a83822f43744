"""Where SARIF locates a finding: its results, their locations and messages.

Messages are plain text (``message.text``, never ``markdown``), in which
SARIF reads ``[text](target)`` as a link and ``{0}`` as a placeholder
(section 3.11.5-6): a message quoting a page's href ``[click](https://...)``
would become a link in GitHub code scanning.  So every message goes through
:func:`message`: its values shown (:func:`shown`), then ``\\``, ``[`` and
``]`` escaped with a backslash and braces doubled, as the spec says.

A place of a site's page is located by the page's URL.  A build's is
located by a file from the root of the git work tree it is in (code
scanning annotates the repository's file at that path): the source file
and line the page was built from when the report knows it (``source``; a
link whose URL a definition holds, at the definition's line, the line to
edit), else the built file and its line; the built place and the href as
written are the location's message.
"""

from __future__ import annotations

import os
from typing import Any
from urllib.parse import quote

from linkaudit.output.formats.common import Report, no_line, shown
from linkaudit.output.formats.naming import BuildFiles, is_named, namer, repository_path
from linkaudit.output.formats.places import distinct, link_count, linked_from
from linkaudit.output.report.records import Place, SourceAt

_SARIF_ESCAPES = str.maketrans({"\\": "\\\\", "[": "\\[", "]": "\\]", "{": "{{", "}": "}}"})
# GitHub code scanning refuses a result with more than 1,000 locations
# (and shows 100): the first place and 999 related ones at most, the places
# past them counted in the message
MAX_RELATED = 999


def message(text: str) -> dict[str, str]:
    """A message object for ``text`` (our words, which hold none of the
    characters escaped here, and values from pages and servers)."""
    return {"text": shown(text).translate(_SARIF_ESCAPES)}


def uri(value: str) -> str:
    """A page or file as a URI reference: what is not printable (never in
    a URL that was fetched, but a state or a build's file name may hold
    it) percent-encoded, the rest as it is (an IRI GitHub reads)."""
    if value.isprintable():
        return value
    return "".join(
        c if c.isprintable() else quote(c, safe="", errors="surrogatepass") for c in value
    )


class Locator:
    """How one report's places are located and its URLs named."""

    def __init__(self, report: Report):
        self.report = report
        self.name = namer(report)  # a target in words: a build's by its path
        self.files = BuildFiles(report["build"]) if is_named(report) else None

    def artifact(self, referrer: Place) -> str:
        """A built place's artifact: a build's file, from the root of the
        git work tree it is in, or relative to the current directory
        outside any; a page of a site by its URL."""
        file = referrer.get("file")
        if not file and self.files is not None:  # a file of the build no page names
            path = self.files.path_of(referrer["url"])
            file = os.path.abspath(path.partition("#")[0]) if path else None
        if file and self.files is not None:
            return repository_path(file, self.report)
        return file or referrer["url"]  # (an older report's build, named by its address)

    def location(self, referrer: Place, built: bool = False) -> dict[str, Any]:
        """A place as SARIF locates it (module doc), with its line when
        known; ``built``: the built file whatever its source (an edit's)."""
        source = None if built else _source(referrer)
        line: int | None
        if source is not None:
            at, line = repository_path(source["file"], self.report), source.get("line")
        else:
            at, line = self.artifact(referrer), referrer["line"]
        location: dict[str, Any] = {"artifactLocation": {"uri": uri(at)}}
        if line is not None:
            location["region"] = {"startLine": line}
        return location

    def place(self, referrer: Place) -> dict[str, Any]:
        """A place as a SARIF location, with what it is when it does not
        link the target itself (a redirect that leads here, a page's link
        through one: ``via``, a link only the rendered page has), the built
        place of a source's, and the href as written."""
        place: dict[str, Any] = {"physicalLocation": self.location(referrer)}
        notes = []
        if _source(referrer) is not None:
            built = referrer.get("file") or referrer["url"]
            notes.append(f"built {built}:{referrer['line']}" if referrer["line"] else built)
        if referrer.get("via"):
            notes.append(f"links {self.name(referrer['via'])}, which redirects here")
        elif referrer["line"] is None:
            why = no_line(referrer)
            notes.append("redirects here" if why == "redirect" else why)
        if isinstance(referrer.get("href"), str):
            notes.append(f"written as {referrer['href']}")
        if notes:
            place["message"] = message("; ".join(notes))
        return place

    def result(
        self,
        rule: str,
        target: str,
        text: str,
        referrers: list[Place],
        count: int | None = None,
        level: str = "error",
    ) -> dict[str, Any]:
        """One result for ``target``: at its first place (a local build's
        file served at two URLs, / and /index.html, is one place; several
        links on one line are one), the others related; the target itself
        when no page links to it (a start URL, a sitemap's, a file of the
        build)."""
        places = [r for r, _n in distinct(referrers)] or [{"url": target, "line": None}]
        # located at a page and line that links the target (code scanning
        # annotates a line): a redirect that leads here has no line, and is a
        # related location like any other place
        first = next((i for i, r in enumerate(places) if r["line"] is not None), 0)
        if first:
            places.insert(0, places.pop(first))
        related = places[1 : MAX_RELATED + 1]
        if isinstance(places[0].get("href"), str):  # the link as the page wrote it
            text += f"; written as {places[0]['href']}"
        if referrers:
            text += f"; {linked_from(referrers, count)}"
            left = len(places) - 1 - len(related)
            text += f"; {left:,} more places in the report" if left else ""
        result: dict[str, Any] = {
            "ruleId": rule,
            "level": level,
            "message": message(text),
            "locations": [self.place(places[0])],
            # the links "linked from" counts: pages' links, through redirects too
            "properties": {"referrerCount": link_count(referrers, count), "places": len(places)},
        }
        if related:
            result["relatedLocations"] = [
                {"id": i, **self.place(r)} for i, r in enumerate(related, 1)
            ]
        result["_places"] = places[: MAX_RELATED + 1]  # for the fixes; removed at the end
        return result


def _source(referrer: Place) -> SourceAt | None:
    """The source place to locate: the definition's when the link's URL is
    written there, else the link's own; None for a place without one."""
    source = referrer.get("source")
    if not isinstance(source, dict) or not isinstance(source.get("file"), str):
        return None
    defined = source.get("defined")
    if isinstance(defined, dict) and isinstance(defined.get("file"), str):
        return defined
    return source
