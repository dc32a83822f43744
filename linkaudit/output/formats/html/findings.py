"""The HTML report's sections on broken links: each broken URL with every
page and line linking to it (then missing fragments, soft 404s, failures in
their grace period and what the baseline had), and the grouped findings
(a link in the site template as one finding; a link in several pages' own
content as one: a link on one page only is its card, not a group of one)."""

from __future__ import annotations

from linkaudit.items import GroupKind, Outcome
from linkaudit.output.formats.builds import symlink_target
from linkaudit.output.formats.common import Report, app_shells, missing_fragments, rendered
from linkaudit.output.formats.html.parts import (
    LIST_LIMIT,
    SHOWN_REFERRERS,
    badge,
    esc,
    link,
    more_note,
    outcome_badge,
    places,
    section,
)
from linkaudit.output.formats.html.trend import broken_for
from linkaudit.output.formats.places import linked_from
from linkaudit.output.report.records import MissingFragment, ReportEntry, TemplateGroup
from linkaudit.output.words import and_more, block_name
from linkaudit.rules.suggest import WHY, suggestion_target


def _target(entry: ReportEntry, url: str, why: str, where: str, new: bool, h: int = 3) -> str:
    """A card: the target, what is wrong with it, where it is linked."""
    mark = " " + badge("new", "new") if new else ""
    far = "" if entry["near"] else ' <span class="muted">(another site)</span>'
    return (
        f'<article class="target" data-url="{esc(url)}"'
        f' data-outcome="{esc(entry["outcome"])}"{" data-new" if new else ""}>'
        f"<h{h}>{link(url)}{mark}</h{h}><p>{why}{far}</p>{where}</article>"
    )


def _broken_card(u: ReportEntry, templates: dict[str, list[TemplateGroup]], report: Report) -> str:
    why = f"{outcome_badge('broken', u['status'])} {esc(u['error'])}{_suggested(u)}"
    why += broken_for(u, report) + _archived(u)
    where = places(u["referrers"], u["referrer_count"])
    if len(u["referrers"]) > SHOWN_REFERRERS:  # one finding: how far it reaches, first
        where = (
            f'<p class="reach">{esc(linked_from(u["referrers"], u["referrer_count"]))}.</p>' + where
        )
    for g in templates.get(u["url"], ()):
        where += (
            f'<p class="muted">In the site template ({esc(block_name(g.get("block") or ""))})'
            f' on {g["pages"]} pages: one of the <a href="#groups">grouped findings</a>.</p>'
        )
    return _target(u, u["url"], why, where, bool(u.get("new")))


def _gap_card(u: ReportEntry, gap: MissingFragment) -> str:
    why = f"No element with the id <code>{esc(gap['fragment'])}</code> on the page."
    url = f"{u['url']}#{gap['fragment']}"
    return _target(u, url, why, places(gap["referrers"]), bool(gap.get("new")))


def _soft_card(u: ReportEntry) -> str:
    why = f"{badge('soft 404', 'warn')} {esc(u.get('warning'))}"
    where = places(u["referrers"], u["referrer_count"])
    return _target(u, u["url"], why, where, bool(u.get("new")))


def broken_section(report: Report) -> str:
    """Each broken URL with its error and every page and line linking to
    it (new ones first, with a baseline)."""
    broken = [u for u in report["urls"] if u["outcome"] == Outcome.BROKEN]
    broken.sort(key=lambda u: not u.get("new"))  # stable: URL order within
    templates: dict[str, list[TemplateGroup]] = {}
    for g in report.get("groups") or ():
        if g["kind"] == GroupKind.TEMPLATE:
            templates.setdefault(g["target"], []).append(g)
    body = "".join(_broken_card(u, templates, report) for u in broken[:LIST_LIMIT])
    body += more_note(len(broken), "URLs")
    if not broken:
        body = '<p class="good">No broken links.</p>'
    return section("broken", "Broken links", len(broken), body)


def other_sections(report: Report) -> dict[str, str]:
    """The findings beside the broken links, each a section of its own (a
    card of the page, never inside the broken links'): missing fragments,
    soft 404s, pages built by JavaScript, rendered pages, failures in their
    grace period, and what the baseline had; "" for those with nothing to say."""
    return {
        "fragments": _fragments_section(report),
        "soft-404": _soft_section(report),
        "app-shells": _shells_section(report),
        "rendered": _rendered_section(report),
        "warnings": _warnings_section(report),
        "fixed": _fixed_section(report),
    }


def _fragments_section(report: Report) -> str:
    """Links to fragments a page does not have (with --check-fragments:
    "None." when there are none)."""
    gaps = missing_fragments(report)
    if not gaps and "missing_fragments" not in report["summary"]:
        return ""
    text = "".join(_gap_card(u, gap) for u, gap in gaps[:LIST_LIMIT]) or "<p>None.</p>"
    text += more_note(len(gaps), "missing fragments", in_table=False)
    return section("fragments", "Missing fragments", len(gaps), text)


def _soft_section(report: Report) -> str:
    soft = [u for u in report["urls"] if u.get("soft_404")]
    if not soft:
        return ""
    text = "<p>Pages that answer as found but read like an error page.</p>"
    text += "".join(_soft_card(u) for u in soft[:LIST_LIMIT])
    return section("soft-404", "Soft 404s", len(soft), text + more_note(len(soft), "URLs"))


def _shells_section(report: Report) -> str:
    shells, pages = app_shells(report)
    if not shells:
        return ""
    items = "".join(f"<li>{link(u['url'])}: {esc(u['app_shell'])}</li>" for u in pages[:LIST_LIMIT])
    text = f'<p>{esc(shells)}.</p><ul class="plain">{items}</ul>'
    text += more_note(len(pages), "URLs", in_table=False)
    return section("app-shells", "Built by JavaScript", len(pages), text)


def _warnings_section(report: Report) -> str:
    """Failures in their grace period, and other warnings of URLs that are
    not broken (a render's failure is the rendered section's, a symbolic
    link out of a build its own)."""
    failing = [u for u in report["urls"] if u.get("warning") and not u.get("soft_404")]
    failing = [u for u in failing if not (u.get("render") or {}).get("error")]
    failing = [u for u in failing if symlink_target(u) is None]  # (a build's: their own)
    if not failing:
        return ""
    items = "".join(f"<li>{link(u['url'])}: {esc(u['warning'])}</li>" for u in failing[:LIST_LIMIT])
    text = f'<ul class="plain">{items}</ul>{more_note(len(failing), "URLs")}'
    return section("warnings", "Failing, not reported broken yet", len(failing), text)


def _fixed_section(report: Report) -> str:
    fixed = report.get("fixed")
    if not fixed:
        return ""
    items = "".join(f"<li>{link(url)}</li>" for url in fixed[:LIST_LIMIT])
    text = f'<p>Broken in the baseline, not now.</p><ul class="plain">{items}</ul>'
    text += more_note(len(fixed), "URLs", in_table=False)
    return section("fixed", "Fixed since the baseline", len(fixed), text)


def _group_status(group: TemplateGroup) -> str:
    return esc(group["status"] if group.get("status") is not None else group.get("error"))


def says_more(group: TemplateGroup) -> bool:
    """A group the broken-links list does not already say: a template
    link, or a link in the own content of several pages.  A broken link on
    one page is its card above, not a group of one."""
    return group["kind"] == GroupKind.TEMPLATE or group["pages"] > 1


def groups_section(report: Report) -> str:
    """Template links as one finding each (with every page behind
    <details>), then links in several pages' own content."""
    if "groups" not in report:
        return ""
    groups = [g for g in report["groups"] if says_more(g)]
    parts = []
    # template groups first: one line each stands for many pages
    for g in sorted(groups, key=lambda g: g["kind"] != GroupKind.TEMPLATE)[:LIST_LIMIT]:
        # each page once (a build's file served at / and /index.html is one)
        pages = list({r.get("file") or r["url"]: r for r in g["referrers"]}.values())
        if g["kind"] == GroupKind.TEMPLATE:
            first = ", ".join(link(p["url"], file=p.get("file")) for p in pages[:3])
            first += and_more(len(pages) - 3)
            words = (
                f" in the site template ({esc(block_name(g.get('block') or ''))}),"
                f" on {g['pages']} pages (first: {first})"
            )
            where = f"<details><summary>All {g['pages']} pages</summary>{places(g['referrers'])}"
            where += "</details>"
        else:
            words = f" in the pages' own content, on {g['pages']} pages"
            where = places(g["referrers"])
        parts.append(
            f'<li class="group" data-kind="{esc(g["kind"])}" data-target="{esc(g["target"])}"'
            f' data-pages="{g["pages"]}"><p>{link(g["target"])} ({_group_status(g)}){words}</p>'
            f'<p class="muted">{esc(g.get("error"))}</p>{where}</li>'
        )
    intro = (
        "<p>A link the site template repeats is one finding, not one per page; so is a link"
        " written in several pages. A link on one page only is in the list above.</p>"
    )
    body = f'{intro}<ul class="groups">{"".join(parts)}</ul>'
    if not parts:
        body = "<p>None: no broken link is in the site template or on several pages.</p>"
    body += more_note(len(groups), "findings", in_table=False)
    return section("groups", "Grouped findings", len(groups), body)


def _archived(u: ReportEntry) -> str:
    """--archive: the copy readers saw (linked, with its date) and the
    Robust Links markup to paste; or why there is none."""
    copy = u.get("archived")
    if copy:
        date = str(copy.get("date") or "")[:10] or "copy"
        return (
            f' <span class="archived">Archived copy: {link(copy["url"], date)}'
            f' <code class="robust-link">{esc(copy["markup"])}</code></span>'
        )
    if "archived" in u:
        note = esc(u.get("archive_note"))
        return f' <span class="archived muted">No archived copy: {note}</span>'
    return ""


def _suggested(u: ReportEntry) -> str:
    """A broken URL's suggestion: ``did you mean <a>URL</a>? (a typo)``."""
    found = u.get("suggestion")
    if not found:
        return ""
    why = WHY.get(found["why"], found["why"])
    target = link(found["url"], suggestion_target(found, u["url"]))
    return f' <span class="suggestion">Did you mean {target}? ({esc(why)})</span>'


def _rendered_section(report: Report) -> str:
    """--render: the rendered pages whose DOM's links differ from their
    HTML's (the links only after rendering, those the script removed, its
    navigations, each list apart) and the pages whose render failed."""
    words, changed, failures = rendered(report)
    if not words:
        return ""
    cards = []
    for r in changed[:LIST_LIMIT]:
        lists = [
            ("only after rendering", r["added"], r["added_count"]),
            ("removed by its script", r["removed"], r["removed_count"]),
            ("script navigations", r["navigations"], len(r["navigations"])),
        ]
        parts = "".join(
            f"<p>{esc(label)} ({count:,}):</p>"
            f'<ul class="plain">{"".join(f"<li>{link(u)}</li>" for u in urls)}</ul>'
            + _not_listed(count, len(urls))
            for label, urls, count in lists
            if count
        )
        cards.append(f'<div class="card rendered">{link(r["page"])}{parts}</div>')
    text = f"<p>{esc(words)}.</p>" + "".join(cards)
    text += more_note(len(changed), "pages", in_table=False)
    if failures:
        items = "".join(
            f"<li>{link(r['page'])}: {esc(r['error'])}</li>" for r in failures[:LIST_LIMIT]
        )
        text += f'<p>Not rendered, read from their HTML:</p><ul class="plain">{items}</ul>'
        text += more_note(len(failures), "pages", in_table=False)
    return section("rendered", "Rendered in Chromium", len(changed) + len(failures), text)


def _not_listed(count: int, listed: int) -> str:
    """Under a rendered page's list the report cut (rules/rendered.py,
    LISTED): how many it left out."""
    if count <= listed:
        return ""
    return f'<p class="note">and {count - listed:,} more: the report lists the first {listed}.</p>'
