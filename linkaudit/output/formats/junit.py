"""The report as JUnit XML, for CI dashboards: by default only the URLs
that fail (broken links, missing fragments) or could not be checked
(unchecked, blocked), each a test case in the suite of its outcome; every
URL with ``--junit-all``.  A failure says where the link is, condensed as
the other formats do (``--max-referrers``).

Every value from a page or a server goes through :func:`shown`: XML 1.0 has
no way to write most control characters or a lone surrogate (not even as a
character reference), and a dashboard shows a bidi override as it would act."""

from __future__ import annotations

from xml.etree import ElementTree as ET

from linkaudit.items import Outcome
from linkaudit.output.formats.builds import (
    BUILD_COUNTS,
    LISTED,
    NOT_PAGES,
    SYMLINKS_OUT,
    build_line,
    not_pages,
    orphans,
    symlink_target,
    symlink_words,
)
from linkaudit.output.formats.common import (
    Report,
    app_shells,
    archive_lines,
    ending,
    groups_by_target,
    places_of,
    plural,
    shown,
    target,
)
from linkaudit.output.formats.naming import for_reading
from linkaudit.output.formats.offline import offline_line
from linkaudit.output.formats.places import DEFAULT, Options
from linkaudit.output.report.records import ReportEntry

SYMLINKS_SUITE = SYMLINKS_OUT.lower()
# the suites, in the order a reader acts on them; the last three only with
# --junit-all
_SUITES = (
    "broken",
    "missing fragments",
    SYMLINKS_SUITE,  # ok, a warning each: its case passes, and says it (system-out)
    "behind bot walls",  # unchecked: a wall answered (rules/walls.py), named
    "built by JavaScript",  # one case: the pages whose links were not checked
    "unchecked",
    "blocked",
    "redirect",
    "excluded",
    "ok",
)
_NOT_VERIFIED = ("unchecked", "blocked", "excluded")
SHELLS_LISTED = 20  # pages built by JavaScript a case lists


def as_junit(report: Report, options: Options = DEFAULT) -> str:
    """A suite per outcome: a failure per broken URL and per missing
    fragment, a skip per URL not verified, a pass per other URL; a
    build's pages and targets named by their files (``naming.py``)."""
    report = for_reading(report)
    cases: dict[str, list[ET.Element]] = {name: [] for name in _SUITES}
    shown_outcomes = set(_SUITES) if options.junit_all else {"broken", "unchecked", "blocked"}
    limit = options.max_referrers
    by_target = groups_by_target(report)  # template lines, as text and markdown say them
    for u in report["urls"]:
        for gap in u.get("missing_fragments", ()):
            named = target(u, gap["fragment"])
            lines = [f"{named}: no such anchor on the page"]
            lines += places_of(gap["referrers"], None, {}, limit=limit)
            cases["missing fragments"].append(_case(u, named, "failure", "missing fragment", lines))
        if symlink_target(u) is not None:  # a build's file out of it: passes, said
            lines = [f"{target(u)}: {symlink_words(u)}"]
            lines += places_of(u["referrers"], u, {}, limit=limit)
            cases[SYMLINKS_SUITE].append(_case(u, target(u), "system-out", lines=lines))
            continue
        if u["outcome"] not in shown_outcomes:
            continue
        if u["outcome"] == Outcome.BROKEN:
            lines = [f"{target(u)}: {u['error']}", *archive_lines(u)]
            lines += places_of(u["referrers"], u, by_target, limit=limit)
            cases["broken"].append(_case(u, target(u), "failure", u["error"] or "broken", lines))
        elif u["outcome"] == Outcome.UNCHECKED and (wall := u.get("wall")):
            lines = [f"{target(u)}: {u['error']}"]
            lines += places_of(u["referrers"], u, {}, limit=limit)
            message = f"could not verify: behind {wall}"
            cases["behind bot walls"].append(_case(u, target(u), "skipped", message, lines))
        elif u["outcome"] in _NOT_VERIFIED:
            cases[u["outcome"]].append(_case(u, target(u), "skipped", u["error"] or u["outcome"]))
        else:
            cases[u["outcome"]].append(_case(u, target(u)))
    words, shells = app_shells(report)
    if shells:  # one notice, skipped: the pages' links were not checked
        lines = [f"{target(u)}  [{u['app_shell']}]" for u in shells[:SHELLS_LISTED]]
        if len(shells) > SHELLS_LISTED:
            lines.append(f"and {len(shells) - SHELLS_LISTED:,} more pages (the JSON report)")
        first = shells[0]
        cases["built by JavaScript"].append(_case(first, words, "skipped", words, lines))
    root = ET.Element("testsuites", name="linkaudit")
    root.append(_audit_suite(report))
    for name, found in cases.items():
        if found:
            suite = ET.SubElement(root, "testsuite", name=name, timestamp=_when(report))
            suite.extend(found)
            _count(suite, found)
    _count(root, list(root.iter("testcase")))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode")


def _case(
    entry: ReportEntry,
    name: str,
    kind: str | None = None,
    message: str = "",
    lines: list[str] | None = None,
) -> ET.Element:
    case = ET.Element("testcase", classname="near" if entry["near"] else "far", name=shown(name))
    if kind is not None:
        child = ET.SubElement(case, kind, message=shown(message))
        if kind == "system-out":  # (what a passing case says: no message)
            del child.attrib["message"]
        if lines:
            # each line escaped whole: our words are printable, only the values change
            child.text = "\n".join(shown(line) for line in lines)
    return case


def _when(report: Report) -> str:
    """The audit's start, as an attribute (what XML 1.0 cannot hold escaped)."""
    return shown(report["started_at"])


def _audit_suite(report: Report) -> ET.Element:
    """The audit itself, one passing case: a dashboard always has a test,
    and what was checked is in its name."""
    s = report["summary"]
    suite = ET.Element("testsuite", name="audit", timestamp=_when(report))
    name = f"{plural(s['urls'], 'URL')}, {plural(s['pages'], 'page')} ({ending(report)})"
    first = build_line(report)
    offline = offline_line(report)  # a machine that seems offline: the property first
    if offline:
        properties = ET.SubElement(suite, "properties")
        ET.SubElement(properties, "property", name="offline", value=shown(offline))
    if first:  # a build: what was read and where it started, and its counts
        found = suite.find("properties")  # (an element is falsy without children)
        properties = found if found is not None else ET.SubElement(suite, "properties")
        ET.SubElement(properties, "property", name="build", value=shown(first))
        build = report["build"]
        for key in BUILD_COUNTS:
            if isinstance(build.get(key), int):
                ET.SubElement(properties, "property", name=f"build.{key}", value=str(build[key]))
    case = ET.SubElement(suite, "testcase", classname="linkaudit", name=shown(name))
    if offline:  # the audit itself skipped: a dashboard shows why, in its message
        ET.SubElement(case, "skipped", message=shown(offline))
    if first:  # the first line, then the build's pages and files to look at
        said = ET.SubElement(case, "system-out")
        said.text = "\n".join(shown(line) for line in [first, *_build_lists(report)])
    _count(suite, [case])
    return suite


def _build_lists(report: Report) -> list[str]:
    """A build's orphan pages and files that are not pages, the first
    :data:`LISTED` of each (the JSON report has them all)."""
    lines = []
    for heading, pages in orphans(report):
        lines.append(f"{heading} ({len(pages):,}):")
        lines.extend(f"  {target(u)}" for u in pages[:LISTED])
        if len(pages) > LISTED:
            lines.append(f"  and {len(pages) - LISTED:,} more (the JSON report)")
    listed, count = not_pages(report)
    if count:
        lines.append(f"{NOT_PAGES} ({count:,}):")
        lines.extend(f"  {f.get('file')}  [{f.get('reason')}]" for f in listed[:LISTED])
        if count > min(len(listed), LISTED):
            lines.append(f"  and {count - min(len(listed), LISTED):,} more (the JSON report)")
    return lines


def _count(element: ET.Element, cases: list[ET.Element]) -> None:
    element.set("tests", str(len(cases)))
    element.set("failures", str(sum(c.find("failure") is not None for c in cases)))
    element.set("errors", "0")
    element.set("skipped", str(sum(c.find("skipped") is not None for c in cases)))
