"""What becomes of a link before any request: its key in the audit (the
canonical URL, or the value as written when it is not a URL) and, when it is
settled without a request, its outcome and the words for it.

Pure rules (no Scrapy): other schemes are ``excluded``, an invalid URL is
``broken``, a URL over the length bound or caught by a guard is
``excluded``; an http(s) URL otherwise is checked (outcome None).
"""

from __future__ import annotations

from typing import NamedTuple
from urllib.parse import urlsplit

from linkaudit.items import Outcome
from linkaudit.rules.guards import TrapGuards
from linkaudit.rules.urls import HTTP_SCHEMES, InvalidURL, canonicalize, clean, is_near, scheme_of
from linkaudit.rules.userinfo import masked, masked_link

DATA_URL_KEEP = 100  # data: URLs are reported by their first characters only
_HTTP_PREFIXES = ("http://", "https://")  # canonical URLs spell the scheme in lower case
NOT_CANONICAL = "Excluded: not a URL linkaudit stored (the state was altered): not requested"


class Verdict(NamedTuple):
    key: str
    outcome: Outcome | None  # None: to be checked
    error: str | None


class LinkRules:
    """The rules of one audit: what is near, the guards, the length bound."""

    def __init__(
        self,
        near_prefixes: tuple[str, ...],
        guards: TrapGuards,
        url_length_limit: int,
        root: tuple[str, str] | None = None,
    ):
        """``root``: (the site's own address, where it is audited): links to
        the first are checked at the second (``--root-url``: a local build,
        or a staging copy, checked for its links to the live address)."""
        self.near_prefixes = tuple(near_prefixes)
        self.root = root
        self.guards = guards
        self.url_length_limit = url_length_limit
        self.too_long = f"Excluded: URL longer than {url_length_limit} characters (URLLENGTH_LIMIT)"

    def is_near(self, url: str) -> bool:
        """Near: the URL starts with one of the near prefixes (the site)."""
        return is_near(url, self.near_prefixes)

    def resolve(self, value: str, base: str) -> Verdict:
        """A link value on a page whose base URL is ``base``.  An http(s)
        URL comes back undecided: it is judged when first discovered, not at
        each of its many occurrences (see :meth:`judge`)."""
        try:
            url = canonicalize(value, base)
        except InvalidURL as exc:  # reported as written, as the parser read it
            return Verdict(clean(value), Outcome.BROKEN, f"Invalid URL: {exc}")
        if url.startswith(_HTTP_PREFIXES):
            root = self.root
            if root is not None and url.startswith(root[0]):
                url = root[1] + url[len(root[0]) :]
            elif root is not None and url + "/" == root[0]:  # the root without its slash
                url = root[1]
            return Verdict(self._unsent(url), None, None)
        return self.judge(url)

    def _unsent(self, url: str) -> str:
        """An http(s) URL's key: a password in it is masked when such URLs
        are excluded (never requested), so that no output repeats it (a
        private page's link may hold one)."""
        if "@" in url and self.guards.exclude_userinfo and "@" in urlsplit(url).netloc:
            return masked(url)
        return url

    def judge(self, url: str) -> Verdict:
        """A canonical URL: settled now, or to be checked."""
        scheme = scheme_of(url)
        if scheme not in HTTP_SCHEMES:
            url = masked_link(url)  # never requested: ftp://user:password@ shown masked
            if scheme == "data" and len(url) > DATA_URL_KEEP:
                url = url[:DATA_URL_KEEP] + "..."
            return Verdict(url, Outcome.EXCLUDED, f"Excluded: {scheme}: link")
        if len(url) > self.url_length_limit:
            # a sanity bound of ours, far above what browsers follow: not a
            # verdict (under it, the server's answer decides: 414 or not)
            return Verdict(url, Outcome.EXCLUDED, self.too_long)
        reason = self.guards.reason(url, self.is_near(url))
        if reason:
            return Verdict(self._unsent(url), Outcome.EXCLUDED, reason)
        return Verdict(url, None, None)

    def judge_stored(self, url: str) -> Verdict:
        """A URL read back from a state (a resumed frontier, a shared
        queue): data, never an instruction.  It is judged again, as a link
        is, before anything requests it: a URL that does not parse is
        ``broken`` as an invalid link is; one that is not in the canonical
        form linkaudit stores never came from linkaudit (an altered
        database or Redis record): ``excluded``, never requested as written
        (``/../``, a scheme in capitals, a port of Unicode digits); other
        schemes, the length bound and the guards as for any link."""
        try:
            canonical = canonicalize(url)
        except InvalidURL as exc:
            return Verdict(url, Outcome.BROKEN, f"Invalid URL: {exc}")
        if canonical != url:
            return Verdict(url, Outcome.EXCLUDED, NOT_CANONICAL)
        return self.judge(url)
