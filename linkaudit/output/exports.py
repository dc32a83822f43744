"""Views of the report written beside it, for both doors (the command and
``scrapy crawl``): the HTML report (``LINKAUDIT_HTML``, ``--html PATH``,
``-a html=PATH``) and the redirect fix-list as CSV
(``LINKAUDIT_REDIRECT_FIXES``, ``--redirect-fixes PATH``,
``-a redirect_fixes=PATH``).

Written by the extension ``linkaudit/extensions/views.py`` on
``report_written`` and by a walked build: the report read back (the file is
the one truth, whatever the mode), each view written atomically.
"""

from __future__ import annotations

import csv
import io
import logging
from typing import TYPE_CHECKING

from linkaudit.output.report.atomic import write_atomically
from linkaudit.output.report.build import read_report
from linkaudit.output.report.records import Report

if TYPE_CHECKING:
    pass

logger = logging.getLogger(__name__)

FIX_COLUMNS = (
    "page",
    "line",
    "file",
    "from",
    "to",
    "kind",
    "statuses",
    "hops",
    "final_outcome",
    "final_status",
    "loop",
)


def fixes_csv(report: Report) -> str:
    """The redirect fix-list as CSV, a row per link (statuses as ``301 302``)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(FIX_COLUMNS)
    for fix in report.get("redirect_fixes") or ():
        row = {**fix, "statuses": " ".join(str(s) for s in fix["statuses"])}
        writer.writerow(
            [
                "" if row.get(c) is None else str(row[c]).lower() if c == "loop" else row[c]
                for c in FIX_COLUMNS
            ]
        )
    return out.getvalue()


def write_views(path: str, html: str | None, fixes: str | None) -> None:
    """The views of the report at ``path``: the HTML report at ``html``, the
    fix-list's CSV at ``fixes`` (each when set)."""
    if not html and not fixes:
        return
    try:
        report = read_report(path)
    except (OSError, ValueError) as exc:  # another machine's report (a shared audit)
        logger.error("linkaudit: cannot read the report %s for its views: %s", path, exc)
        return
    if html:
        from linkaudit.output.formats.html.page import as_html
        from linkaudit.output.formats.places import Options

        # (a build's files linked relative to where the page is written)
        _write(html, as_html(report, Options(html=html)), "HTML report")
    if fixes:
        _write(fixes, fixes_csv(report), "Redirect fix-list")


def _write(path: str, text: str, what: str) -> None:
    try:
        write_atomically(path, lambda fh: fh.write(text))
    except OSError as exc:
        logger.error("linkaudit: cannot write %s: %s", path, exc.strerror or exc)
        return
    logger.info("%s written to %s", what, path)
