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
import functools
import posixpath
import re
from collections.abc import Callable, Sequence
from typing import NamedTuple, cast
from urllib.parse import unquote, urldefrag, urljoin

from linkaudit.sources.built import BuiltLink
from linkaudit.sources.links import TEMPLATE, SourceLink, text_key

ORIGIN = "http://build.invalid/"
PY_ROLES = frozenset("class func meth attr mod data exc obj const type any".split())
LOOSE_TEXT = frozenset({"autolink", "html", "template", "image"})
BLOCK_RATIO = 0.8
SQUEEZE = re.compile(r"[\s\\]+")
NO_TARGET = "no link of the source file has this target"
PATTERN_KEY = 8  # characters of a pattern's literal end (or start) it is indexed by


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


def page_base(page: str, base: str | None) -> str:
    """The URL a page's links resolve against (its ``<base href>``'s)."""
    page_url = site_url(page)
    return urljoin(page_url, base) if base else page_url


def key(url: str) -> str:
    """A resolved URL compared loosely: escapes decoded, ``index.html``
    and a trailing ``/`` alike."""
    url, _, fragment = url.partition("#")
    url = unquote(url)
    if url.endswith("/index.html"):
        url = url[: -len("index.html")]
    return url + ("#" + unquote(fragment) if fragment else "")


@functools.lru_cache(maxsize=16384)
def resolve(base: str, href: str) -> tuple[str, str]:
    """A built link's URL against its page's base, and its ``key``: asked
    of the same links again by each matcher of a page (its own source's,
    its parts', the listed sources') and by every page whose base is the
    same (a theme's links), so resolved once each (``urljoin`` was most of
    the rivals' cost: printsite's 2,600 calls for 390 links)."""
    resolved = urljoin(base, href.strip())
    return resolved, key(resolved)


def make_id(label: str) -> str:
    """Sphinx's (docutils') id of a label."""
    return re.sub(r"[^a-z0-9]+", "-", label.lower()).strip("-")


def candidates(link: SourceLink, page: str, src_dir: str, rules: Rules) -> set[object]:
    """The URLs (keys) the tool may have made of ``link`` on ``page``; a
    tuple ("fragment", name) or ("pattern", parts, head, tail) for the looser
    kinds (and
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
        parts = TEMPLATE.split(target)
        if any(part.strip("/#.") for part in parts):
            out.add(("pattern", tuple(parts), parts[0], parts[-1]))
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
    ``#how-to-missing.md`` for ``how-to/``'s, a page's own ``#a`` as
    ``#how-to-page-a``, a link to ``/a/b.html`` or ``b.md`` as ``#a-b``)."""
    target = link.target
    if "://" in target:
        return {key(target)}
    inside = posixpath.join(src_dir, target).replace("/", "-") if src_dir else target
    out: set[object] = {("raw", target), ("raw", "#" + target), ("raw", "#" + inside)}
    path, _, fragment = target.partition("#")
    if not path:
        stem = posixpath.splitext(posixpath.basename(link.file))[0]
        out.add(("raw", f"#{posixpath.join(src_dir, stem).replace('/', '-')}-{fragment}"))
    elif path.endswith((".md", ".html")):
        doc = path.lstrip("/") if path.startswith("/") else posixpath.join(src_dir, path)
        doc = posixpath.splitext(posixpath.normpath(doc))[0]
        if not doc.startswith(".."):
            out.add(("raw", "#" + doc.replace("/", "-") + (f"-{fragment}" if fragment else "")))
    return out


def listing_needles(href: str, resolved: str) -> set[str] | None:
    """Texts one of which a source file holds (``SourceFiles.holding``:
    its text with escapes decoded, white space and backslashes removed)
    when one of its links can be ``href`` on a page of others' words
    (``_aggregated``'s forms); None: every file may.

    An absolute target whose key is the resolved URL's holds its path and
    query (and fragment, unless the path ends in ``/``: ``index.html`` may
    be written before it); a target written as the href holds the href; a
    print page's ``#...`` holds the longest run of letters and digits of
    its last ``-`` or ``/`` part: its target's own end (``#a``,
    ``#dir-target``, ``#dir-page-a``, ``#a-b`` are all made from targets
    ending so)."""
    out = set()
    if not resolved.startswith(ORIGIN) and "://" in resolved:
        rest = resolved.partition("://")[2]
        url, _, fragment = rest[rest.find("/") :].partition("#") if "/" in rest else ("", "", "")
        url = url[: -len("index.html")] if url.endswith("/index.html") else url
        if len(url) < 2:  # "/": any file
            return None
        whole = fragment and not url.endswith("/")
        out.add(squeezed(unquote(url) + ("#" + unquote(fragment) if whole else "")))
    if href.startswith("#"):
        word = max(
            re.findall(r"[A-Za-z0-9]+", re.split(r"[-/]", href[1:])[-1]), key=len, default=""
        )
    else:
        word = squeezed(unquote(href))
    if not word:
        return None
    out.add(word)
    return out


def squeezed(text: str) -> str:
    """``text`` without white space and backslashes (a URL wrapped over
    lines, ``\\_`` in reST): what ``listing_needles`` compares."""
    return SQUEEZE.sub("", text)


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


class Index:
    """The source links by the forms the tool may have made of them, so a
    page's links are each compared with the few that can be theirs (a list
    of posts against every source of a site is thousands of links)."""

    def __init__(self, forms: list[set[object]]) -> None:
        self.forms = forms  # each source link's (``holds``: one link's claims alone)
        self.exact: dict[object, list[int]] = {}  # a URL key, ("raw", href)
        self.fragments: dict[str, list[tuple[int, object]]] = {}  # by its last dotted name
        # patterns by the end their text must have (its last literal part's
        # last characters), else the start; a pattern with neither: loose
        self.ends: dict[int, dict[str, list[tuple[int, object]]]] = {}
        self.starts: dict[int, dict[str, list[tuple[int, object]]]] = {}
        self.loose: list[tuple[int, object]] = []
        for i, kinds in enumerate(forms):
            for form in kinds:
                if isinstance(form, str) or form[0] == "raw":  # type: ignore[index]
                    self.exact.setdefault(form, []).append(i)
                elif form[0] == "fragment":  # type: ignore[index]
                    last = form[1].rpartition(".")[2]  # type: ignore[index]
                    self.fragments.setdefault(last, []).append((i, form))
                else:
                    _, _, head, tail = cast(tuple[str, tuple[str, ...], str, str], form)
                    if tail:
                        k = min(len(tail), PATTERN_KEY)
                        self.ends.setdefault(k, {}).setdefault(tail[-k:], []).append((i, form))
                    elif head:
                        k = min(len(head), PATTERN_KEY)
                        self.starts.setdefault(k, {}).setdefault(head[:k], []).append((i, form))
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
        patterns = list(self.loose)
        for text in {href, resolved}:
            for k, by_end in self.ends.items():
                patterns += by_end.get(text[-k:], ())
            for k, by_start in self.starts.items():
                patterns += by_start.get(text[:k], ())
        found.update(i for i, form in patterns if _same(form, href, resolved))
        return sorted(found)

    def holds(self, i: int, href: str, resolved: str, resolved_key: str) -> bool:
        """Whether ``candidates(href, resolved)`` holds the i-th source link
        (``resolved_key``: ``key(resolved)``), from its own forms: the
        buckets above are only necessary conditions of ``_same`` (a pattern
        that matches ends with its tail, or starts with its head; a fragment
        that is the form's or ends with ``.`` and it has its last dotted
        part), so only this link's patterns are compiled."""
        for form in self.forms[i]:
            if isinstance(form, str):
                if form == resolved_key:
                    return True
            elif _same(form, href, resolved):
                return True
        return False


def _same(form: object, href: str, resolved: str) -> bool:
    if isinstance(form, tuple):
        what, value = form[:2]
        if what == "raw":
            return href == value
        if what == "fragment":
            fragment = urldefrag(href)[1]
            return bool(fragment) and (fragment == value or fragment.endswith("." + value))
        regex = _pattern(value)
        return bool(regex.fullmatch(href) or regex.fullmatch(resolved))
    return form == key(resolved)


@functools.lru_cache(maxsize=4096)
def _pattern(parts: tuple[str, ...]) -> re.Pattern[str]:
    """A templated target's literal parts, anything between them (compiled
    when a link may be its: a changelog holds a thousand)."""
    return re.compile(".*".join(map(re.escape, parts)))


def page_index(page: str, sources: list[SourceLink], src_dir: str, rules: Rules) -> Index:
    """The index of one source file's links, as the tool made them on ``page``."""
    return Index([candidates(link, page, src_dir, rules) for link in sources])


def listing_index(sources: list[SourceLink], src_dir_of: Callable[[SourceLink], str]) -> Index:
    """The index of every source file's links, for the pages no one file
    made (the same for all of them: built once)."""
    return Index([_aggregated(s, src_dir_of(s)) for s in sources])


class PageMatcher:
    """Each built link's source link, or why none (``matcher[j]`` for the
    page's j-th link).

    ``every``: ``sources`` are every source file's links, for a page no
    one file made (a print page, a list of posts): only targets written as
    absolute URLs are compared (the page rewrites the others), wherever the
    link sits but in what the builder generates.

    Only what the links asked need is computed: the source links that can
    be theirs, and the other built links that can claim one of those (the
    decision counts them); a page of 2,000 links with one finding compares
    a few pairs of texts, not thousands."""

    def __init__(
        self,
        page: str,
        base: str | None,
        built: Sequence[BuiltLink],
        sources: list[SourceLink],
        index: Index,
        every: bool = False,
    ) -> None:
        self.base_url = page_base(page, base)
        self.built, self.sources, self.index, self.every = built, sources, index, every
        self._candidates: dict[int, tuple[int, ...] | None] = {}
        self._claims: dict[int, list[int]] = {}  # a source link -> the built links it may be
        self._chosen: dict[int, tuple[int, ...] | None] = {}

    def candidates(self, j: int) -> tuple[int, ...] | None:
        """The j-th built link's source links by target alone (None: a
        link outside the page's content)."""
        if j not in self._candidates:
            link = self.built[j]
            if link.where != "content" and not (self.every and link.where == "template"):
                self._candidates[j] = None
            else:
                self._candidates[j] = tuple(self.index.candidates(link.href, self.resolved(j)))
        return self._candidates[j]

    def rivals(self, j: int) -> set[int]:
        """The built links that may claim one of the j-th's source links:
        those whose candidates hold it (``Index.holds``, asked of each
        built link for the chosen source links only, once each)."""
        chosen = self.chosen(j)
        if not chosen:
            return set()
        out: set[int] = set()
        for i in chosen:
            if i not in self._claims:
                self._claims[i] = [r for r in range(len(self.built)) if self._may_claim(r, i)]
            out.update(self._claims[i])
        return out

    def _may_claim(self, r: int, i: int) -> bool:
        """``i in candidates(r)``, without looking up r's other source links."""
        if r in self._candidates:
            found = self._candidates[r]
            return found is not None and i in found
        link = self.built[r]
        resolved, resolved_key = resolve(self.base_url, link.href)
        if not self.index.holds(i, link.href, resolved, resolved_key):
            return False
        return link.where == "content" or (self.every and link.where == "template")

    def resolved(self, j: int) -> str:
        return resolve(self.base_url, self.built[j].href)[0]

    def chosen(self, j: int) -> tuple[int, ...] | None:
        """The source links whose target, text and block agree with the j-th's."""
        if j not in self._chosen:
            found = self.candidates(j)
            if found is not None:
                found = tuple(i for i in found if _words_agree(self.built[j], self.sources[i]))
            self._chosen[j] = found
        return self._chosen[j]

    def __getitem__(self, j: int) -> Mapped:
        chosen = self.chosen(j)
        if chosen is None:
            return Mapped(None, f"outside the page's content (the {self.built[j].where})")
        if not chosen:
            if not self.candidates(j):
                return Mapped(None, NO_TARGET)
            return Mapped(None, "no link of the source file has this target, text and block")
        # the built links that may claim one of these source links
        rivals = sorted(self.rivals(j))
        theirs = {r: self.chosen(r) or () for r in rivals}
        times = sum(1 for r in rivals if theirs[r] == chosen)
        claimed = {i: sum(1 for r in rivals if i in theirs[r]) for i in chosen}
        lines = {(self.sources[i].file, self.sources[i].line) for i in chosen}
        if len(chosen) == times and all(claimed[i] == times for i in chosen):
            # k times on the page, k times in the source: the k-th is the k-th
            k = sum(1 for r in rivals if r < j and theirs[r] == chosen)
            return Mapped(self.sources[chosen[k]], "")
        if len(lines) == 1 and all(claimed[i] == 1 for i in chosen):
            return Mapped(self.sources[chosen[0]], "")
        return Mapped(
            None,
            f"ambiguous: {times} such links on the page, {len(lines)} source lines hold one",
        )


def match_page(
    page: str,
    base: str | None,
    built: Sequence[BuiltLink],
    sources: list[SourceLink],
    src_dir: str,
    rules: Rules,
    every: bool = False,
    src_dir_of: Callable[[SourceLink], str] = lambda link: "",
) -> list[Mapped]:
    """Each built link's source link, or why none, in the page's order
    (``PageMatcher`` over the whole page)."""
    if every:
        index = listing_index(sources, src_dir_of)
    else:
        index = page_index(page, sources, src_dir, rules)
    matcher = PageMatcher(page, base, built, sources, index, every)
    return [matcher[j] for j in range(len(built))]
