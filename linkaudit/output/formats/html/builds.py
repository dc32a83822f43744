"""The HTML report's sections of a build's own findings: its orphan pages
(each a link to its file), its files that are not pages, its symbolic
links out (``formats/builds.py``: the words every format shares)."""

from __future__ import annotations

from linkaudit.output.formats.builds import (
    NOT_PAGES,
    ORPHANS,
    SYMLINKS_OUT,
    not_pages,
    orphans,
    symlink_words,
    symlinks_out,
)
from linkaudit.output.formats.common import Report
from linkaudit.output.formats.html.parts import (
    LIST_LIMIT,
    esc,
    link,
    more_note,
    places,
    section,
)
from linkaudit.output.report.records import ReportEntry

# the sections, for the page's table of contents
NAV = (("orphans", "Orphans"), ("not-pages", "Not pages"), ("symlinks-out", "Symbolic links out"))


def build_sections(report: Report) -> dict[str, str]:
    """Each section of a build's own findings ("" when it has none)."""
    return {
        "orphans": _orphans_section(report),
        "not-pages": _not_pages_section(report),
        "symlinks-out": _symlinks_section(report),
    }


def _orphans_section(report: Report) -> str:
    found = orphans(report)
    if not found:
        return ""
    kinds = {heading: kind for kind, heading in ORPHANS.items()}
    parts = []
    for heading, pages in found:
        items = "".join(
            f'<li data-orphan="{esc(u["orphan"])}">{link(u["url"], file=u.get("file"))}</li>'
            for u in pages[:LIST_LIMIT]
        )
        body = (
            "<p>Read, and their links checked, all the same.</p>"
            f'<ul class="plain">{items}</ul>{more_note(len(pages), "pages", in_table=False)}'
        )
        parts.append(section(f"orphans-{kinds[heading]}", heading, len(pages), body, 3))
    total = sum(len(pages) for _heading, pages in found)
    return section("orphans", "Orphans", total, "".join(parts))


def _not_pages_section(report: Report) -> str:
    listed, count = not_pages(report)
    if not count:
        return ""
    items = "".join(
        f'<li><span class="file">{esc(f.get("file"))}</span>: {esc(f.get("reason"))}</li>'
        for f in listed[:LIST_LIMIT]
    )
    left = count - min(len(listed), LIST_LIMIT)
    more = f'<p class="note">{left:,} more: the JSON report counts them.</p>' if left else ""
    body = f"<p>{esc(NOT_PAGES)}.</p>" + f'<ul class="plain">{items}</ul>{more}'
    return section("not-pages", "Files that are not pages", count, body)


def _symlinks_section(report: Report) -> str:
    found = symlinks_out(report)
    if not found:
        return ""
    cards = "".join(_symlink_card(u) for u in found[:LIST_LIMIT])
    body = cards + more_note(len(found), "URLs")
    return section("symlinks-out", SYMLINKS_OUT, len(found), body)


def _symlink_card(u: ReportEntry) -> str:
    where = places(u["referrers"], u["referrer_count"])
    return (
        f'<article class="target" data-url="{esc(u["url"])}" data-outcome="ok">'
        f'<h3>{link(u["url"], file=u.get("file"))}</h3><p class="warn">{esc(symlink_words(u))}'
        f"</p>{where}</article>"
    )
