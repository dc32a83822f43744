"""The HTML report's lists: the redirect fix-list (permanent and temporary
apart), the sitemap and the crawl side by side, and the URLs the audit
never checked (blocked, unchecked)."""

from __future__ import annotations

from linkaudit.items import FixKind
from linkaudit.output.formats.common import Report, walled
from linkaudit.output.formats.html.buildlinks import BUILD
from linkaudit.output.formats.html.parts import (
    LIST_LIMIT,
    badge,
    count,
    esc,
    link,
    more_note,
    section,
)
from linkaudit.output.formats.places import is_hop
from linkaudit.output.report.records import RedirectFix, ReportEntry


def redirects_section(report: Report) -> str:
    """The redirect fix-list: permanent and temporary apart; long chains,
    loops and chains that end badly called out."""
    fixes = report.get("redirect_fixes") or []
    if not fixes:
        return section("redirects", "Redirects", 0, "<p>No link points at a redirect.</p>")
    long = sum(f["hops"] > 1 for f in fixes)
    loops = sum(f["loop"] for f in fixes)
    bad = sum(not f["loop"] and f["final_outcome"] != "ok" for f in fixes)
    calls = [
        f'<li data-callout="{key}">{count(key, n)} {one if n == 1 else many}</li>'
        for key, n, one, many in (
            ("hops", long, "chain of more than one hop", "chains of more than one hop"),
            ("loops", loops, "redirect loop: the link leads nowhere", "redirect loops"),
            ("ends-badly", bad, "chain ends on a URL that is not ok", "chains end not ok"),
        )
        if n
    ]
    body = f'<ul class="callouts">{"".join(calls)}</ul>' if calls else ""
    for kind, title, intro in (
        (
            FixKind.PERMANENT,
            "Links to update",
            "The target moved for good: link to the end instead.",
        ),
        (FixKind.TEMPORARY, "Links to temporary redirects", "The site says the move is temporary."),
    ):
        chosen = [f for f in fixes if f["kind"] == kind]
        if chosen:
            rows = "".join(_fix_row(f) for f in chosen[:LIST_LIMIT])
            table = (
                f'<p>{intro}</p><div class="wide"><table class="fixes"><thead><tr>'
                '<th scope="col">Page</th><th scope="col">Line</th><th scope="col">Link</th>'
                '<th scope="col">Ends at</th><th scope="col">Chain</th></tr></thead>'
                f"<tbody>{rows}</tbody></table></div>"
            )
            table += more_note(len(chosen), "links", in_table=False)
            body += section(f"redirects-{kind}", title, len(chosen), table, 3)
    return section("redirects", "Redirects", len(fixes), body)


def _fix_row(fix: RedirectFix) -> str:
    notes = []
    if fix["loop"]:
        notes.append(badge("loop", "bad"))
    elif fix["final_outcome"] != "ok":
        end = f"ends {fix['final_outcome']}" + (
            f" ({fix['final_status']})" if fix["final_status"] is not None else ""
        )
        notes.append(badge(end, "bad"))
    if fix["hops"] > 1:
        notes.append(badge(f"{fix['hops']} hops", "warn"))
    file = f'<br><span class="file">{esc(fix["file"])}</span>' if fix.get("file") else ""
    page = link(fix["page"], file=fix.get("file"))
    build = BUILD.get()
    if build is not None and build.owns(fix["page"]):
        file = ""  # a build's page: named by its file, a link to it
    chain = " → ".join(str(s) for s in fix["statuses"])
    warn = ' class="warn"' if notes else ""
    return (
        f'<tr data-from="{esc(fix["from"])}" data-kind="{esc(fix["kind"])}"'
        f' data-hops="{fix["hops"]}" data-loop="{str(fix["loop"]).lower()}"'
        f' data-final-outcome="{esc(fix["final_outcome"])}"{warn}>'
        f'<td>{page}{file}</td><td class="num">{fix["line"]}</td>'
        f"<td>{link(fix['from'])}</td><td>{link(fix['to'])}</td>"
        f"<td>{esc(chain)} {' '.join(notes)}</td></tr>"
    )


def sitemap_section(report: Report) -> str:
    """The sitemaps read and the crawl side by side."""
    sm = report.get("sitemap")
    if not sm:
        return ""
    maps = "".join(f"<li>{link(u)}</li>" for u in sm["sitemaps"])
    body = f'<p>{count("listed", sm["urls"])} URLs listed in:</p><ul class="plain">{maps}</ul>'
    for key, title in (
        ("broken", "Listed, broken"),
        ("redirects", "Listed, redirecting"),
        ("orphans", "Listed, linked from no page"),
        ("missing", "Site pages no sitemap lists"),
    ):
        urls = sm[key]
        items = "".join(f"<li>{link(u)}</li>" for u in urls[:LIST_LIMIT])
        text = f'<ul class="plain">{items}</ul>' if urls else "<p>None.</p>"
        body += section(f"sitemap-{key}", title, len(urls), text + more_note(len(urls), "URLs"), 3)
    return section("sitemap", "Sitemap", None, body)


def unchecked_section(report: Report) -> str:
    """Blocked and unchecked URLs with why: what the audit did not see; the
    URLs behind a bot wall apart, under their wall."""
    body = _walls_section(report)
    behind = {id(u) for _wall, urls in walled(report) for u in urls}
    for outcome, title, intro in (
        ("blocked", "Blocked", "Not requested: robots.txt (or a rule) keeps linkaudit out."),
        ("unchecked", "Unchecked", "Found, never checked: a limit or the audit's end came first."),
    ):
        chosen = [u for u in report["urls"] if u["outcome"] == outcome and id(u) not in behind]
        rows = "".join(
            f'<tr data-url="{esc(u["url"])}" data-outcome="{outcome}"><td>{link(u["url"])}</td>'
            f"<td>{esc(u['error'])}</td><td>{_first_place(u)}</td></tr>"
            for u in chosen[:LIST_LIMIT]
        )
        text = "<p>None.</p>"
        if rows:
            text = (
                f'<p>{intro}</p><div class="wide"><table><thead><tr><th scope="col">URL</th>'
                '<th scope="col">Why</th><th scope="col">Linked from</th></tr></thead>'
                f"<tbody>{rows}</tbody></table></div>{more_note(len(chosen), 'URLs')}"
            )
        body += section(f"{outcome}-list", title, len(chosen), text, 3)
    return section("unchecked", "Not checked", None, body)


def _walls_section(report: Report) -> str:
    """The URLs a bot wall answered for, under each wall: not broken, not
    verified either."""
    found = walled(report)
    if not found:
        return ""
    rows = "".join(
        f'<tr data-url="{esc(u["url"])}" data-outcome="unchecked" data-wall="{esc(wall)}">'
        f"<td>{link(u['url'])}</td><td>{esc(wall)}</td><td>{esc(u['error'])}</td>"
        f"<td>{_first_place(u)}</td></tr>"
        for wall, urls in found
        for u in urls[:LIST_LIMIT]
    )
    total = sum(len(urls) for _wall, urls in found)
    notes = "".join(more_note(len(urls), f"URLs behind {esc(wall)}") for wall, urls in found)
    text = (
        "<p>Not broken: a bot wall answered in the page's place, so the page was not seen."
        " Open them in a browser.</p>"
        f'<ul class="callouts">{"".join(_wall_item(w, len(u)) for w, u in found)}</ul>'
        '<div class="wide"><table><thead><tr><th scope="col">URL</th><th scope="col">Wall</th>'
        '<th scope="col">Why</th><th scope="col">Linked from</th></tr></thead>'
        f"<tbody>{rows}</tbody></table></div>{notes}"
    )
    return section("walls-list", "Behind bot walls, not verified", total, text, 3)


def _wall_item(wall: str, n: int) -> str:
    return f'<li data-wall="{esc(wall)}">{esc(wall)}: {count("walled", n)}</li>'


def _first_place(entry: ReportEntry) -> str:
    """The first page and line that link ``entry`` (a page before a
    redirect that leads there), and how many more."""
    referrers = entry["referrers"]
    if not referrers:
        return '<span class="muted">no page</span>'
    r = next((place for place in referrers if not is_hop(place)), referrers[0])
    at = f" line {r['line']}" if r["line"] is not None else ""
    if r.get("rendered"):
        at = " (rendered)"
    via = f" through {link(r['via'])}" if r.get("via") else ""
    more = max(entry["referrer_count"], len(referrers)) - 1
    said = f' <span class="muted">and {more:,} more</span>' if more > 0 else ""
    return link(r["url"], file=r.get("file")) + esc(at) + via + said
