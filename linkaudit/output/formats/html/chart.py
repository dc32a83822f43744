"""The trend chart of the HTML report: broken links, new and fixed per
audit of the database (the report's ``history``), as an inline SVG.

No script and no library: the chart is markup, drawn the same with
JavaScript off, and it fetches nothing.  Each audit is one ``<g
class="point">`` holding its three marks, with a ``<title>`` (the tooltip)
and an ``aria-label`` in words, and its figures in ``data-*`` attributes
(tests read them; so can a person's own script).  The ``<svg>`` is
``role="img"`` with a title and a description that say the whole trend in
words, since a screen reader reads an image as one thing; the same figures
are in a table below it (:mod:`html_trend`)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from linkaudit.output.formats.html.parts import esc
from linkaudit.output.report.records import AuditRecord

# The drawing's own units (it scales to the page's width: viewBox).
WIDTH, HEIGHT = 720, 260
LEFT, RIGHT, TOP, BOTTOM = 48, 16, 34, 44
X_LABELS = 6  # dates under the axis at most: more would overlap
KEY_AT = (0, 120, 190)  # the legend's entries, from the left
# (key in a point's figures, words in the legend, how its line is drawn)
SERIES = (
    ("broken", "broken links", ""),
    ("new", "new", "6 4"),
    ("fixed", "fixed", "2 3"),
)


def when(stamp: str) -> str:
    """``2026-11-24T10:00:00+00:00`` as ``24 Nov 2026 10:00`` (UTC); a
    stamp that is not ISO 8601 as it is (escaped where it is shown)."""
    try:
        moment = datetime.fromisoformat(stamp)
    except (TypeError, ValueError):
        return str(stamp)
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC)
    return moment.strftime("%d %b %Y %H:%M")


def figures(record: AuditRecord) -> dict[str, int]:
    """What the chart draws of one audit of the history."""
    return {
        "broken": int(record["summary"]["broken"]),
        "new": int(record.get("new") or 0),
        "fixed": int(record.get("fixed") or 0),
    }


def point_words(record: AuditRecord) -> str:
    """``24 Nov 2026 10:00: 12 broken, 3 new, 1 fixed``."""
    f = figures(record)
    return f"{when(record['started_at'])}: {f['broken']} broken, {f['new']} new, {f['fixed']} fixed"


def _step(top: int) -> int:
    """A round step (1, 2, 5, 10, 20, 50...) giving at most 5 ticks up to ``top``."""
    step = 1
    while -(-top // step) > 5:
        step = step * 5 // 2 if str(step)[0] == "2" else step * 2
    return step


def _dash(pattern: str) -> str:
    return f' stroke-dasharray="{pattern}"' if pattern else ""


@dataclass(frozen=True)
class _Scale:
    """Where audit ``i`` and ``v`` links fall in the drawing."""

    n: int  # audits
    peak: int  # links at the top of the axis

    def x(self, i: int) -> float:
        return LEFT + (WIDTH - LEFT - RIGHT) * i / max(1, self.n - 1)

    def y(self, v: int) -> float:
        return TOP + (HEIGHT - TOP - BOTTOM) * (1 - v / self.peak)


def _axes(history: list[AuditRecord], scale: _Scale, step: int) -> str:
    """Grid lines with their counts, some audits' dates, the axes' names."""
    out = [
        f'<line class="grid" x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{scale.y(v):.1f}"'
        f' y2="{scale.y(v):.1f}"/><text class="tick" x="{LEFT - 6}" y="{scale.y(v) + 4:.1f}"'
        f' text-anchor="end">{v}</text>'
        for v in range(0, scale.peak + 1, step)
    ]
    n = scale.n
    labelled = sorted({*range(0, n, max(1, -(-n // X_LABELS))), n - 1})
    days = [when(history[i]["started_at"])[:11] for i in labelled]
    same_day = len(set(days)) < len(days)  # then the hour tells them apart
    for i in labelled:
        day = when(history[i]["started_at"])
        label = f"{day[:6]} {day[12:]}" if same_day and len(day) == 17 else day[:11]
        anchor = "start" if i == 0 else "end" if i == n - 1 else "middle"
        out.append(
            f'<text class="tick" x="{scale.x(i):.1f}" y="{HEIGHT - BOTTOM + 16}"'
            f' text-anchor="{anchor}">{esc(label)}</text>'
        )
    middle = TOP + (HEIGHT - TOP - BOTTOM) / 2
    out.append(
        f'<text class="axis" x="{(LEFT + WIDTH - RIGHT) / 2:.0f}" y="{HEIGHT - 6}"'
        ' text-anchor="middle">audit (start, UTC)</text>'
        f'<text class="axis" x="12" y="{middle:.0f}" text-anchor="middle"'
        f' transform="rotate(-90 12 {middle:.0f})">links</text>'
    )
    return "".join(out)


def _legend() -> str:
    return "".join(
        f'<g class="key" transform="translate({LEFT + KEY_AT[k]},12)">'
        f'<line class="s-{key}" x1="0" x2="22" y1="0" y2="0"{_dash(dash)}/>'
        f'<circle class="s-{key}" cx="11" cy="0" r="4"/><text x="28" y="4">{words}</text></g>'
        for k, (key, words, dash) in enumerate(SERIES)
    )


def _series(history: list[AuditRecord], points: list[dict[str, int]], scale: _Scale) -> str:
    """A line per series, then each audit's marks as one labelled group."""
    out = [
        f'<polyline class="s-{key}" fill="none"{_dash(dash)} points="'
        + " ".join(f"{scale.x(i):.1f},{scale.y(p[key]):.1f}" for i, p in enumerate(points))
        + '"/>'
        for key, _, dash in SERIES
    ]
    radius = 4 if scale.n <= 40 else 2.5
    for i, (record, p) in enumerate(zip(history, points, strict=True)):
        words = esc(point_words(record))
        circles = "".join(
            f'<circle class="s-{key}" cx="{scale.x(i):.1f}" cy="{scale.y(p[key]):.1f}"'
            f' r="{radius}"/>'
            for key, _, _ in SERIES
        )
        out.append(
            f'<g class="point" data-started-at="{esc(record["started_at"])}"'
            f' data-broken="{p["broken"]}" data-new="{p["new"]}" data-fixed="{p["fixed"]}"'
            f' aria-label="{words}"><title>{words}</title>{circles}</g>'
        )
    return "".join(out)


def chart(history: list[AuditRecord], title: str) -> str:
    """The SVG for two or more audits, oldest first; its description says
    the trend in words, and every audit's figures, for a screen reader."""
    points = [figures(r) for r in history]
    top = max(1, *(max(p.values()) for p in points))
    step = _step(top)
    scale = _Scale(len(points), -(-top // step) * step)
    desc = (
        f"{len(points)} audits from {when(history[0]['started_at'])} to"
        f" {when(history[-1]['started_at'])} (UTC): broken links {points[0]['broken']} then"
        f" {points[-1]['broken']}, at most {max(p['broken'] for p in points)}. "
        + "; ".join(point_words(r) for r in history)
    )
    return (
        f'<svg id="trend-chart" class="chart" role="img" viewBox="0 0 {WIDTH} {HEIGHT}"'
        f' aria-labelledby="trend-title trend-desc" xmlns="http://www.w3.org/2000/svg">'
        f'<title id="trend-title">{esc(title)}</title><desc id="trend-desc">{esc(desc)}</desc>'
        f"{_axes(history, scale, step)}{_legend()}{_series(history, points, scale)}</svg>"
    )
