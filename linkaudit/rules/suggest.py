"""Suggestions for broken links in the site: the page the author most
likely meant (the report's ``suggestion``).

Pure logic.  Given the broken near URLs and the URLs the audit knows to
exist (pages and files found ok, the sitemap's URLs, where redirects lead),
each broken URL is matched with the candidates of the same origin whose
path is a likely slip of the author's, scored 0..1:

- ``extension`` 0.95: the same path with ``.html``/``.htm`` added or dropped;
- ``slash`` 0.95: with a trailing slash, or ``index.html``, added or dropped;
- ``case`` 0.95: the same path in another case (0.9 with one of the above);
- ``typo`` 0.85 (0.75 for a last segment of 4 or 5 letters): one letter
  typed wrong, missing, extra or two swapped, in the last segment or in
  one folder's name (a shorter one is not matched: too many words are one
  letter apart; nor is a change of number: ``v1.2.3`` is no typo of
  ``v1.2.4``);
- ``moved`` 0.6 to 0.95: the same last segment in another folder, more
  with the folders the two paths share, with a last segment no other
  candidate has, and with a long one; never when the link's path names
  numbers the candidate's does not (``/releases/v11/notes`` is not
  ``/releases/v10/notes`` moved; ``/guide/launch`` may be ``/news/2020/launch``).

Only the best candidate is suggested, and only when its score reaches the
threshold (``LINKAUDIT_SUGGEST_MIN_SCORE``) and no other candidate scores
as well: no suggestion is better than a wrong one.  Query strings are not
matched (a URL with one gets no suggestion, and suggests none).  No
``title`` (the report's vocabulary): the state keeps no page titles.

Cost: the broken URLs are indexed by their keys (the lower-cased path
form, the last segment, each last segment with one letter deleted), then
every candidate is looked up by its own keys once: linear, never one
compared with every other.  So no key more than MAX_SHARED (8) candidates
or broken links have is matched by (one name in 3,000 cases on each side
paired every link with every page: 33 s, 1.6 GB): which was meant is a guess.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import NamedTuple, TypedDict

WHY = {
    "case": "a change of case",
    "typo": "a typo",
    "moved": "a moved page",
    "extension": ".html added or dropped",
    "slash": "a trailing slash or index.html",
    "title": "a page with that title",
}
EXACT, CASE_AND_FORM = 0.95, 0.9
TYPO, SHORT_TYPO = 0.85, 0.75
MIN_TYPO = 4  # letters of a last segment a typo is looked for in
# and at most: a name's one-letter deletions are as many as its letters,
# so a 2,000-letter name (a hostile or generated href) would cost 4 MB
MAX_TYPO = 64
MAX_SHARED = 8  # a key more candidates or broken links have is not matched by
PAGE_BONUS = 0.01  # an HTML page is more likely meant than a file of the same name
_EXTENSIONS = (".html", ".htm")
_INDEX = ("index.html", "index.htm")
_DIGITS = re.compile(r"\d+")


class SuggestionRecord(TypedDict):
    """An entry's ``suggestion`` as the report writes it (``Suggestion.as_dict``)."""

    url: str
    score: float
    why: str


@dataclass(frozen=True)
class Suggestion:
    url: str
    score: float
    why: str

    def as_dict(self) -> SuggestionRecord:
        return {"url": self.url, "score": round(self.score, 3), "why": self.why}


class _Path(NamedTuple):
    origin: str  # scheme://host[:port]
    path: str  # as in the URL
    form: str  # the path without index.html, trailing slash or .html
    folders: tuple[str, ...]  # the form's folders, lower case
    stem: str  # the form's last segment, lower case


def parse(url: str) -> _Path | None:
    """A canonical URL's path and its forms (the report's URLs have no
    fragment); None when it has a query (not matched).  Split by hand:
    ``urlsplit`` was half the cost of a 100,000-page site's suggestions."""
    if "?" in url:
        return None
    start = url.find("://")
    if start <= 0:
        return None
    slash = url.find("/", start + 3)
    origin, path = (url, "/") if slash < 0 else (url[:slash], url[slash:])
    form = path
    head, _, last = form.rpartition("/")
    if last.lower() in _INDEX:
        form = head + "/"
    if len(form) > 1 and form.endswith("/"):
        form = form.rstrip("/") or "/"
    head, _, last = form.rpartition("/")
    for ext in _EXTENSIONS:
        if last.lower().endswith(ext) and len(last) > len(ext):
            form = form[: -len(ext)]
            break
    segments = form.lower().strip("/").split("/")
    return _Path(origin, path, form, tuple(segments[:-1]), segments[-1])


def _deletions(word: str) -> set[str]:
    """The word with each letter deleted in turn, and itself."""
    return {word, *(word[:i] + word[i + 1 :] for i in range(len(word)))}


def within_one(a: str, b: str) -> bool:
    """One edit apart at most: a letter changed, added, removed, or two
    neighbours swapped (linear: no table)."""
    if a == b:
        return True
    if abs(len(a) - len(b)) > 1:
        return False
    i = 0
    while i < min(len(a), len(b)) and a[i] == b[i]:
        i += 1
    if len(a) == len(b):
        if a[i + 1 :] == b[i + 1 :]:
            return True  # one changed
        return a[i + 2 :] == b[i + 2 :] and a[i : i + 2] == b[i : i + 2][::-1]  # swapped
    longer, shorter = (a, b) if len(a) > len(b) else (b, a)
    return longer[i + 1 :] == shorter[i:]


def _typo(a: str, b: str) -> bool:
    """``b`` is ``a`` with a typo: one edit apart, in a word of MIN_TYPO
    letters or more, with the same numbers (``v1.2.3`` and ``v1.2.4``,
    ``2019-05-01`` and ``2019-05-02`` name different things: a version, a
    day, a page of a list)."""
    return (
        MIN_TYPO <= len(a) <= MAX_TYPO
        and within_one(a, b)
        and _DIGITS.findall(a) == _DIGITS.findall(b)
    )


def _typo_score(stem: str) -> float:
    return TYPO if len(stem) >= 6 else SHORT_TYPO


def score(broken: _Path, candidate: _Path, unique_stem: bool) -> tuple[float, str] | None:
    """How likely ``candidate`` is what ``broken`` meant, and why (None: it
    is not).  ``unique_stem``: no other candidate has its last segment."""
    if broken.origin != candidate.origin or broken.path == candidate.path:
        return None
    if broken.form == candidate.form:
        return EXACT, _form_kind(broken.path, candidate.path)
    if broken.form.lower() == candidate.form.lower():
        if broken.path.lower() == candidate.path.lower():
            return EXACT, "case"
        return CASE_AND_FORM, "case"
    if broken.folders == candidate.folders:
        if _typo(broken.stem, candidate.stem):
            return _typo_score(broken.stem), "typo"
        return None
    if broken.stem != candidate.stem:
        return None
    numbers = _DIGITS.findall(broken.form)
    if numbers and numbers != _DIGITS.findall(candidate.form):
        return None  # the link names a version, year or number the page does not
    if len(broken.folders) == len(candidate.folders):
        slips = [(a, b) for a, b in zip(broken.folders, candidate.folders, strict=True) if a != b]
        if len(slips) == 1 and _typo(*slips[0]):
            return _typo_score(slips[0][0]), "typo"
    shared = len(set(broken.folders) & set(candidate.folders))
    overlap = shared / max(len(broken.folders), len(candidate.folders), 1)
    value = 0.6 + 0.25 * overlap + (0.1 if unique_stem else 0)
    value += 0.05 if len(broken.stem) >= 8 else 0  # a long name is seldom a coincidence
    return min(value, EXACT), "moved"


def _form_kind(a: str, b: str) -> str:
    """``extension`` when the paths differ by .html, else ``slash``."""
    la, lb = a.lower(), b.lower()
    for ext in _EXTENSIONS:
        if la + ext == lb or lb + ext == la:
            return "extension"
    return "slash"


class _Index(dict[tuple, list[str]]):
    """Broken URLs by a key ((origin, ...): a lower-cased form, a stem, a
    stem less a letter), and how many candidates have it (MAX_SHARED)."""

    def __init__(self) -> None:
        super().__init__()
        self.counts: dict[tuple, int] = {}

    def look(self, key: tuple, found: set[str]) -> None:  # a candidate's key
        wanting = self.get(key)
        if wanting is not None and len(wanting) <= MAX_SHARED:
            count = self.counts[key] = self.counts.get(key, 0) + 1
            if count <= MAX_SHARED:
                found.update(wanting)

    def open(self, key: tuple) -> bool:  # once every candidate is counted
        wanting = self.get(key)
        return wanting is not None and len(wanting) <= MAX_SHARED >= self.counts.get(key, 0)


class Suggester:
    """Indexes the broken URLs, then sees every candidate once
    (:meth:`offer`) and gives each broken URL its suggestion
    (:meth:`suggestions`)."""

    def __init__(self, broken: list[str], min_score: float) -> None:
        self.min_score = min_score
        self.paths: dict[str, _Path] = {}
        self.by_form = _Index()  # (origin, lower form)
        self.by_stem = _Index()  # (origin, stem)
        self.by_typo = _Index()  # (origin, folders, stem less a letter, or itself)
        # (origin, folders) -> the lengths a typo of a broken stem there has
        self.lengths: dict[tuple[str, tuple[str, ...]], set[int]] = {}
        for url in broken:
            path = parse(url)
            if path is None:
                continue
            self.paths[url] = path
            self.by_form.setdefault((path.origin, path.form.lower()), []).append(url)
            self.by_stem.setdefault((path.origin, path.stem), []).append(url)
            if MIN_TYPO <= (size := len(path.stem)) <= MAX_TYPO:
                sizes = self.lengths.setdefault((path.origin, path.folders), set())
                sizes.update(range(size - 1, size + 2))
                for variant in _deletions(path.stem):
                    self.by_typo.setdefault((path.origin, path.folders, variant), []).append(url)
        self.matches: list[tuple[str, str, bool]] = []  # (broken, candidate, page)

    def offer(self, url: str, page: bool = False) -> None:
        """A URL that exists (``page``: an HTML page the audit read)."""
        if not self.paths:
            return
        path = parse(url)
        if path is None:
            return
        found: set[str] = set()
        self.by_form.look((path.origin, path.form.lower()), found)
        self.by_stem.look((path.origin, path.stem), found)
        if len(path.stem) in self.lengths.get((path.origin, path.folders), ()):
            typos = self.by_typo  # most keys are none of its: no call for them
            for variant in _deletions(path.stem):
                if (key := (path.origin, path.folders, variant)) in typos:
                    typos.look(key, found)
        self.matches.extend((broken, url, page) for broken in found if broken != url)

    def _routed(self, b: _Path, c: _Path) -> bool:
        """``b`` and ``c`` share a key few enough have (a candidate seen
        early was matched before its key's count was known)."""
        if b.form.lower() == c.form.lower() and self.by_form.open((c.origin, b.form.lower())):
            return True
        if b.stem == c.stem and self.by_stem.open((c.origin, b.stem)):
            return True
        typo = b.folders == c.folders and MIN_TYPO <= len(b.stem) <= MAX_TYPO
        shared = _deletions(b.stem) & _deletions(c.stem) if typo else ()
        return any(self.by_typo.open((c.origin, c.folders, v)) for v in shared)

    def suggestions(self) -> dict[str, Suggestion]:
        """Broken URL -> its suggestion, for those that have a clear one."""
        best: dict[str, list[tuple[float, str, str]]] = {}
        for broken, url, page in self.matches:
            b, c = self.paths[broken], parse(url)
            assert c is not None  # offer() parsed it
            if not self._routed(b, c):
                continue  # matched by a key too common to tell by
            found = score(b, c, self.by_stem.counts.get((c.origin, c.stem), 0) == 1)
            if found is None:
                continue
            value = found[0] + (PAGE_BONUS if page else 0.0)
            best.setdefault(broken, []).append((value, url, found[1]))
        out = {}
        for broken, ranked in best.items():
            ranked.sort(reverse=True)
            value, url, why = ranked[0]
            if value + 1e-9 < self.min_score:
                continue
            if len(ranked) > 1 and ranked[1][0] >= value - 1e-9:
                continue  # two as likely: ambiguous
            out[broken] = Suggestion(url, min(value, 1.0), why)
        return out


def suggestion_target(suggestion: SuggestionRecord, broken: str) -> str:
    """The suggested URL as a person reads it beside ``broken``: its path
    when both are on one origin (``/docs/intro.html``), else the URL."""
    url = str(suggestion["url"])
    path = parse(url)
    if path is not None and broken.startswith(path.origin + "/"):
        return path.path
    return url


def suggestion_text(suggestion: SuggestionRecord, broken: str) -> str:
    """``did you mean /docs/intro.html? (a typo)``"""
    why = WHY.get(str(suggestion["why"]), str(suggestion["why"]))
    return f"did you mean {suggestion_target(suggestion, broken)}? ({why})"
