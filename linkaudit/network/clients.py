"""The HTTP clients an audit's requests may go through
(``LINKAUDIT_HTTP_CLIENT``): Twisted's, Scrapy's default and linkaudit's,
or one of the download handlers Scrapy ships or blesses on asyncio:
Scrapy's own httpx handler, and the aiohttp and curl_cffi handlers of
``scrapy-download-handlers-incubator``.

``HttpDownloadHandler`` (``network/handler.py``) keeps what is linkaudit's
(the ``request_sent`` signal, a page's render) and hands each request to
the chosen client; ``twisted`` is its own parent class, with linkaudit's
cuts and its fair timeout.  The others are Scrapy's handlers as they are,
their "not recommended for production" warning left out (the choice is
the user's, documented).  None is the default: each costs more CPU a
request than ``twisted`` here and fails tests that pin the download
behaviour (the table in ``bench/README.md``).
"""

from __future__ import annotations

import logging
from typing import Any

from scrapy.crawler import Crawler
from scrapy.utils.misc import load_object

from linkaudit import internals

TWISTED = "twisted"
# the client's name (config/checks.py: HTTP_CLIENTS) -> its Scrapy download handler
HANDLERS: dict[str, str] = {
    "httpx": internals.scrapy_httpx_handler(),
    "aiohttp": "scrapy_download_handlers_incubator.handlers.aiohttp.AiohttpDownloadHandler",
    "curl_cffi": "scrapy_download_handlers_incubator.handlers.curl_cffi.CurlCffiDownloadHandler",
}


def make_client(name: str, crawler: Crawler) -> Any:
    """The download handler of client ``name`` (not ``twisted``), made
    without its "not recommended for production" warning."""
    handler_class = load_object(HANDLERS[name])
    quiet, logger = _DropExperimental(), logging.getLogger(internals.streaming_handlers_logger())
    logger.addFilter(quiet)
    try:
        return handler_class.from_crawler(crawler)
    finally:
        logger.removeFilter(quiet)


class _DropExperimental(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return "not recommended for production" not in record.getMessage()
