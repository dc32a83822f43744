"""The two ways a place is settled before its source file is parsed
whole (``places.py`` asks them in turn): its line found without the
parser (``literal.py``, Markdown; ``restliteral.py``, reST), and its link mapped against the part of
the file that may hold it (``blocks.py``, reST).  Each answers only when
it maps; anything else is left to the whole file's parse."""

from __future__ import annotations

from typing import Protocol
from urllib.parse import unquote, urldefrag

from linkaudit.sources.built import BuiltPage
from linkaudit.sources.files import SourceFiles
from linkaudit.sources.layout import MARKDOWN, REST
from linkaudit.sources.links import WILD, SourceLink, norm, text_key, words_agree
from linkaudit.sources.literal import target_name
from linkaudit.sources.match import (
    Mapped,
    PageMatcher,
    Rules,
    candidates,
    key,
    page_base,
    page_index,
    resolve,
    squeezed,
)


class Page(Protocol):
    """``places.Page``: a built page read again, its source file, and its
    matchers against the parts of that file, by word."""

    rel: str
    built: BuiltPage | None
    source: str | None
    parts: dict[tuple[str, bool], PageMatcher | None]


def literal(sources: SourceFiles, rules: Rules, page: Page, j: int, resolved: str) -> Mapped | None:
    """The j-th link's line in a Markdown source found without its
    parser (``literal.py``), when the tool can have made the link of
    it, its words are the built link's and no other link of the page
    has its target; None: the parser decides."""
    assert page.built is not None and page.source is not None
    base = page_base(page.rel, page.built.base)
    target = key(resolved)
    name = target_name(target)
    if name is None:
        return None
    defined, hits = None, None
    if page.source.endswith(MARKDOWN):
        found = sources.literal(page.source, *name)
        if found is None:  # the name written elsewhere too: the href as written, once
            found = sources.literal(page.source, *name, page.built.links.hrefs[j].strip())
        kind = "image" if found is not None and found.image else "inline"
    elif page.source.endswith(REST):
        found, kind = None, "rst"
        if name[1] is None:  # (a fragment: the document's ids, but a :ref:'s elsewhere)
            hits = _hits(page, base, target, name)  # a name referenced twice: each in turn
            nth = hits.index(j) if j in hits else -1
            rest = sources.rest_literal(page.source, name[0], nth, len(hits)) if nth >= 0 else None
            found, defined = rest if rest is not None else (None, None)
        if found is None and (name[1] is None or urldefrag(target)[0] != urldefrag(key(base))[0]):
            role = "doc" if name[1] is None else "ref"
            found, kind = sources.rest_role(page.source, name[0], role), "role:" + role
    else:
        return None
    built = page.built.links[j]
    if (
        found is None
        or text_key(found.text) != text_key(built.text)
        or not words_agree(found.block, built.block)
    ):
        return None
    block = norm(found.block.replace(WILD, "…"))  # (what a role shows: not known here)
    link = SourceLink(page.source, found.line, found.href, norm(found.text), block,
                      kind, defined, page.source if defined is not None else None)  # fmt: skip
    if target not in candidates(link, page.rel, sources.directory_of(page.source),
                                rules):  # fmt: skip
        return None
    if hits is None:
        hits = _hits(page, base, target, name)
    return Mapped(link, "") if len(hits) == 1 or (kind == "rst" and defined is not None) else None


def _hits(page: Page, base: str | None, target: str, name: tuple[str, str | None]) -> list[int]:
    """The page's links to ``target``, in its order."""
    assert page.built is not None
    # a fragment's name is held by any href (not empty) that is the target
    # (the one "#": none decoded from its path), a quick test before resolving it
    # on each of a page's thousand links
    sifted = name[1] is not None and target.count("#") == 1
    found = []
    for k, href in enumerate(page.built.links.hrefs):
        if sifted and href.strip() and name[0] not in squeezed(unquote(href)).lower():
            continue
        if resolve(base, href)[1] == target:
            found.append(k)
    return found


def part(
    sources: SourceFiles, rules: Rules, page: Page, word: tuple[str, bool], j: int
) -> Mapped | None:
    """The j-th link against the part of the page's source file that
    may hold it (``blocks.py``), None: no part (parse the whole file)."""
    assert page.built is not None and page.source is not None
    if word not in page.parts:
        links = sources.part_links(page.source, word)
        matcher = None
        if links is not None:
            rel, built, source = page.rel, page.built, page.source
            index = page_index(rel, links, sources.directory_of(source), rules)
            matcher = PageMatcher(rel, built.base, built.links, links, index)
        page.parts[word] = matcher
    matcher = page.parts[word]
    return None if matcher is None else matcher[j]


def elsewhere(resolved: str, base: str, word: tuple[str, bool]) -> bool:
    """A word the part of a file may be cut by: a fragment's only for a
    link to another page (a link into the page itself may be a section's
    or a footnote's, whose ids the whole document makes)."""
    return not word[1] or urldefrag(resolved)[0] != urldefrag(base)[0]
