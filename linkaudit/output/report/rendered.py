"""The report's ``rendered`` section (--render): one entry per rendered
page, the links only its DOM has, those its script removed, its
navigations; and the summary's counts of renders and of the browser's
requests.

A page the audit database vouched for (``not_modified``, ``from_cache``:
unchanged since it was rendered) keeps its render's section, but it was
not rendered by this audit: it is counted apart (``renders_remembered``),
and its browser requests are not counted.
"""

from __future__ import annotations

from linkaudit.output.report.records import RenderedPage, ReportEntry, Summary


class RenderedPages:
    """Sees the entries with ``render``; adds the section and its counts.
    ``mode``: ``LINKAUDIT_RENDER`` (never: nothing is added)."""

    def __init__(self, mode: str) -> None:
        self.mode = mode
        self.pages: list[RenderedPage] = []
        self.failures = 0
        self.remembered = 0
        self.rendered = 0
        self.requests = 0

    def see(self, item: ReportEntry) -> None:
        render = item["render"]
        failed = bool(render.get("error"))
        if item.get("not_modified") or item.get("from_cache"):
            self.remembered += not failed  # an earlier audit's, the page unchanged since
        else:
            self.requests += render.get("requests", 0)  # a failed render's too
            self.failures += failed
            self.rendered += not failed
        self.pages.append({"page": item["url"], **render})

    def counts(self, summary: Summary) -> None:
        """The summary's counts of renders."""
        if self.mode == "never" and not self.pages:
            return
        summary["rendered_pages"] = self.rendered
        summary["render_requests"] = self.requests
        if self.remembered:
            summary["renders_remembered"] = self.remembered
        if self.failures:
            summary["render_failures"] = self.failures

    def section(self) -> dict[str, list[RenderedPage]]:
        """The report's ``rendered`` list (the entries came sorted by URL)."""
        if self.mode == "never" and not self.pages:
            return {}
        return {"rendered": self.pages}
