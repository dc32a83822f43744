"""The command's last step: the report read back from its file (or
rebuilt from the journal when it could not be written), shown in the
format asked for, and the exit code it calls for."""

from __future__ import annotations

import os
import shutil
import sys
from urllib.parse import urlsplit

from linkaudit.config import Config
from linkaudit.output.exitstatus import EXIT_USAGE, exit_code
from linkaudit.output.formats import FORMATS
from linkaudit.output.formats.common import shown
from linkaudit.output.formats.places import DEFAULT, Options
from linkaudit.output.journal import read_journal, rebuild_report
from linkaudit.output.report.build import read_report
from linkaudit.output.report.records import Report
from linkaudit.rules.scope import directory_of, site_prefix


def show_report(
    config: Config, fmt: str, fail_on: str, options: Options = DEFAULT, quiet: bool = False
) -> int:
    """Print the report as ``fmt``, then where the files are (stderr); the
    exit code.  ``quiet``: nothing at all when the exit code is 0.  JSON is
    the file as written (copied, never decoded); HTML and ``--junit-all``
    list every URL; the other formats and the exit code need only the
    entries that are not ok (a report rebuilt from the journal has them
    all)."""
    report = _load_report(config, lean=not every_entry(fmt, options))
    if report is None:
        print("linkaudit: error: the audit left no report and no journal", file=sys.stderr)
        return EXIT_USAGE
    code = exit_code(report, fail_on)
    if quiet and fmt == "text" and exit_code(report, "broken") == 0:
        return code  # -q: a clean audit says nothing (other formats are data: printed)
    if not quiet:
        for note in scope_notes(report) + source_notes(report):
            print(f"linkaudit: {note}", file=sys.stderr)
    if "changed_since" in report and fmt != "json":
        report = in_change(report)
    try:
        if not (fmt == "json" and _copy(config.report)):
            print(FORMATS[fmt](report, options))
            sys.stdout.flush()
    except BrokenPipeError:  # `linkaudit URL | head`: the verdict stands
        reader_left()
    if not quiet:
        print(f"linkaudit: {written(config)}", file=sys.stderr)
    return code


def written(config: Config) -> str:
    """Where the audit's files are: the report, and the HTML report and the
    fix-list when asked for."""
    files = [f"report {config.report}"]
    for setting, what in (
        ("LINKAUDIT_HTML", "HTML report"),
        ("LINKAUDIT_REDIRECT_FIXES", "fix-list"),
    ):
        if config[setting]:
            files.append(f"{what} {config[setting]}")
    return shown("written: " + ", ".join(files))


def scope_notes(report: Report) -> list[str]:
    """What the user should know of the site's extent: a start URL read as
    its directory, and a site that turned out to be one page when its
    directory may have been meant."""
    notes = []
    starts, prefixes = report.get("start_urls", []), report.get("near_prefixes", [])
    for start in starts:
        prefix = site_prefix(start)
        if prefix != start and prefix in prefixes:
            notes.append(
                f"the site is {shown(prefix)}: the directory of the start URL "
                f"{shown(start)} (--near sets it)"
            )
    if list(prefixes) != list(starts):  # --near, or an index page read as its directory
        return notes
    one_page = report["summary"].get("pages", 0) <= 1
    for start in starts:
        directory = directory_of(start)
        if directory is None:
            continue
        # a query is part of the prefix: only URLs that start with it are the site
        query = " (its query included)" if urlsplit(start).query else ""
        if one_page:
            said = f"warning: the site (what starts with {shown(start)}{query}) was one page"
        elif query:
            said = f"the site is what starts with {shown(start)}{query}"
        else:
            continue
        notes.append(
            f"{said}; to audit its directory, start at {shown(directory)} or give"
            f" --near {shown(directory)}"
        )
    return notes


TOOLS = {"mkdocs": "MkDocs", "sphinx": "Sphinx", "hugo": "Hugo", "jekyll": "Jekyll"}


def source_notes(report: Report) -> list[str]:
    """What the build's sources were (``build.sources``) and, with
    --changed-since, how many findings the change does not hold."""
    said = (report.get("build") or {}).get("sources")
    if not said:
        return []
    tool = TOOLS.get(said.get("tool") or "", "")
    how = ", ".join(filter(None, [tool, said.get("config"), "found" if said["detected"] else ""]))
    places = said["mapped"] + said["unmapped"]
    notes = [
        f"sources: {', '.join(map(shown, said['directories']))}"
        + (f" ({shown(how)})" if how else "")
        + f": {said['mapped']} of {places} places of findings mapped to their lines"
    ]
    changed = report.get("changed_since")
    if changed:
        outside = report["summary"].get("outside_change", 0)
        notes.append(
            f"changed since {shown(changed['ref'])}: {outside} finding"
            f"{'' if outside == 1 else 's'} outside the change, not shown"
        )
    return notes


def in_change(report: Report) -> Report:
    """The report as the formats show it with --changed-since: only the
    findings the change holds (the JSON report keeps them all, each with
    ``changed``); ``summary.outside_change`` counts the others."""
    urls = []
    for entry in report["urls"]:
        if entry.get("changed") is False:
            continue
        gaps = entry.get("missing_fragments")
        if gaps and any(g.get("changed") is False for g in gaps):
            entry = {**entry, "missing_fragments": [g for g in gaps if g.get("changed", True)]}
            if not entry["missing_fragments"]:
                del entry["missing_fragments"]
        urls.append(entry)
    shown_report = {**report, "urls": urls}
    if report.get("redirect_fixes"):
        shown_report["redirect_fixes"] = [
            f for f in report["redirect_fixes"] if f.get("changed", True)
        ]
    return shown_report


def reader_left() -> None:
    """The reader of stdout went away (``| head``): the rest is not written.
    stdout is pointed at /dev/null, so that the flush at exit raises nothing
    and Python prints no traceback of its own."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # no stdout to point anywhere
        pass


def every_entry(fmt: str, options: Options) -> bool:
    """Whether ``fmt`` shows the ok entries too."""
    return fmt == "html" or (fmt == "junit" and options.junit_all)


def _load_report(config: Config, lean: bool) -> Report | None:
    try:
        return read_report(config.report, lean)
    except (OSError, ValueError):
        pass
    try:  # the report could not be written: the journal has the results
        with open(config.journal or "", encoding="utf-8") as fh:
            return rebuild_report(read_journal(fh))
    except (OSError, TypeError, ValueError, KeyError):
        return None


def _copy(path: str) -> bool:
    """The report file on stdout as it is (a 150 MB report is not decoded
    and encoded again); False if it cannot be read."""
    try:
        with open(path, encoding="utf-8") as fh:
            sys.stdout.flush()
            shutil.copyfileobj(fh, sys.stdout, 1 << 20)
    except OSError:
        return False
    sys.stdout.flush()
    return True
