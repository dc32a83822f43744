"""A build's own findings in words, the same in every format: the first
line (the build, where it starts, the pages read and reached, the orphans,
the sources), the orphans, the files that are not pages, the symbolic links
out of the build (a place's href as written and its source: ``places.py``).

Each function takes a report as :func:`naming.for_reading` names it (its
build's pages and targets by their files) and a ``quote``, the format's way
with a value from a page or a file name (text: as it is, escaped with the
line; markdown: a code span; HTML: escaped).  The report's fields are
``docs/report.md``'s: ``build`` (its ``start``, ``pages``, ``reached``,
``orphans``, ``not_pages``, ``sources``...), an entry's ``orphan`` and
``symlink_out``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from linkaudit.items import Outcome
from linkaudit.output.formats.common import plural
from linkaudit.output.formats.naming import BuildFiles, is_named
from linkaudit.output.report.records import Report, ReportEntry

Quote = Callable[[Any], str]

# The one name of a file reached through a symbolic link that leaves the
# build: its outcome is ok (a server on this machine serves it), a warning
# in every format (SARIF: level warning, rule symlink-out)
SYMLINK_OUT = "symbolic link out of the build"
SYMLINKS_OUT = "Symbolic links out of the build"
SYMLINK_WHY = "served here, but a copy deployed without it would break"
# the warning an entry carries (localbuild/static.py: outside_warning), for
# a report that has no symlink_out yet
_WARNING = "a symbolic link out of the build directory, to "
_WARNING_END = ": " + SYMLINK_WHY
# an orphan's kind (an entry's ``orphan``) -> its heading
ORPHANS = {
    "unlinked": "Orphans, pages no page links to",
    "sitemap": "Only in the sitemap, pages no page links to",
}
NOT_PAGES = "Files that are not pages, named and not read for links"
LISTED = 20  # orphans or files that are not pages a short list names (then how many more)
# the counts of a build's report (``build``) JUnit's and SARIF's properties carry
BUILD_COUNTS = ("pages", "reached", "orphans", "sitemap_only", "symlinks_out")
# how the start page was chosen (``build.start_from``), after its name
_STARTS: dict[str | None, str] = {
    "shallowest index page": ", the shallowest index page",
    "shallowest page": ", the shallowest page (no index page)",
    "--start": ", --start",
    "no page": ": no page to start from",
}
TOOLS = {"mkdocs": "MkDocs", "sphinx": "Sphinx", "hugo": "Hugo", "jekyll": "Jekyll"}


def _same(value: Any) -> str:
    return "" if value is None else str(value)


def build_of(report: Report) -> dict[str, Any] | None:
    """The report's ``build`` section with its files named from here."""
    build = report.get("build")
    if not isinstance(build, dict):
        return None
    if not is_named(report):
        return build
    files = BuildFiles(build)
    named = dict(build)
    if files.directory is not None:
        named["directory"] = files.directory
    if isinstance(build.get("start"), str):
        named["start"] = files.file(build["start"])
    return named


def build_line(report: Report, quote: Quote = _same) -> str:
    """The build in a line, "" for a site: ``public (a build; start
    public/en/index.html, the shallowest index page): 242 pages read, 218
    reached by links, 23 orphans, 1 only in the sitemap; sources: docs
    (MkDocs, 37 of 38 places mapped)``."""
    build = build_of(report)
    if build is None or "pages" not in build:
        return ""
    said = "a build"
    if build.get("root_url"):
        said += f" deployed at {quote(build['root_url'])}"
    if build.get("start"):
        said += f"; start {quote(build['start'])}{_STARTS.get(build.get('start_from'), '')}"
    parts = [
        plural(build["pages"], "page") + " read",
        f"{build.get('reached', 0):,} reached by links",
        plural(build.get("orphans", 0), "orphan"),
    ]
    if build.get("sitemap_only"):
        parts.append(f"{build['sitemap_only']:,} only in the sitemap")
    if build.get("orphans_sought") is False:
        parts.append("the pages no link reached not looked for")
    listed, count = not_pages(report)
    if count:
        parts.append(
            f"{count:,} "
            + ("file that is not a page" if count == 1 else "files that are not pages")
        )
    if build.get("symlinks_out"):
        parts.append(f"{plural(build['symlinks_out'], 'symbolic link')} out of the build")
    line = f"{quote(build.get('directory'))} ({said}): {', '.join(parts)}"
    sources = sources_words(build.get("sources"), quote)
    return f"{line}; {sources}" if sources else line


def sources_words(sources: Any, quote: Quote = _same) -> str:
    """``sources: docs (MkDocs, 37 of 38 places mapped)``; "" when the
    build's sources were not read (``build.sources``)."""
    if not isinstance(sources, dict):
        return ""
    folders = ", ".join(quote(d) for d in sources.get("directories") or ())
    tool = TOOLS.get(sources.get("tool") or "", "")
    mapped, unmapped = sources.get("mapped", 0), sources.get("unmapped", 0)
    how = f"{mapped:,} of {mapped + unmapped:,} places mapped"
    return f"sources: {folders or 'none'} ({tool + ', ' if tool else ''}{how})"


def symlink_target(entry: ReportEntry) -> str | None:
    """Where a symbolic link out of the build leads (the link's own text),
    None for any other entry."""
    if entry.get("outcome") != Outcome.OK:
        return None
    if isinstance(entry.get("symlink_out"), str):
        return entry["symlink_out"]
    warning = entry.get("warning") or ""
    if warning.startswith(_WARNING) and warning.endswith(_WARNING_END):
        return warning[len(_WARNING) : -len(_WARNING_END)]
    return None


def symlinks_out(report: Report) -> list[ReportEntry]:
    """The entries of files reached through a symbolic link out of the build."""
    return [u for u in report["urls"] if symlink_target(u) is not None]


def symlink_words(entry: ReportEntry, quote: Quote = _same) -> str:
    """``symbolic link out of the build, to ../../x.js: served here, but a
    copy deployed without it would break``."""
    return f"{SYMLINK_OUT}, to {quote(symlink_target(entry))}: {SYMLINK_WHY}"


def orphans(report: Report) -> list[tuple[str, list[ReportEntry]]]:
    """The orphan pages, by kind (unlinked, then only in the sitemap):
    (heading, entries), kinds with none left out."""
    found: dict[str, list[ReportEntry]] = {kind: [] for kind in ORPHANS}
    for u in report["urls"]:
        if u.get("orphan") in found:
            found[u["orphan"]].append(u)
    return [(ORPHANS[kind], pages) for kind, pages in found.items() if pages]


def not_pages(report: Report) -> tuple[list[dict[str, Any]], int]:
    """The files of the build that are not pages (named, not scanned), as
    the report lists them (each ``file`` named from here), and how many
    there are (the list may be cut)."""
    build = report.get("build")
    if not isinstance(build, dict):
        return [], 0
    listed = [f for f in build.get("not_pages") or () if isinstance(f, dict)]
    if is_named(report):
        files = BuildFiles(build)
        listed = [{**f, "file": files.file(str(f.get("file", "")))} for f in listed]
    return listed, max(build.get("not_pages_count") or 0, len(listed))
