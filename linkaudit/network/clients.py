"""The HTTP clients an audit's requests may go through
(``LINKAUDIT_HTTP_CLIENT``): Twisted's, Scrapy's default, or one of the
download handlers Scrapy ships or blesses on asyncio: Scrapy's own httpx
handler and the aiohttp and curl_cffi handlers of
``scrapy-download-handlers-incubator``.

``HttpDownloadHandler`` (``network/handler.py``) keeps what is linkaudit's
(the ``request_sent`` signal, a page's render) and hands the request to
the chosen client; ``twisted`` is its own parent class.  The others are
made here, their "experimental" warning left out: the choice is the
user's, documented, and measured in ``bench/README.md``.  What each does
not do that the Twisted path does (the fair timeout, the connect timeout
told apart, ...) is listed in docs/settings.toml.
"""

from __future__ import annotations

import logging
from importlib import import_module
from typing import Any

from scrapy.crawler import Crawler

# the client's name: the module and class of its Scrapy download handler
CLIENTS: dict[str, tuple[str, str]] = {
    "httpx": ("scrapy.core.downloader.handlers._httpx", "HttpxDownloadHandler"),
    "aiohttp": ("scrapy_download_handlers_incubator.handlers.aiohttp", "AiohttpDownloadHandler"),
    "curl_cffi": (
        "scrapy_download_handlers_incubator.handlers.curl_cffi",
        "CurlCffiDownloadHandler",
    ),
}
TWISTED = "twisted"
NAMES = (TWISTED, *CLIENTS)


def make_client(name: str, crawler: Crawler) -> Any:
    """The download handler of client ``name`` (not ``twisted``), made
    without its "not recommended for production" warning."""
    module, cls_name = CLIENTS[name]
    handler_class = getattr(import_module(module), cls_name)
    logger = logging.getLogger(handler_class.__module__.rpartition(".")[0] or __name__)
    quiet = _DropExperimental()
    base = logging.getLogger("scrapy.core.downloader.handlers._base_streaming")
    base.addFilter(quiet)
    logger.addFilter(quiet)
    try:
        return handler_class.from_crawler(crawler)
    finally:
        base.removeFilter(quiet)
        logger.removeFilter(quiet)


class _DropExperimental(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return "not recommended for production" not in record.getMessage()
