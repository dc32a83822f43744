"""``linkaudit show REPORT.json --format F``: a saved report shown again,
in any format (a webmaster's text, a pull request's markdown, code
scanning's SARIF...), without auditing again."""

from __future__ import annotations

import os
import stat
import sys
from typing import Any

from linkaudit.command.parser import FAIL_ON
from linkaudit.command.usage import SubcommandParser
from linkaudit.command.views import add_view_options, view_options
from linkaudit.output.exitstatus import EXIT_USAGE, exit_code
from linkaudit.output.formats import FORMATS
from linkaudit.output.formats.common import shown
from linkaudit.output.jsontext import escaped_raw
from linkaudit.output.reading import conform
from linkaudit.output.report.build import read_report
from linkaudit.output.show import every_entry, in_change, reader_left

# what every report has (docs/report.md); a file without them is
# some other JSON
_KEYS = ("version", "start_urls", "started_at", "finish_reason", "complete", "summary", "urls")


def show_main(argv: list[str]) -> int:
    """``linkaudit show``: the report ``REPORT`` as ``--format``; the exit
    code it calls for, as after the audit (``--fail-on``)."""
    p = SubcommandParser(
        prog="linkaudit show",
        description="Show a saved report again, in any format.",
    )
    p.add_argument("report", metavar="REPORT", help="a report written by linkaudit (JSON)")
    p.add_argument(
        "--format", choices=sorted(FORMATS), default="text", help="what is printed on stdout"
    )
    p.add_argument("--fail-on", choices=FAIL_ON, default="broken", help="as for an audit")
    add_view_options(p)
    p.add_argument("-v", "--verbose", action="count", default=0, help="every page of each finding")
    ns = p.parse_args(argv)
    options = view_options(ns)
    error = f"linkaudit show: error: {ns.report}"
    try:
        if not stat.S_ISREG(os.stat(ns.report).st_mode):  # /dev/zero would never end
            print(f"{error}: not a file", file=sys.stderr)
            return EXIT_USAGE
        report = read_report(ns.report, lean=not every_entry(ns.format, options))
    except OSError as exc:
        print(f"{error}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_USAGE
    except (ValueError, TypeError, RecursionError):  # UnicodeDecodeError is a ValueError
        print(f"{error}: not a linkaudit report (not a JSON object)", file=sys.stderr)
        return EXIT_USAGE
    if not _looks_like_a_report(report):
        print(f"{error}: not a linkaudit report", file=sys.stderr)
        return EXIT_USAGE
    # the values of the types a fresh audit writes, whoever edited the file
    # (the formats escape every string as they do a fresh audit's)
    altered = conform(report)
    if altered:
        print(f"linkaudit show: warning: {shown(ns.report)}: {_altered(altered)}", file=sys.stderr)
    try:
        # --changed-since: the findings the change holds (the JSON has them all)
        view = in_change(report) if isinstance(report.get("changed_since"), dict) else report
        text = None if ns.format == "json" else FORMATS[ns.format](view, options)
        code = exit_code(report, ns.fail_on)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError):
        # a report edited by hand or from another version: no traceback
        print(f"{error}: not a linkaudit report (a field is missing or wrong)", file=sys.stderr)
        return EXIT_USAGE
    try:
        if text is None:  # the file as it is, but for what linkaudit writes escaped
            with open(ns.report, encoding="utf-8") as fh:
                while chunk := fh.read(1 << 20):
                    sys.stdout.write(escaped_raw(chunk))
        else:
            print(text)
        sys.stdout.flush()
    except BrokenPipeError:  # `linkaudit show r.json | head`: the verdict stands
        reader_left()
    return code


def _altered(where: list[str]) -> str:
    """The warning's words: how many values were not as linkaudit writes
    them, the first few named."""
    named = ", ".join(shown(w) for w in where[:5])
    more = f" and {len(where) - 5} more" if len(where) > 5 else ""
    return f"{len(where)} values are not as linkaudit writes them, shown as none: {named}{more}"


def _looks_like_a_report(report: Any) -> bool:
    return (
        isinstance(report, dict)
        and all(key in report for key in _KEYS)
        and isinstance(report["summary"], dict)
        and isinstance(report["urls"], list)
    )
