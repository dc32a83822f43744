"""Headers and credentials for the site's own hosts, never for the rest of
the web (see :class:`NearCredentialsMiddleware`)."""

from __future__ import annotations

from urllib.parse import urlsplit

from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from scrapy.http import Request
from scrapy.utils.httpobj import urlparse_cached

from linkaudit.config import config_of

_MARK = "linkaudit_credentials"  # meta: the header names this middleware set


class NearCredentialsMiddleware:
    """``--header`` and ``--auth`` on requests to the site's own origins
    (scheme, host and port of the start URLs or ``--near`` prefixes) and to
    the hosts of ``--header-host``; ``.netrc`` logins on requests to the
    hosts it names (its ``default`` login on the site's own origins only).

    A staging site's password must not go to every external link, nor to a
    far host a redirect leads to: requests to any other origin are sent
    without them, even when they were copied from a request that had them
    (robots.txt redirects are followed with the original's meta).  The
    ``Authorization`` header itself is set by Scrapy's HttpAuthMiddleware
    from the request's ``http_user``/``http_pass`` meta, restricted to the
    request's host; a ``--header "Authorization: ..."`` wins over both.
    """

    def __init__(self, crawler: Crawler):
        config = config_of(crawler)
        self.headers = config["LINKAUDIT_HEADERS"]
        self.auth = config["LINKAUDIT_AUTH"]
        self.logins = config["LINKAUDIT_NETRC"]
        if not (self.headers or self.auth or self.logins):
            raise NotConfigured
        self.origins = {
            (parts.scheme, parts.netloc.lower())
            for parts in map(urlsplit, config.near_prefixes or config.start_urls)
        }
        self.hosts = {host.lower() for host in config["LINKAUDIT_HEADER_HOSTS"]}

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> NearCredentialsMiddleware:
        return cls(crawler)

    def process_request(self, request: Request, spider: object = None) -> None:
        parts = urlparse_cached(request)
        host = (parts.hostname or "").lower()
        ours = (parts.scheme, parts.netloc.lower()) in self.origins or host in self.hosts
        for name in request.meta.pop(_MARK, ()):  # copied from another request
            del request.headers[name]
        for key in ("http_user", "http_pass", "http_auth_domain"):
            request.meta.pop(key, None)
        login = self.auth if ours else None
        if login is None:
            login = self.logins.get(host) or (self.logins.get("") if ours else None)
        if login is not None:
            request.meta["http_user"], request.meta["http_pass"] = login
            request.meta["http_auth_domain"] = parts.netloc.lower()  # with the port
        if ours and self.headers:
            added = [name for name, _ in self.headers if name not in request.headers]
            for name, value in self.headers:
                if name in added:
                    request.headers[name] = value
            request.meta[_MARK] = added
        return None
