"""Which source link made each link of a built page, strictly: a place
mapped to a wrong line is worse than none.

A built link and a source link match when the source's target, rewritten
as the tool rewrites it (MkDocs' ``x.md`` -> ``x/`` or ``x.html``, MyST's
``x.md#a`` -> ``x.html#a`` and an unresolved ``missing.md`` -> ``#missing.md``,
Sphinx's ``:doc:``, ``:ref:`` and Python roles, extlinks, Hugo's
``relref``, Liquid placeholders as wildcards) or as written, resolves to
the same URL, the texts of their blocks agree (equal, one holding the
other, or 80 % alike) and so do their own texts where the source has one.
Then the place is mapped only when one source line is left, or when the
same link is k times on the page and k times in the source (the k-th to
the k-th); anything else stays unmapped, with the reason."""

from __future__ import annotations

import difflib
import posixpath
import re
from collections import Counter
from collections.abc import Callable
from typing import NamedTuple
from urllib.parse import unquote, urldefrag, urljoin

from linkaudit.sources.built import BuiltLink
from linkaudit.sources.links import SourceLink, text_key
from linkaudit.sources.markdown import TEMPLATE

ORIGIN = "http://build.invalid/"
PY_ROLES = frozenset("class func meth attr mod data exc obj const type any".split())
LOOSE_TEXT = frozenset({"autolink", "html", "template", "image"})
BLOCK_RATIO = 0.8


class Mapped(NamedTuple):
    link: SourceLink | None
    why: str  # "" when mapped


class Rules(NamedTuple):
    """What the matcher needs of the layout."""

    tool: str | None
    extlinks: dict[str, str]
    labels: Callable[[str], str | None]  # a :ref: label -> its document (Sphinx)
    pages: Callable[[str], list[str]]  # a Hugo ref's name -> the site paths it may be


def site_url(path: str) -> str:
    return urljoin(ORIGIN, path.lstrip("/"))


def key(url: str) -> str:
    """A resolved URL compared loosely: escapes decoded, ``index.html``
    and a trailing ``/`` alike."""
    url, _, fragment = url.partition("#")
    url = unquote(url)
    if url.endswith("/index.html"):
        url = url[: -len("index.html")]
    return url + ("#" + unquote(fragment) if fragment else "")


def make_id(label: str) -> str:
    """Sphinx's (docutils') id of a label."""
    return re.sub(r"[^a-z0-9]+", "-", label.lower()).strip("-")


def candidates(link: SourceLink, page: str, src_dir: str, rules: Rules) -> set[object]:
    """The URLs (keys) the tool may have made of ``link`` on ``page``; a
    tuple ("fragment", name) or ("pattern", regex) for the looser kinds (and
    ("raw", target): the href exactly as the source wrote it)."""
    target, kind, tool = link.target, link.kind, rules.tool
    page_url = site_url(page)
    out: set[object] = set()
    if kind.startswith("role:"):
        role = kind[5:].partition(":")[2] or kind[5:]
        if role in rules.extlinks:
            out.add(key(rules.extlinks[role].replace("%s", target)))
        elif role == "doc":
            doc = target.lstrip("/") if target.startswith("/") else posixpath.join(src_dir, target)
            doc = posixpath.normpath(doc)
            out.update({key(site_url(doc + ".html")), key(site_url(doc + "/"))})
        elif role in ("ref", "numref"):
            document = rules.labels(target)
            anchor = "#" + make_id(target)
            if document is not None:
                out.update({key(site_url(document + ".html") + anchor)})
            out.add(("fragment", make_id(target)))
        elif role in PY_ROLES or kind.startswith("role:py:"):
            out.add(("fragment", target))
        return out
    ref = re.fullmatch(r"\{\{[<%]\s*(?:rel)?ref\s+\"([^\"]+)\"\s*[%>]\}\}(#\S*)?", target)
    if ref is not None:
        for url in rules.pages(ref.group(1)):
            out.add(key(site_url(url) + (ref.group(2) or "")))
        return out
    if TEMPLATE.search(target):
        literal = [part for part in TEMPLATE.split(target) if part.strip("/#.")]
        if literal:
            out.add(("pattern", re.compile(".*".join(map(re.escape, TEMPLATE.split(target))))))
        return out
    out.add(key(urljoin(page_url, target)))
    path, fragment = urldefrag(target)
    suffix = "#" + fragment if fragment else ""
    if "://" in path or path.startswith(("mailto:", "tel:")) or not path.endswith(".md"):
        return out
    source = posixpath.normpath(posixpath.join(src_dir, path))[:-3]
    if tool == "mkdocs":
        urls = [source + ".html", source + "/"]
        if posixpath.basename(source) in ("index", "README"):
            urls.append(posixpath.dirname(source) + "/")
        for url in urls:
            out.add(key(site_url(url) + suffix))
    elif tool == "sphinx":  # MyST: resolved, or left as "#missing.md" when unresolved
        out.add(key(site_url(source + ".html") + suffix))
        out.add(key(page_url + "#" + target))
    return out


def _aggregated(link: SourceLink, src_dir: str) -> set[object]:
    """What a page of other pages' words may have made of ``link``: an
    absolute URL as it is; another target as the source wrote it, or made
    a fragment of the print page by mkdocs-print-site (``#missing.md``,
    ``#how-to-missing.md`` for ``how-to/``'s)."""
    if "://" in link.target:
        return {key(link.target)}
    inside = posixpath.join(src_dir, link.target).replace("/", "-") if src_dir else link.target
    return {("raw", link.target), ("raw", "#" + link.target), ("raw", "#" + inside)}


def block_agrees(built: str, source: str) -> bool:
    a, b = text_key(built), text_key(source)
    if not a or not b or a == b:
        return True
    short, long = sorted((a, b), key=len)
    if len(short) >= 20 and short in long:
        return True
    return difflib.SequenceMatcher(None, a, b, autojunk=False).ratio() >= BLOCK_RATIO


def _words_agree(built: BuiltLink, link: SourceLink) -> bool:
    """The texts of the two links' blocks agree, and their own texts."""
    # (a block that is the link alone, a raw HTML one, agrees with any around it)
    alone = bool(link.block) and text_key(link.block) == text_key(built.text)
    if not alone and not block_agrees(built.block, link.block):
        return False
    if not link.text or not built.text or link.kind in LOOSE_TEXT:
        return True
    if link.kind.startswith("role:"):  # the page shows a title the source may not have
        return text_key(link.text) in text_key(built.text) or not link.text
    return text_key(link.text) == text_key(built.text)


class _Index:
    """The source links by the forms the tool may have made of them, so a
    page's links are each compared with the few that can be theirs (a list
    of posts against every source of a site is thousands of links)."""

    def __init__(self, forms: list[set[object]]) -> None:
        self.exact: dict[object, list[int]] = {}  # a URL key, ("raw", href)
        self.fragments: dict[str, list[tuple[int, object]]] = {}  # by its last dotted name
        self.loose: list[tuple[int, object]] = []  # patterns
        for i, kinds in enumerate(forms):
            for form in kinds:
                if isinstance(form, str) or form[0] == "raw":  # type: ignore[index]
                    self.exact.setdefault(form, []).append(i)
                elif form[0] == "fragment":  # type: ignore[index]
                    last = form[1].rpartition(".")[2]  # type: ignore[index]
                    self.fragments.setdefault(last, []).append((i, form))
                else:
                    self.loose.append((i, form))

    def candidates(self, href: str, resolved: str) -> list[int]:
        found = set(self.exact.get(key(resolved), ()))
        found.update(self.exact.get(("raw", href), ()))
        fragment = urldefrag(href)[1]
        if fragment:
            for i, form in self.fragments.get(fragment.rpartition(".")[2], ()):
                if _same(form, href, resolved):
                    found.add(i)
        found.update(i for i, form in self.loose if _same(form, href, resolved))
        return sorted(found)


def _same(form: object, href: str, resolved: str) -> bool:
    if isinstance(form, tuple):
        what, value = form
        if what == "raw":
            return href == value
        if what == "fragment":
            fragment = urldefrag(href)[1]
            return bool(fragment) and (fragment == value or fragment.endswith("." + value))
        return bool(value.fullmatch(href) or value.fullmatch(resolved))
    return form == key(resolved)


def match_page(
    page: str,
    base: str | None,
    built: list[BuiltLink],
    sources: list[SourceLink],
    src_dir: str,
    rules: Rules,
    every: bool = False,
    src_dir_of: Callable[[SourceLink], str] = lambda link: "",
) -> list[Mapped]:
    """Each built link's source link, or why none, in the page's order.

    ``every``: ``sources`` are every source file's links, for a page no
    one file made (a print page, a list of posts): only targets written as
    absolute URLs are compared (the page rewrites the others), wherever the
    link sits but in what the builder generates."""
    page_url = site_url(page)
    base_url = urljoin(page_url, base) if base else page_url
    if every:
        index = _Index([_aggregated(s, src_dir_of(s)) for s in sources])
    else:
        index = _Index([candidates(link, page, src_dir, rules) for link in sources])
    found: list[tuple[int, ...] | None] = []
    for link in built:
        if link.where != "content" and not (every and link.where == "template"):
            found.append(None)
            continue
        resolved = urljoin(base_url, link.href.strip())
        found.append(
            tuple(
                i for i in index.candidates(link.href, resolved) if _words_agree(link, sources[i])
            )
        )
    times = Counter(c for c in found if c)
    claimed = Counter(i for c in found if c for i in c)
    order: Counter[tuple[int, ...]] = Counter()
    out: list[Mapped] = []
    for link, chosen in zip(built, found, strict=True):
        if chosen is None:
            out.append(Mapped(None, f"outside the page's content (the {link.where})"))
            continue
        lines = {(sources[i].file, sources[i].line) for i in chosen}
        if not chosen:
            out.append(Mapped(None, "no link of the source file has this target, text and block"))
        elif len(chosen) == times[chosen] and all(claimed[i] == times[chosen] for i in chosen):
            # k times on the page, k times in the source: the k-th is the k-th
            k = order[chosen]
            order[chosen] += 1
            out.append(Mapped(sources[chosen[k]], ""))
        elif len(lines) == 1 and all(claimed[i] == 1 for i in chosen):
            out.append(Mapped(sources[chosen[0]], ""))
        else:
            out.append(
                Mapped(
                    None,
                    f"ambiguous: {times[chosen]} such links on the page, {len(lines)} source "
                    "lines hold one",
                )
            )
    return out
