"""A page's scan without the audit's state: its text read (the links as
written, its base, images, anchors, landmarks), whether an HTML file of a
build is no page (an unrendered template), and each link value resolved
to its key.  :class:`Discovery` then places what this finds in the state
(``discovery.py``); the walk of a build runs this part in other processes
too (``localbuild/pool.py``), so it is a pure function of the page's text,
its URL and the scan's settings, and what it returns pickles small: plain
tuples, lists and strings, no object of ours but the tuple itself.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from linkaudit.items import Outcome
from linkaudit.rules.fragments import fragment_of
from linkaudit.rules.judge import LinkRules, Verdict
from linkaudit.rules.pagelinks import Links, PageLinks, read_page
from linkaudit.rules.templates import HEAD_TAGS
from linkaudit.rules.unrendered import unrendered_template
from linkaudit.rules.urls import InvalidURL, canonicalize

# resolve(value, base, line) -> the value's verdict
Resolve = Callable[[str, str, "int | None"], Verdict]


class Prepared(NamedTuple):
    """What a page's text says, its links resolved, before the state is
    asked: the page's text length (a check that the text read elsewhere
    was this one), why an HTML file of a build is no page (None: a page;
    then nothing else is filled), its links as (key, line), each key once
    in the order found, the keys not to be checked with their outcome and
    error (``outcomes``: the others are checked), the keys of its head's
    tags (with template detection), its links to fragments, images,
    anchors (sorted), links past the cap, landmarks."""

    length: int
    why: str | None
    links: Links
    keys: list[str]
    outcomes: dict[str, tuple[Outcome | None, str | None]]
    head: set[str] | None
    fragments: list[list[Any]] | None
    images: int
    anchors: list[str] | None
    dropped: int
    marks: list[Any] | None

    def verdict(self, key: str) -> Verdict:
        """A key's verdict, as the links' resolution gave it."""
        outcome, error = self.outcomes.get(key, (None, None))
        return Verdict(key, outcome, error)


class PageScan:
    """The scan's settings (``LINKAUDIT_CSS``, ``LINKAUDIT_CHECK_FRAGMENTS``,
    ``LINKAUDIT_PAGE_MAXLINKS``, ``LINKAUDIT_TEMPLATES``) and the link
    rules."""

    def __init__(
        self,
        rules: LinkRules,
        *,
        css: bool,
        fragments: bool,
        maxlinks: int,
        templates: bool,
    ):
        self.rules = rules
        self.css = css
        self.fragments = fragments
        self.maxlinks = maxlinks
        self.templates = templates

    @classmethod
    def of(cls, config: Any, rules: LinkRules) -> PageScan:
        return cls(
            rules,
            css=config["LINKAUDIT_CSS"],
            fragments=config["LINKAUDIT_CHECK_FRAGMENTS"],
            maxlinks=config["LINKAUDIT_PAGE_MAXLINKS"],
            templates=config["LINKAUDIT_TEMPLATES"],
        )

    def read(self, text: str, stylesheet: bool) -> PageLinks:
        return read_page(
            text,
            stylesheet,
            css=self.css,
            anchors=self.fragments,
            limit=self.maxlinks,
            templates=self.templates,
        )

    @staticmethod
    def unrendered(text: str, read: PageLinks, stylesheet: bool) -> str | None:
        """Why this HTML file of a build is no page (None: it is one)."""
        return None if stylesheet else unrendered_template(text, read.links)

    def resolved(
        self, read: PageLinks, length: int, url: str, stylesheet: bool, resolve: Resolve
    ) -> Prepared:
        """The page's links resolved against its URL or its ``<base>``,
        each value once (``resolve``: the rules' verdict of a value; the
        crawl's own turns an exception of ours into the link's internal
        error, a worker's lets it through)."""
        base_url = url
        if read.base is not None:
            try:
                base_url = canonicalize(read.base, url)
            except InvalidURL:
                pass  # the Standard: a base that does not parse is ignored
        fragments: list[list[Any]] | None = [] if self.fragments else None
        links: Links = []
        resolved: dict[str, Verdict] = {}
        head: set[str] | None = set() if read.marks is not None and not stylesheet else None
        for value, line, tag in read.links:
            verdict = resolved.get(value)
            if verdict is None:
                verdict = resolved[value] = resolve(value, base_url, line)
            links.append((verdict[0], line))
            if head is not None and tag in HEAD_TAGS:  # only blocks use the head's URLs
                head.add(verdict[0])
            if fragments is not None and "#" in value and verdict[1] is None:
                fragment = fragment_of(value)
                if fragment:
                    fragments.append([verdict[0], fragment, line])
        # each URL once, in the order found (the last value's verdict, as before)
        verdicts = {verdict[0]: verdict for verdict in resolved.values()}
        outcomes = {
            key: (outcome, error)
            for key, outcome, error in verdicts.values()
            if outcome is not None or error is not None
        }
        anchors = sorted(read.anchors) if read.anchors is not None else None
        return Prepared(
            length,
            None,
            links,
            list(verdicts),
            outcomes,
            head,
            fragments,
            read.images,
            anchors,
            read.dropped,
            read.marks,
        )

    def prepare(self, text: str, url: str, stylesheet: bool, vet: bool) -> Prepared:
        """The whole of it at once, the rules' own resolution (a worker's:
        an exception of ours goes to the caller, who scans the page again
        where the fault is reported).  ``vet``: an HTML file may be a
        build's unrendered template."""
        read = self.read(text, stylesheet)
        why = self.unrendered(text, read, stylesheet) if vet else None
        if why is not None:
            return not_a_page(len(text), why)
        rules = self.rules
        resolve: Resolve = lambda value, base, _line: rules.resolve(value, base)  # noqa: E731
        return self.resolved(read, len(text), url, stylesheet, resolve)


def not_a_page(length: int, why: str) -> Prepared:
    """An HTML file that is no page: none of its links is placed."""
    return Prepared(length, why, [], [], {}, None, None, 0, None, 0, None)
