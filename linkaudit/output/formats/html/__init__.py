"""The HTML report: one self-contained page (``page``: ``as_html``) made of
its parts (``parts``: escaping and the page's small pieces), the findings
(``findings``: broken links, template groups), the lists of every other
outcome (``lists``), and the history's trend (``trend``) with its chart
(``chart``)."""

from linkaudit.output.formats.html.page import as_html

__all__ = ["as_html"]
